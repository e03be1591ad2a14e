// A green verdict says how much it judged (conformance/README.md section 7, report/strength.ts):
// passed / judged / selected with the rest by cause, in results.json, the summary, the badge and
// JUnit; a run or a traffic verification that judged nothing is inconclusive (exit 4); --min-judged,
// --require-protocol and --min-observed make a run that judged too little fail. And never weaker
// without a word: the reference in protocol 1.0.0 mode that answers `scheduleKey` (and
// `scheduleFilter`) without declaring a version has its PROP and SCHED requirements judged.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeRun } from './helpers/fake-run.js';
import { resultsValidator } from './helpers/schema.js';
import { ONE_WORKER, runCli } from './helpers/cli.js';
import { startReferenceProcess } from '../src/targets/reference-process.js';
import { entry, writeHar } from './helpers/har.js';
import { applyStrength, parseMinJudged, strengthOf } from '../src/report/strength.js';
import { badgeInfo } from '../src/report/badge.js';
import { toJUnit } from '../src/report/junit.js';
import { slowTargetLine, summaryText } from '../src/report/summary.js';
import type { RequirementReport, RunResults } from '../src/report/results.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-strength-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const validate = resultsValidator();

/** `r` with the tests of `ids` turned not-applicable for `reason` (extra fields on the test). */
function notApplicable(r: RunResults, ids: string[], reason: string, extra: Record<string, unknown> = {}): RunResults {
  const requirements: RequirementReport[] = r.requirements.map((q) =>
    ids.includes(q.id)
      ? {
          ...q,
          result: 'not-applicable',
          tests: q.tests.map((t) => ({ ...t, result: 'not-applicable' as const, reason, ...extra })),
        }
      : q,
  );
  return { ...r, requirements };
}

const NEEDS = {
  needsProtocol: { since: '1.1.0', what: 'value `scheduleKey` of `a proposal`' },
};
const NEEDS_REASON =
  'needs provider-state protocol 1.1.0: value `scheduleKey` of `a proposal` (the endpoint declares 1.0.0; it must declare 1.1.0 and support that to run this test)';

