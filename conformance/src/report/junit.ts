// junit.xml: one testcase per requirement check, grouped by spec area, for CI test reporters.
import { areaOf } from '../spec/catalogue.js';
import { TEST_COUNT_ORDER, type RunResults } from './results.js';
import { strengthOf } from './strength.js';

/**
 * The verdict and its strength as JUnit properties, the same in every testsuite (CI reporters read
 * a testsuite's properties; a public format, conformance/README.md section 7):
 * conformance.verdict, conformance.exitCode, conformance.selected, conformance.judged,
 * conformance.passed, conformance.notJudged, conformance.notJudged.<cause> (one per cause),
 * conformance.minJudged (when asked for), conformance.tests.<outcome> (tests by outcome, and
 * conformance.tests.not-selected: tests outside the selection).
 */
function properties(r: RunResults): string {
  const s = r.strength ?? strengthOf(r);
  const p: Array<[string, string | number]> = [
    ['conformance.verdict', r.verdict],
    ['conformance.exitCode', r.exitCode],
    ['conformance.selected', s.selected],
    ['conformance.judged', s.judged],
    ['conformance.passed', s.passed],
    ['conformance.notJudged', s.notJudged],
    ...s.notJudgedBy.map((c): [string, number] => [`conformance.notJudged.${c.cause}`, c.count]),
    // the tests by outcome, as the console and results.json `testCounts` count them
    ...(r.testCounts
      ? TEST_COUNT_ORDER.map((k): [string, number] => [`conformance.tests.${k}`, r.testCounts![k]])
      : []),
    ...(r.disputes ? [['conformance.disputed', r.disputes.length] as [string, number]] : []),
    ...(s.gate?.minJudgedCount !== undefined
      ? [['conformance.minJudged', s.gate.minJudgedCount] as [string, number]]
      : []),
  ];
  return `    <properties>\n${p.map(([k, v]) => `      <property name="${xml(k)}" value="${xml(String(v))}"/>`).join('\n')}\n    </properties>`;
}

function xml(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex -- control characters are not allowed in XML 1.0
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
  );
}

