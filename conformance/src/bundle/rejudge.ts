// A bundle's recorded traffic judged again with the traffic verifier (traffic/verify-files.ts, what
// `conformance verify-traffic` runs) and set against its results.json: the recording must fit the
// run (every exchange inside the run's start and end, at least one exchange per test that judged),
// must not fail a requirement the results call passed, and must fail every requirement the results
// call failed that a rule of the verifier decides; a failed requirement the recording cannot decide
// is named with why (no rule judges it from traffic, or no recorded exchange showed it).
// One cause, one red line, at the exchange: a broken answer may break several requirements at once
// (a `columns` list ignored leaves an alias out: COL-001 by one rule, QRY-013's "no suppression
// unless asked" by another), and the suite blames the one its test checks (COL-001, blocking the
// rest). A failing judgement of a requirement the results call passed is explained, not a
// contradiction, when it also names a requirement the results call failing (failed, blocked,
// error, ...) or when the exchange that decided it also decided a failing judgement of one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isGatingFailure, type RunResults } from '../report/results.js';
import { verifyTrafficFiles } from '../traffic/verify-files.js';

export interface Rejudged {
  /** discrepancies of the recording's span and size with the run */
  fit: string[];
  /** a one-line account of the recording */
  span: string;
  /** requirements the results call passed that the recording fails, with the rule's message */
  contradicted: string[];
  /** requirements the results call failed that the recording fails too */
  confirmed: string[];
  /** requirements the results call failed that the recording does not decide, each with why */
  undecided: Array<{ id: string; why: string }>;
  /** exchanges of the interface judged, and requirements the recording decided (passed or failed) */
  exchanges: number;
  observed: number;
}

/** Clock slack between the runner's timestamps and the HAR's (both the runner's clock; rounding only). */
const SLACK_MS = 1000;

interface HarDoc {
  log?: { entries?: Array<{ startedDateTime?: string; time?: number }> };
}

function fitOf(har: HarDoc, r: RunResults, statedExchanges: number): { fit: string[]; span: string } {
  const entries = har.log?.entries ?? [];
  const fit: string[] = [];
  const start = Date.parse(r.startedAt);
  const end = Date.parse(r.finishedAt);
  const times = entries.map((e) => Date.parse(e.startedDateTime ?? ''));
  const outside = times.filter((t) => !(t >= start - SLACK_MS && t <= end + SLACK_MS)).length;
  if (outside)
    fit.push(
      `${outside} of ${entries.length} recorded exchanges lie outside the run (${r.startedAt} to ${r.finishedAt})`,
    );
  if (entries.length !== statedExchanges)
    fit.push(`the recording holds ${entries.length} exchanges, the statement says ${statedExchanges}`);
  // every test that passed or failed sent at least one request (the synthetic entries sent none)
  const judging = new Set(
    r.requirements.flatMap((q) =>
      q.tests.filter((t) => !t.generic && !t.step && (t.result === 'passed' || t.result === 'failed')).map((t) => t.id),
    ),
  );
  if (entries.length < judging.size)
    fit.push(`${judging.size} tests passed or failed, but the recording holds only ${entries.length} exchanges`);
  const valid = times.filter((t) => Number.isFinite(t));
  const span = valid.length
    ? `${entries.length} exchanges from ${new Date(Math.min(...valid)).toISOString()} to ${new Date(Math.max(...valid)).toISOString()}, run ${r.startedAt} to ${r.finishedAt}, ${judging.size} tests judged`
    : `no exchange recorded, ${judging.size} tests judged`;
  return { fit, span };
}

/** Judges the recording `har` again and sets it against `r` (the bindings: the run's). */
export function rejudge(har: Buffer, r: RunResults, bindings: unknown, statedExchanges: number): Rejudged {
  let doc: HarDoc;
  try {
    doc = JSON.parse(har.toString('utf8')) as HarDoc;
  } catch (e) {
    throw new Error(`traffic.har is not JSON: ${(e as Error).message}`, { cause: e });
  }
  const { fit, span } = fitOf(doc, r, statedExchanges);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conformance-bundle-'));
  try {
    const harFile = path.join(dir, 'traffic.har');
    const configFile = path.join(dir, 'config.json');
    fs.writeFileSync(harFile, har);
    // YAML reads JSON: the run's bindings as a config file's `bindings:`
    fs.writeFileSync(configFile, JSON.stringify(bindings ? { bindings } : {}));
    const v = verifyTrafficFiles([harFile], { config: configFile, baseUrl: r.target.baseUrl });
    const byId = new Map(v.results.requirements.map((q) => [q.id, q]));
    const failing = new Set(r.requirements.filter((q) => isGatingFailure(q.result)).map((q) => q.id));
    const blames = (x: (typeof v.judgements)[number]) => x.requirements.some((o) => failing.has(o));
    const deciding = (x: (typeof v.judgements)[number]) => x.sources.at(-1) ?? '';
    // the exchanges that decided a failure of a requirement the results call failing
    const blamed = new Set(v.judgements.filter((x) => !x.ok && blames(x)).map(deciding));
    // the failing judgements against `id` that no failure the results report explains
    const unexplained = (id: string) =>
      v.judgements.filter((x) => !x.ok && x.requirements.includes(id) && !blames(x) && !blamed.has(deciding(x)));
    const contradicted: string[] = [];
    const confirmed: string[] = [];
    const undecided: Rejudged['undecided'] = [];
    for (const q of r.requirements) {
      const t = byId.get(q.id);
      if (q.result === 'passed' && t?.result === 'failed') {
        const against = unexplained(q.id);
        if (against.length)
          contradicted.push(
            `${q.id}: ${against.length} judgement(s) of ${[...new Set(against.map((x) => x.rule))].join(', ')}, first: ${against[0]!.message} (${against[0]!.sources.map((f) => path.basename(f)).join(', ')})`,
          );
      }
      if (q.result !== 'failed') continue;
      if (t?.result === 'failed') confirmed.push(q.id);
      else
        undecided.push({
          id: q.id,
          why: !t
            ? `the traffic verifier judges core requirements only (${q.id} is ${q.level})`
            : t.result === 'passed'
              ? 'the recorded exchanges its rules read conform; the failing check of the suite is not one traffic decides'
              : (t.reason ?? t.result),
        });
    }
    return { fit, span, contradicted, confirmed, undecided, exchanges: v.exchanges, observed: v.observed.observed };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
