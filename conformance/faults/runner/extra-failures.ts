// One bug, one red line: a caught fault should fail only the requirements it names. Where it still
// fails others (a test that uses a broken step as set-up without declaring it), the number it may
// fail is a debt written down in known-extra-failures.yaml, fault by fault. The mutation run fails
// when a fault fails more unnamed requirements than its entry allows (a new red line, or a fault
// with no entry failing any), and says which entries can be lowered. Counts, not names: which
// requirement a model-based or generated test blames can vary with the seed, the number of lines
// a vendor sees must not grow.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { FaultOutcome } from './judge.js';
import { ROOT } from '../../../spec/paths.js';

const KNOWN_EXTRA_FAILURES_FILE = path.join(ROOT, 'conformance/faults/known-extra-failures.yaml');

/** fault name → how many requirements it may fail beyond those it names */
export type ExtraFailureAllowance = ReadonlyMap<string, number>;

export function readAllowance(file = KNOWN_EXTRA_FAILURES_FILE): ExtraFailureAllowance {
  const doc = (parse(fs.readFileSync(file, 'utf8')) ?? {}) as Record<string, unknown>;
  const out = new Map<string, number>();
  for (const [name, n] of Object.entries(doc)) {
    if (!Number.isInteger(n) || (n as number) < 1)
      throw new Error(`${path.relative(ROOT, file)}: ${name}: a count of 1 or more, not ${JSON.stringify(n)}`);
    out.set(name, n as number);
  }
  return out;
}

export interface ExtraFailureVerdict {
  /** caught faults failing more unnamed requirements than allowed: the run fails */
  over: Array<{ name: string; allowed: number; failed: string[] }>;
  /** caught faults failing fewer than allowed: their entry can be lowered (to 0: removed) */
  lower: Array<{ name: string; allowed: number; now: number }>;
}

/**
 * Judges the caught faults of a run against the allowance (faults not run or not caught are not
 * judged). `seesWholeSuite`: the run's scope holds every test that can fail on the fault (the
 * default scope and --whole-suite); a narrower one (--whole-files, CI's gate) sees at most as many
 * failures, so it can still find a fault over its entry, never an entry to lower.
 */
export function judgeExtraFailures(
  outcomes: FaultOutcome[],
  allowance: ExtraFailureAllowance,
  seesWholeSuite = true,
): ExtraFailureVerdict {
  const over: ExtraFailureVerdict['over'] = [];
  const lower: ExtraFailureVerdict['lower'] = [];
  for (const o of outcomes) {
    if (!o.caught) continue;
    const allowed = allowance.get(o.name) ?? 0;
    const n = o.unnamedFailures.length;
    if (n > allowed) over.push({ name: o.name, allowed, failed: o.unnamedFailures });
    else if (n < allowed && seesWholeSuite) lower.push({ name: o.name, allowed, now: n });
  }
  return { over, lower };
}

/** One line per judgement, for the summary and mutation.md. */
export function describeExtraFailures(v: ExtraFailureVerdict): string[] {
  const file = path.relative(ROOT, KNOWN_EXTRA_FAILURES_FILE);
  const lines: string[] = [];
  if (v.over.length)
    lines.push(
      `faults failing more requirements than they name and ${file} allows (${v.over.length}): ${v.over
        .map((x) => `${x.name} ${x.failed.length} > ${x.allowed} (+${x.failed.join(',+')})`)
        .join('; ')}`,
    );
  if (v.lower.length)
    lines.push(
      `entries of ${file} to lower (${v.lower.length}): ${v.lower.map((x) => `${x.name} ${x.allowed} -> ${x.now}`).join('; ')}`,
    );
  return lines;
}
