// Compares the figures of two mutation runs (their mutation.json): whether each fault is caught,
// the mapped requirements it fails, every core requirement it fails and those it does not name;
// whether each control passes and its false alarms. The check that running only the tests that
// call the operations a rewrite touches (the default) gives a fault the figures of the whole suite:
//   tsx conformance/faults/run-faults.ts --faults-only --seed 7 --report-dir reports/tmp/ops
//   tsx conformance/faults/run-faults.ts --faults-only --seed 7 --whole-suite --report-dir reports/tmp/suite
//   tsx conformance/faults/compare-runs.ts reports/tmp/ops/mutation.json reports/tmp/suite/mutation.json
// Exit 0 when they are identical (every fault and control of either run in both; with --common, the
// faults and controls in both runs), 1 otherwise.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControlOutcome, FaultOutcome } from './runner/judge.js';

interface MutationReport {
  score: { caught: number; total: number };
  falseAlarms: { failed: number; total: number };
  failedPerFault: { median: number | null; max: number | null };
  faults: FaultOutcome[];
  controls: ControlOutcome[];
}

const sorted = (xs: string[] | undefined) => [...(xs ?? [])].sort();

/** What must be equal between two runs of one fault. */
function faultFigures(f: FaultOutcome) {
  return {
    caught: f.caught,
    status: f.status,
    failing: sorted(f.failing),
    failedRequirements: sorted(f.failedRequirements),
    unnamedFailures: sorted(f.unnamedFailures),
  };
}

/** What must be equal between two runs of one control. */
function controlFigures(c: ControlOutcome) {
  return { status: c.status, falseAlarms: c.falseAlarms };
}

/**
 * The differences between two mutation reports, one line each (empty: identical figures). `common`:
 * only the faults and controls in both (a run cut short), without the totals.
 */
export function compareRuns(a: MutationReport, b: MutationReport, common = false): string[] {
  const out: string[] = [];
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  for (const key of common ? [] : (['score', 'falseAlarms', 'failedPerFault'] as const)) {
    const x = key === 'failedPerFault' ? { median: a[key].median, max: a[key].max } : a[key];
    const y = key === 'failedPerFault' ? { median: b[key].median, max: b[key].max } : b[key];
    if (!same(x, y)) out.push(`${key}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
  }
  const pairs = <T extends { name: string }>(xs: T[], ys: T[], kind: string, figures: (t: T) => object) => {
    const byName = new Map(ys.map((y) => [y.name, y]));
    for (const x of xs) {
      const y = byName.get(x.name);
      if (!y && common) continue;
      if (!y) out.push(`${kind} ${x.name}: only in the first run`);
      else if (!same(figures(x), figures(y)))
        out.push(`${kind} ${x.name}: ${JSON.stringify(figures(x))} vs ${JSON.stringify(figures(y))}`);
      byName.delete(x.name);
    }
    if (!common) for (const name of byName.keys()) out.push(`${kind} ${name}: only in the second run`);
  };
  pairs(a.faults, b.faults, 'fault', faultFigures);
  pairs(a.controls, b.controls, 'control', controlFigures);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const common = args.includes('--common');
  const [fileA, fileB] = args.filter((x) => x !== '--common');
  if (!fileA || !fileB) {
    process.stderr.write('usage: compare-runs [--common] <mutation.json> <mutation.json>\n');
    process.exit(2);
  }
  const read = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8')) as MutationReport;
  const a = read(fileA);
  const b = read(fileB);
  const diff = compareRuns(a, b, common);
  const names = (r: MutationReport) => new Set([...r.faults, ...r.controls].map((x) => x.name));
  const inB = names(b);
  const compared = [...names(a)].filter((n) => !common || inB.has(n)).length;
  process.stdout.write(
    diff.length
      ? `${diff.length} difference(s) between ${fileA} and ${fileB}:\n${diff.map((d) => `  ${d}\n`).join('')}`
      : common
        ? `identical figures for the ${compared} faults and controls in both runs\n`
        : `identical figures: ${a.faults.length} faults (${a.score.caught} caught, failed per fault median ${a.failedPerFault.median}, max ${a.failedPerFault.max}), ${a.controls.length} controls (${a.falseAlarms.failed} false alarms)\n`,
  );
  process.exit(diff.length ? 1 : 0);
}