describe('the strength of a verdict', () => {
  const full = applyStrength(fakeRun());
  const propSched = full.requirements
    .filter((q) => /^(PROP|SCHED)-/.test(q.id) && q.level === 'core' && q.result === 'passed')
    .map((q) => q.id);
  const optional = ['SCHED-001', 'SCHED-006'];
  const partial = applyStrength(
    notApplicable(
      notApplicable(
        fakeRun(),
        propSched.filter((id) => !optional.includes(id)),
        NEEDS_REASON,
        NEEDS,
      ),
      optional,
      "provider state 'a proposal' gave no scheduleFilter (an optional value)",
      { missingValues: ['a proposal.scheduleFilter'] },
    ),
  );

  it('a full pass judged every selected testable requirement: green, exit 0', () => {
    const s = full.strength!;
    expect(s.full).toBe(true);
    expect(s.judged).toBe(s.selected);
    expect(s.notJudgedBy).toEqual([]);
    expect(full.exitCode).toBe(0);
    expect(badgeInfo(full)).toMatchObject({ message: `core ${s.passed}/${s.selected}`, color: '#3fb618' });
    expect(validate(full)).toEqual([]);
  });

  it('a partial pass says how much it judged, by cause, in results.json, summary, badge and JUnit', () => {
    const s = partial.strength!;
    const selected = full.strength!.selected;
    expect(s.selected).toBe(selected);
    expect(s.judged).toBe(selected - propSched.length);
    expect(s.full).toBe(false);
    expect(s.notJudgedBy).toEqual([
      {
        cause: 'protocol-version',
        count: propSched.length - 2,
        requirements: propSched.filter((id) => !optional.includes(id)),
      },
      { cause: 'optional-value', count: 2, requirements: optional },
    ]);
    // today's exit code: no vendor turns red without opting in
    expect(partial.exitCode).toBe(0);
    expect(partial.verdict).toBe('pass');
    expect(validate(partial)).toEqual([]);

    const b = badgeInfo(partial);
    expect(b.message).toBe(`core ${s.judged}/${selected} judged`);
    expect(b.color).not.toBe(badgeInfo(full).color);
    expect(b.title).toContain(
      `${propSched.length} not judged (${propSched.length - 2} protocol-version, 2 optional-value)`,
    );

    const text = summaryText(partial);
    expect(text).toContain(
      `Judged: ${s.judged} of ${selected} selected testable requirements judged (${s.passed} passed); not judged ${propSched.length}: ${propSched.length - 2} protocol-version, 2 optional-value`,
    );
    expect(text).toMatch(new RegExp(`Verdict: PASS \\(exit 0\\), a partial pass: judged ${s.judged} of ${selected}`));

    const xml = toJUnit(partial);
    expect(xml).toContain(`<property name="conformance.judged" value="${s.judged}"/>`);
    expect(xml).toContain(`<property name="conformance.selected" value="${selected}"/>`);
    expect(xml).toContain(`<property name="conformance.notJudged.optional-value" value="2"/>`);
  });

  it('--min-judged 100% makes a partial pass fail (exit 1) and says why; a count it meets holds', () => {
    const base = notApplicable(fakeRun(), propSched, NEEDS_REASON, NEEDS);
    const strict = applyStrength(base, { minJudged: parseMinJudged('100%')! });
    expect(strict.exitCode).toBe(1);
    expect(strict.verdict).toBe('fail');
    expect(strict.strength!.gate!.problems[0]).toMatch(
      /^judged \d+ of \d+ selected testable requirements, fewer than --min-judged 100% \(\d+\)$/,
    );
    expect(summaryText(strict)).toContain('Strength gate:');
    expect(badgeInfo(strict).color).toBe('#d9322b');
    expect(validate(strict)).toEqual([]);
    const judged = strict.strength!.judged;
    const lenient = applyStrength(base, { minJudged: { count: judged } });
    expect(lenient.exitCode).toBe(0);
    expect(lenient.strength!.gate!.problems).toEqual([]);
    // a failing run stays failing for its own reason
    const failing = applyStrength(fakeRun({ fail: ['REC-001'] }), { minJudged: { percent: 100 } });
    expect(failing.exitCode).toBe(1);
  });

  it('--require-protocol fails a run whose endpoint spoke an older protocol', () => {
    const r = fakeRun();
    const spoke100 = { ...r, providerStates: { ...r.providerStates!, used: ['1.0.0'] } };
    expect(applyStrength(spoke100, { requireProtocol: '1.1.0' }).exitCode).toBe(1);
    expect(applyStrength(spoke100, { requireProtocol: '1.1.0' }).strength!.gate!.problems[0]).toContain(
      'the provider-state endpoint spoke 1.0.0',
    );
    const spoke110 = { ...r, providerStates: { ...r.providerStates!, used: ['1.1.0'] } };
    expect(applyStrength(spoke110, { requireProtocol: '1.1.0' }).exitCode).toBe(0);
  });

  it('a run that judged nothing is inconclusive (exit 4), never a pass', () => {
    const all = fakeRun().requirements.map((q) => q.id);
    const none = applyStrength(notApplicable(fakeRun(), all, NEEDS_REASON, NEEDS));
    expect(none.exitCode).toBe(4);
    expect(none.verdict).toBe('inconclusive');
    expect(none.strength!.judged).toBe(0);
    expect(none.strength!.inconclusive).toMatch(/judged none of its \d+ selected testable requirements/);
    expect(badgeInfo(none).message).toBe('core inconclusive');
    expect(summaryText(none)).toContain('Verdict: INCONCLUSIVE (exit 4)');
    expect(validate(none)).toEqual([]);
  });

  it('parses --min-judged as a count or a percentage up to 100%', () => {
    expect(parseMinJudged('100%')).toEqual({ percent: 100 });
    expect(parseMinJudged('95.5%')).toEqual({ percent: 95.5 });
    expect(parseMinJudged('120')).toEqual({ count: 120 });
    expect(parseMinJudged('101%')).toBeUndefined();
    expect(parseMinJudged('lots')).toBeUndefined();
  });

  it('strengthOf leaves not-testable requirements and other levels out of the selection', () => {
    const r = fakeRun({ profile: 'all' });
    const s = strengthOf({ ...r, profile: 'core' });
    expect(s.selected).toBe(r.requirements.filter((q) => q.level === 'core' && q.result !== 'not-testable').length);
  });
});

describe('a slow target is told apart from a broken one', () => {
  /** `r` with the tests of `ids` ended `error` with `message`. */
  const errored = (r: RunResults, ids: string[], message: string): RunResults => ({
    ...r,
    requirements: r.requirements.map((q) =>
      ids.includes(q.id)
        ? {
            ...q,
            result: 'error',
            tests: q.tests.map((t) => ({ ...t, result: 'error' as const, error: { message, exchanges: [] } })),
          }
        : q,
    ),
  });
  const ids = ['REC-001', 'REC-002', 'COL-001', 'QRY-003'];

  it('names the options to change when most tests that did not pass timed out', () => {
    const r = errored(fakeRun(), ids, 'GET http://t/api/Claim/1: no answer within 10000 ms (--timeout)');
    const line = slowTargetLine(r)!;
    expect(line).toMatch(
      /^Slow target: 4 of the 4 tests that did not pass ended because the target did not answer in time/,
    );
    expect(line).toContain('--concurrency');
    expect(summaryText(r)).toContain(line);
  });

  it('says nothing when the failures are not time-outs', () => {
    expect(slowTargetLine(errored(fakeRun(), ids, 'connect ECONNREFUSED 127.0.0.1:1'))).toBeUndefined();
    expect(slowTargetLine(fakeRun({ fail: ids }))).toBeUndefined();
  });
});