/** One testcase per requirement check (`<REQ-ID> <test title>`), grouped by spec area. */
export function toJUnit(r: RunResults): string {
  const byArea = new Map<string, string[]>();
  const stats = new Map<string, { tests: number; failures: number; errors: number; skipped: number; time: number }>();
  const add = (area: string, xmlCase: string, kind: 'ok' | 'failure' | 'error' | 'skipped', ms: number) => {
    byArea.set(area, [...(byArea.get(area) ?? []), xmlCase]);
    const s = stats.get(area) ?? { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
    s.tests++;
    if (kind === 'failure') s.failures++;
    if (kind === 'error') s.errors++;
    if (kind === 'skipped') s.skipped++;
    s.time += ms;
    stats.set(area, s);
  };
  const excused = new Map((r.gate?.excused ?? []).map((x) => [x.id, x.by]));
  for (const req of r.requirements) {
    const area = areaOf(req.id);
    // a failure the gate excuses (expected failure, or already failing in the baseline) is reported
    // as skipped, like an xfail, so that CI test reporters agree with the exit code
    const by = excused.get(req.id);
    const excuse =
      by === 'expected-failure'
        ? `expected failure until ${req.expectedFailure?.expires}: ${req.expectedFailure?.reason}`
        : by === 'baseline'
          ? `known failure: already ${req.baseline?.was} in the baseline`
          : by === 'disputed'
            ? `disputed (--allow-disputed): "${req.expectedFailure?.quote}": ${req.expectedFailure?.reason}`
            : undefined;
    // a disputed failure that still fails the run says so in its message
    const disputedMark = req.expectedFailure?.status === 'disputed' && !excuse ? '[disputed] ' : '';
    // beside every failure: the spec's words it rests on and the suite's reading of them
    const grounds = `\n\nspec §${req.section}: ${req.quote ? `"${req.quote}"` : '(no quote)'}\nthe suite reads: ${req.statement}${
      req.expectedFailure?.kind === 'disputed'
        ? `\ndisputed: "${req.expectedFailure.quote}": ${req.expectedFailure.reason}`
        : ''
    }`;
    const expiredNote =
      req.expectedFailure?.status === 'expired'
        ? `\n\nthe expected-failures entry for ${req.id} expired on ${req.expectedFailure.expires} (${req.expectedFailure.reason})`
        : '';
    if (req.tests.length === 0) {
      const name = `${req.id} ${req.result === 'not-testable' ? '(not testable)' : '(no test)'}`;
      if (req.result === 'untested' && excuse) {
        add(
          area,
          `    <testcase name="${xml(name)}" classname="${xml(area)}" time="0"><skipped message="${xml(`${excuse} (untested)`)}"/></testcase>`,
          'skipped',
          0,
        );
      } else if (req.result === 'untested') {
        add(
          area,
          `    <testcase name="${xml(name)}" classname="${xml(area)}" time="0"><failure type="untested" message="${xml(`no test verifies ${req.id}`)}">${xml(req.statement + expiredNote)}</failure></testcase>`,
          'failure',
          0,
        );
      } else {
        add(
          area,
          `    <testcase name="${xml(name)}" classname="${xml(area)}" time="0"><skipped message="${xml(req.reason ?? req.result)}"/></testcase>`,
          'skipped',
          0,
        );
      }
      continue;
    }
    for (const t of req.tests) {
      const name = `${req.id} ${t.title}`;
      const time = (t.durationMs / 1000).toFixed(3);
      const head = `    <testcase name="${xml(name)}" classname="${xml(area)}" file="${xml(t.file)}" time="${time}">`;
      const msg = t.error?.message ?? t.reason ?? '';
      const first = msg.split('\n')[0];
      const exchanges = t.error?.exchanges
        .map((e) => `${e.method} ${e.url} → ${e.status ?? e.error ?? '?'}`)
        .join('\n');
      const where = t.error?.expectation?.location
        ? `\n\nat ${t.error.expectation.location}${t.error.expectation.source ? `: ${t.error.expectation.source}` : ''}`
        : '';
      const detail = `${exchanges ? `${msg}${where}${grounds}\n\nexchanges:\n${exchanges}` : `${msg}${where}${grounds}`}${expiredNote}`;
      const failing =
        t.result === 'failed' || t.result === 'blocked' || t.result === 'error' || t.result === 'precondition-failed';
      if (failing && excuse) {
        add(
          area,
          `${head}<skipped message="${xml(`${excuse}; ${t.result}: ${first}`)}"/><system-out>${xml(detail)}</system-out></testcase>`,
          'skipped',
          t.durationMs,
        );
        continue;
      }
      switch (t.result) {
        case 'passed':
          add(area, `${head}</testcase>`, 'ok', t.durationMs);
          break;
        case 'failed':
          add(
            area,
            `${head}<failure type="failed" message="${xml(disputedMark + first)}">${xml(detail)}</failure></testcase>`,
            'failure',
            t.durationMs,
          );
          break;
        case 'blocked':
          add(
            area,
            `${head}<failure type="blocked" message="${xml(`${disputedMark}blocked by ${t.blockedBy?.requirement ?? '?'}: ${first}`)}">${xml(detail)}</failure></testcase>`,
            'failure',
            t.durationMs,
          );
          break;
        case 'error':
        case 'precondition-failed':
          add(
            area,
            `${head}<error type="${t.result}" message="${xml(disputedMark + first)}">${xml(detail)}</error></testcase>`,
            'error',
            t.durationMs,
          );
          break;
        case 'not-applicable':
          add(
            area,
            `${head}<skipped message="${xml(t.reason ?? 'not applicable')}"/></testcase>`,
            'skipped',
            t.durationMs,
          );
          break;
      }
    }
  }
  const tot = { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
  const suites: string[] = [];
  const props = properties(r);
  for (const [area, cases] of [...byArea].sort(([a], [b]) => a.localeCompare(b))) {
    const s = stats.get(area)!;
    tot.tests += s.tests;
    tot.failures += s.failures;
    tot.errors += s.errors;
    tot.skipped += s.skipped;
    tot.time += s.time;
    suites.push(
      `  <testsuite name="${xml(area)}" tests="${s.tests}" failures="${s.failures}" errors="${s.errors}" skipped="${s.skipped}" time="${(s.time / 1000).toFixed(3)}">\n${props}\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  if (!suites.length)
    suites.push(
      `  <testsuite name="conformance" tests="0" failures="0" errors="0" skipped="0" time="0">\n${props}\n  </testsuite>`,
    );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="rflps-conformance ${xml(r.profile)}" tests="${tot.tests}" failures="${tot.failures}" errors="${tot.errors}" skipped="${tot.skipped}" time="${(r.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
