// What a peer's core run must show to pass the gate: an independent, correct implementation is
// never failed, so every red line of its run is a suite bug until a sentence of the spec says
// otherwise (peers/README.md). Pure: a results.json in, the problems out.
import type { RunResults } from '../../conformance/src/report/results.js';

/** Test outcomes that are never allowed on a peer. */
const RED = new Set(['failed', 'blocked', 'error', 'precondition-failed', 'untested']);

export interface PeerVerdict {
  ok: boolean;
  /** One line per problem: a red test, a not-applicable without its reason, a non-zero exit. */
  problems: string[];
  /** Counts of requirement results, as the run gave them. */
  counts: Record<string, number>;
  /** not-applicable tests with their reasons (listed in the gate's report, never a problem). */
  notApplicable: Array<{ test: string; reason: string }>;
}

export function judgePeer(
  results: Pick<RunResults, 'requirements' | 'counts' | 'exitCode' | 'profile' | 'runErrors'>,
): PeerVerdict {
  const problems: string[] = [];
  const notApplicable: PeerVerdict['notApplicable'] = [];
  if (results.profile !== 'core') problems.push(`the run's profile is ${results.profile}, not core`);
  for (const e of results.runErrors) problems.push(`run error: ${e}`);
  const seen = new Set<string>();
  for (const req of results.requirements) {
    if (RED.has(req.result) && req.tests.length === 0) problems.push(`${req.id}: ${req.result} (no test ran)`);
    for (const t of req.tests) {
      if (seen.has(t.id)) continue;
      seen.add(t.id);
      if (t.profile !== 'core') continue;
      if (RED.has(t.result)) {
        const why = t.error?.message ?? t.reason ?? '';
        problems.push(`${t.id} (${t.requirements.join(', ')}): ${t.result}: ${why.split('\n')[0].slice(0, 300)}`);
      } else if (t.result === 'not-applicable') {
        if (!t.reason?.trim()) problems.push(`${t.id}: not-applicable without a reason`);
        else notApplicable.push({ test: t.id, reason: t.reason });
      }
    }
  }
  if (results.exitCode !== 0 && problems.length === 0) problems.push(`the run exited ${results.exitCode}`);
  return { ok: problems.length === 0, problems, counts: { ...results.counts }, notApplicable };
}