describe('conformance verify-traffic: the strength of what was observed', () => {
  const entries = () => [
    entry('GET', '/api/Claim/1?columns=ClaimNumber', 200, { Record: { ClaimNumber: 'C-1' }, Domain: 'Claim', Id: 1 }),
  ];

  it('a HAR recorded without bodies (content omitted) observes nothing: INCONCLUSIVE, exit 4, never 0', async () => {
    const bodiless = entries().map((e) => {
      const c = { ...e.response.content } as Record<string, unknown>;
      delete c.text;
      return { ...e, response: { ...e.response, content: c as typeof e.response.content } };
    });
    const har = writeHar(tmp, 'no-bodies.har', bodiless);
    const dir = path.join(tmp, 'no-bodies');
    const res = await runCli(['verify-traffic', har, '--report-dir', dir]);
    expect(res.code).toBe(4);
    expect(res.stdout).toMatch(/0 of \d+ testable core requirements observed/);
    expect(res.stdout).toContain('INCONCLUSIVE (exit 4)');
    const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunResults;
    expect(results.verdict).toBe('inconclusive');
    expect(results.strength!.judged).toBe(0);
    expect(validate(results)).toEqual([]);
    expect(fs.readFileSync(path.join(dir, 'badge.svg'), 'utf8')).toContain('core inconclusive');
  });

  it('--min-observed: a recording that observed fewer fails (exit 1); without it, today’s exit 0', async () => {
    const har = writeHar(tmp, 'bodies.har', entries());
    const plain = await runCli(['verify-traffic', har, '--report-dir', path.join(tmp, 'bodies')]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/conformance: observed: [1-9]\d* of \d+ selected testable requirements observed/);
    const strict = await runCli([
      'verify-traffic',
      har,
      '--min-observed',
      '100%',
      '--report-dir',
      path.join(tmp, 'strict'),
    ]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(
      /observed [1-9]\d* of \d+ selected testable requirements, fewer than --min-observed 100%/,
    );
    const bad = await runCli(['verify-traffic', har, '--min-observed', 'most', '--report-dir', path.join(tmp, 'bad')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--min-observed must be a count');
  }, 60_000);
});

describe('never weaker without a word: the reference in protocol 1.0.0 mode', () => {
  const run = async (name: string, args: string[], values?: string) => {
    const dir = path.join(tmp, name);
    const res = await runCli(['run', '--local-process', '--profile', 'core', '--report-dir', dir, ...args], {
      ...ONE_WORKER,
      REFERENCE_PROVIDER_STATES_MODE: '1.0.0',
      REFERENCE_PROVIDER_STATES_VALUES: values ?? '',
    });
    const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunResults;
    return { ...res, results, dir };
  };
  const causeOf = (r: RunResults, id: string) =>
    r.strength!.notJudgedBy.find((c) => c.requirements.includes(id))?.cause;

  it('without the newer values, PROP and SCHED are not judged (protocol-version): a partial pass that shows it, and --min-judged 100% fails it', async () => {
    const partial = await run('v100-partial', ['--requirements', 'REC-001,PROP-001,SCHED-003']);
    expect(partial.code).toBe(0);
    expect(partial.results.strength).toMatchObject({ selected: 3, judged: 1, passed: 1, full: false });
    expect(causeOf(partial.results, 'PROP-001')).toBe('protocol-version');
    expect(causeOf(partial.results, 'SCHED-003')).toBe('protocol-version');
    expect(partial.stdout).toContain('Verdict: PASS (exit 0), a partial pass: judged 1 of 3');
    // the upgrade list names every value the answers lack, optional ones too
    expect(partial.stdout).toMatch(/1\.1\.0 {2}value `scheduleKey` of `a proposal`/);
    expect(partial.stdout).toMatch(/1\.1\.0 {2}value `scheduleFilter` of `a proposal`/);
    expect(fs.readFileSync(path.join(partial.dir, 'badge.svg'), 'utf8')).toContain('core 1/3 judged');
    expect(fs.readFileSync(path.join(partial.dir, 'junit.xml'), 'utf8')).toContain(
      '<property name="conformance.judged" value="1"/>',
    );
    expect(validate(partial.results)).toEqual([]);

    const strict = await run('v100-strict', ['--requirements', 'REC-001,PROP-001,SCHED-003', '--min-judged', '100%']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('judged 1 of 3 selected testable requirements, fewer than --min-judged 100% (3)');
  }, 240_000);

  it('answering scheduleKey and scheduleFilter without declaring a version: PROP and SCHED are judged', async () => {
    const r = await run('v100-values', ['--requirements', 'PROP-,SCHED-'], 'scheduleKey,scheduleFilter');
    expect(r.code).toBe(0);
    const s = r.results.strength!;
    // nothing of PROP or SCHED waits for a protocol version any more
    expect(s.notJudgedBy.filter((c) => c.cause === 'protocol-version')).toEqual([]);
    expect(s.judged).toBe(s.selected);
    expect(s.judged).toBeGreaterThan(25);
    for (const id of ['PROP-001', 'PROP-005', 'SCHED-001', 'SCHED-003', 'SCHED-014', 'SCHED-029'])
      expect(r.results.requirements.find((q) => q.id === id)?.result).toBe('passed');
    expect(r.results.providerStates?.used).toEqual(['1.0.0']);
  }, 240_000);
});

describe('--retries: a test that timed out runs again, alone, after the run', () => {
  /** A proxy that holds the first `held` reads of one record (GET /api/Claim/<id>) past the request timeout. */
  async function delayingProxy(upstream: string, held: number, holdMs: number) {
    let seen = 0;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const hold = req.method === 'GET' && /^\/api\/Claim\/\d+\?/.test(req.url ?? '') && seen++ < held;
        setTimeout(
          () => {
            const up = http.request(
              `${upstream}${req.url}`,
              { method: req.method, headers: { ...req.headers, host: new URL(upstream).host } },
              (u) => {
                res.writeHead(u.statusCode ?? 502, u.headers);
                u.pipe(res);
              },
            );
            up.on('error', () => res.destroy());
            up.end(Buffer.concat(chunks));
          },
          hold ? holdMs : 0,
        );
      });
    });
    const port = await new Promise<number>((r) =>
      server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)),
    );
    return {
      baseUrl: `http://127.0.0.1:${port}`,
      stop: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
    };
  }

  it('a fault that delays one answer past the timeout ends flaky and a pass; --fail-on-flaky fails it', async () => {
    const ref = await startReferenceProcess({ providerStates: true });
    try {
      const run = async (name: string, extra: string[]) => {
        // two reads held: the transport asks a read once more after a time-out, so the test times out
        // only when both tries do
        const proxy = await delayingProxy(ref.url, 2, 4500);
        try {
          const dir = path.join(tmp, name);
          const res = await runCli(
            [
              'run',
              ...['--base-url', proxy.baseUrl, '--requirements', 'REC-001', '--timeout', '3000'],
              ...['--report-dir', dir, ...extra],
            ],
            ONE_WORKER,
          );
          const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunResults;
          return { ...res, results };
        } finally {
          await proxy.stop();
        }
      };
      // three runs side by side, each through a proxy of its own: they wait on time-outs, not on the CPU
      const [r, strict, none] = await Promise.all([
        run('flaky', []),
        run('flaky-strict', ['--fail-on-flaky']),
        run('no-retries', ['--retries', '0']),
      ]);
      expect(r.code, r.stdout).toBe(0);
      expect(r.results.retries?.flaky.length).toBe(1);
      const id = r.results.retries!.flaky[0]!;
      const t = r.results.requirements.flatMap((q) => q.tests).find((x) => x.id === id)!;
      expect(t.result).toBe('passed');
      expect(t.flaky).toBe(true);
      expect(t.attempts?.map((a) => a.result)).toEqual(['error', 'passed']);
      expect(t.attempts?.[0]?.message).toMatch(/no answer within 3000 ms/);
      expect(r.stdout).toContain(`flaky: ${id}`);
      expect(validate(r.results)).toEqual([]);

      expect(strict.code).toBe(1);
      expect(strict.results.retries?.flaky.length).toBe(1);

      // a run whose only non-pass is a time-out exits 3 (the target), never 1, with the advice
      expect(none.code, none.stdout).toBe(3);
      expect(none.results.retries).toBeUndefined();
      expect(none.stdout).toMatch(/Slow target: 1 of the 1 tests/);
      expect(none.results.slowestAnswers?.[0]?.ms).toBeGreaterThanOrEqual(6000);
    } finally {
      await ref.stop();
    }
  }, 240_000);
});
