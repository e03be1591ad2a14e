// One judge per requirement (conformance/src/judge/areas.ts): in the areas done, every requirement a
// traffic rule decides is decided by a judge, the suite asserts that judge's finding, and no traffic
// rule holds a predicate of its own for it. A planted second predicate fails the guard.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JUDGED_AREAS, JUDGES, NOT_YET_JUDGED } from '../src/judge/areas.js';
import type { JudgedRule } from '../src/traffic/rule.js';
import { SEQUENCE_RULES } from '../src/traffic/sequence-rules.js';
import { EXCHANGE_RULES } from '../src/traffic/verify.js';

interface Rule {
  name: string;
  requirements: readonly string[];
  judges?: JudgedRule['judges'];
}

const SUITE = path.join(import.meta.dirname, '..', 'suite');

/**
 * Requirement -> the judges a suite file asserts a finding of it with: `expectFinding(..., 'REQ'...)`
 * beside an import of the judge, or a call naming 'REQ' of a helper of that file whose body asserts
 * the judge's finding on the requirement its caller names (`expectSet(t, 'SCHED-014', ...)`).
 */
function suiteCalls(): Map<string, Set<string>> {
  const calls = new Map<string, Set<string>>();
  const files = fs.readdirSync(SUITE, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const f of files) {
    const src = fs.readFileSync(path.join(SUITE, f), 'utf8');
    const imported = JUDGES.filter((j) => new RegExp(`import[^;]*\\b${j.name}\\b[^;]*from '[./]*src/judge/`).test(src));
    const helpers = [...src.matchAll(/\n(?:async )?function (\w+)\(([\s\S]*?)\n}/g)]
      .filter((m) => /expectFinding\(/.test(m[2]!))
      .map((m) => ({ name: m[1]!, judges: imported.filter((j) => new RegExp(`\\b${j.name}\\(`).test(m[2]!)) }));
    const asserted = [
      { judges: imported, args: [...src.matchAll(/expectFinding\(([\s\S]*?)\);/g)] },
      ...helpers.map((h) => ({
        judges: h.judges,
        args: [...src.matchAll(new RegExp(`\\b${h.name}\\(([\\s\\S]*?)\\);`, 'g'))],
      })),
    ];
    for (const { judges, args } of asserted)
      for (const m of args)
        for (const [, req] of m[1]!.matchAll(/'([A-Z]+-\d{3})'/g))
          for (const j of judges.filter((j) => j.requirements.includes(req!)))
            calls.set(req!, (calls.get(req!) ?? new Set()).add(j.name));
  }
  return calls;
}

/** Every break of the rule "one judge per requirement" in the judged areas. */
function violations(rules: readonly Rule[], calls: Map<string, Set<string>>): string[] {
  const inArea = (id: string) => JUDGED_AREAS.some((a) => id.startsWith(a));
  const pending = (rule: string, id: string) =>
    NOT_YET_JUDGED.some((p) => p.rule === rule && p.requirements.includes(id));
  const out: string[] = [];
  const decided = new Set<string>();
  for (const r of rules)
    for (const id of r.requirements.filter(inArea)) {
      if (pending(r.name, id)) continue;
      decided.add(id);
      if (!r.judges?.some((j) => j.requirements.includes(id)))
        out.push(`traffic rule ${r.name} decides ${id} without a judge of conformance/src/judge`);
    }
  for (const id of decided) {
    const judges = JUDGES.filter((j) => j.requirements.includes(id)).map((j) => j.name);
    if (judges.length !== 1) out.push(`${id}: ${judges.length} judges (${judges.join(', ')}), not one`);
    else if (!calls.get(id)?.has(judges[0]!)) out.push(`${id}: the suite never asserts ${judges[0]}'s finding`);
  }
  for (const p of NOT_YET_JUDGED)
    for (const id of p.requirements)
      if (!rules.some((r) => r.name === p.rule && r.requirements.includes(id)))
        out.push(`NOT_YET_JUDGED lists ${p.rule} for ${id}, which it does not decide: drop the entry`);
  return out;
}

const RULES: readonly Rule[] = [...EXCHANGE_RULES, ...SEQUENCE_RULES];

describe('one judge per requirement', () => {
  it('in the judged areas, each requirement a traffic rule decides has one judge, the suite asserts it, and every rule is its adapter', () => {
    expect(violations(RULES, suiteCalls())).toEqual([]);
  });

  it('a planted second predicate fails: a rule deciding a BIND requirement without the judge', () => {
    const planted: Rule = { name: 'planted_bind_check', requirements: ['BIND-002'] };
    expect(violations([...RULES, planted], suiteCalls())).toEqual([
      'traffic rule planted_bind_check decides BIND-002 without a judge of conformance/src/judge',
    ]);
  });

  it('a planted second predicate fails: a rule deciding a COL requirement without the judge', () => {
    const planted: Rule = { name: 'planted_alias_check', requirements: ['COL-003'] };
    expect(violations([...RULES, planted], suiteCalls())).toEqual([
      'traffic rule planted_alias_check decides COL-003 without a judge of conformance/src/judge',
    ]);
  });

  it('a planted second predicate fails: a rule deciding a SCHED requirement without the judge', () => {
    const planted: Rule = { name: 'planted_order_check', requirements: ['SCHED-003'] };
    expect(violations([...RULES, planted], suiteCalls())).toEqual([
      'traffic rule planted_order_check decides SCHED-003 without a judge of conformance/src/judge',
    ]);
  });

  it('a planted second predicate fails: a sequence rule deciding what a schedule write left without the judge', () => {
    const planted: Rule = { name: 'planted_rollback_check', requirements: ['SCHED-014'] };
    expect(violations([...RULES, planted], suiteCalls())).toEqual([
      'traffic rule planted_rollback_check decides SCHED-014 without a judge of conformance/src/judge',
    ]);
  });

  it('a requirement the suite asserts only through a helper of its own predicate fails', () => {
    const calls = suiteCalls();
    calls.delete('SCHED-014');
    expect(violations(RULES, calls)).toEqual(["SCHED-014: the suite never asserts judgeReadBack's finding"]);
  });

  it('a requirement the suite judges by a predicate of its own fails', () => {
    const calls = suiteCalls();
    calls.delete('FILE-013');
    expect(violations(RULES, calls)).toEqual(["FILE-013: the suite never asserts judgeFileRecord's finding"]);
  });
});
