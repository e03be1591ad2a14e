// `conformance compare` on runs made by the real reporter code (fakeRun): history and flaky
// requirements over a directory of runs, shard runs merged into one column, runs of different
// selections compared on what both selected, quotes and levels that changed between suite
// versions, --since, and vendor text escaped in compare.html.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareConformance } from '../src/compare/index.js';
import type { Row } from '../src/compare/model.js';
import type { RunResults } from '../src/report/results.js';
import { fakeRun, XSS } from './helpers/fake-run.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-compare-model-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

let n = 0;
/** Writes a run as a report directory (results.json only) and returns its path. */
function save(r: RunResults, dir = path.join(tmp, `run-${++n}`)): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(r));
  return dir;
}

const at = (day: number) => new Date(Date.UTC(2026, 10, day, 6));
const rows = (c: { areas: { rows: Row[] }[] }) => c.areas.flatMap((a) => a.rows);
const row = (c: { areas: { rows: Row[] }[] }, id: string) => rows(c).find((r) => r.id === id)!;

describe('a directory of runs: history and flaky requirements', () => {
  it('orders runs by start, marks a result that changed under one implementation and suite version as flaky', () => {
    const hist = path.join(tmp, 'history');
    // saved out of order: the columns follow startedAt
    save(fakeRun({ startedAt: at(3) }), path.join(hist, 'c'));
    save(fakeRun({ startedAt: at(2), fail: ['REC-001'] }), path.join(hist, 'b'));
    save(fakeRun({ startedAt: at(1) }), path.join(hist, 'a'));
    // a new implementation version (an image digest) that fails DOM-004: a change, not flakiness
    const v2 = fakeRun({ startedAt: at(4), fail: ['DOM-004'] });
    v2.target.digest = 'sha256:0123456789abcdef0123';
    save(v2, path.join(hist, 'd', 'nested'));
    const out = compareConformance({ runs: [hist] });
    const c = out.comparison;
    expect(c.runs.map((r) => r.startedAt.slice(0, 10))).toEqual([
      '2026-11-01',
      '2026-11-02',
      '2026-11-03',
      '2026-11-04',
    ]);
    expect(c.runs[3].implementationVersion).toBe('0123456789ab');
    expect(c.diff).toBeUndefined();
    expect(out.exitCode).toBe(0);
    expect(row(c, 'REC-001').cells.map((x) => x?.result)).toEqual(['passed', 'failed', 'passed', 'passed']);
    expect(row(c, 'REC-001').flaky).toEqual([
      { implementation: 'Vendor API 2.3', suiteVersion: '0.1.0', results: ['passed', 'failed', 'passed'] },
    ]);
    expect(row(c, 'DOM-004').differs).toBe(true);
    expect(row(c, 'DOM-004').flaky).toBeUndefined();
    expect(
      rows(c)
        .filter((r) => r.flaky)
        .map((r) => r.id),
    ).toEqual(['REC-001']);
    expect(out.text).toMatch(/Flaky \(result changed without a new implementation or suite version\): REC-001$/m);
  });

  it('a directory of two runs is a history too: no diff, exit 0', () => {
    const two = path.join(tmp, 'two');
    save(fakeRun({ startedAt: at(2), fail: ['REC-001'] }), path.join(two, 'x'));
    save(fakeRun({ startedAt: at(1) }), path.join(two, 'y'));
    const out = compareConformance({ runs: [two] });
    expect(out.comparison.runs).toHaveLength(2);
    expect(out.comparison.diff).toBeUndefined();
    expect(out.exitCode).toBe(0);
    // the same two runs given one by one are diffed
    expect(compareConformance({ runs: [path.join(two, 'y'), path.join(two, 'x')] }).exitCode).toBe(1);
  });
});

describe('shards, selections, suite versions', () => {
  it('shard runs of one run are one column, equal to the unsharded run', () => {
    const whole = fakeRun({ fail: ['REC-001', 'DOM-004'] });
    const ids = whole.requirements.map((q) => q.id);
    const half = new Set(ids.slice(0, Math.floor(ids.length / 2)));
    const shard = (i: 1 | 2): RunResults => ({
      ...whole,
      selection: { ...whole.selection, shard: `${i}/2` },
      requirements: whole.requirements.map((q) => ({
        ...q,
        tests: half.has(q.id) === (i === 1) ? q.tests : [],
        result: half.has(q.id) === (i === 1) || q.result === 'not-testable' ? q.result : 'untested',
      })),
    });
    const c = compareConformance({ runs: [save(shard(2)), save(shard(1)), save(whole)] }).comparison;
    expect(c.runs).toHaveLength(2);
    expect(c.runs[0].shards).toHaveLength(2);
    expect(c.notes.join(' ')).toMatch(/column 1 is one run merged from 2 shard runs/);
    for (const q of whole.requirements) expect(row(c, q.id).cells.map((x) => x?.result)).toEqual([q.result, q.result]);
    expect(c.diff!.regressions).toEqual([]);
  });

  it('runs of different selections compare on what both selected, and say so', () => {
    const all = fakeRun({ fail: ['REC-001'] });
    const dom: RunResults = {
      ...fakeRun({ startedAt: at(1) }),
      selection: { requirements: ['DOM-'], readOnly: false },
    };
    dom.requirements = dom.requirements.filter((q) => q.id.startsWith('DOM-'));
    const out = compareConformance({ runs: [save(dom), save(all)] });
    const d = out.comparison.diff!;
    expect(d.scope.compared).toBe(dom.requirements.length);
    expect(d.scope.note).toMatch(/compared on the \d+ requirements both selected/);
    expect(d.scope.onlyHead).toContain('REC-001');
    expect(d.newlyFailing).toEqual([]);
    expect(out.exitCode).toBe(0);
    expect(row(out.comparison, 'REC-001').cells[0]).toBeNull();
    expect(out.comparison.notes.join(' ')).toMatch(/selected differently/);
    // nothing in common: no evidence, the gate does not pass
    const rec: RunResults = { ...all, selection: { requirements: ['REC-'], readOnly: false } };
    rec.requirements = all.requirements.filter((q) => q.id.startsWith('REC-'));
    const none = compareConformance({ runs: [save(dom), save(rec)] });
    expect(none.comparison.diff!.scope.compared).toBe(0);
    expect(none.exitCode).toBe(1);
    expect(none.text).toMatch(/Gate: FAIL \(exit 1\): the two runs selected no requirement in common/);
  });

  it('names the requirements whose quote or level changed between two suite versions', () => {
    const old = fakeRun({ startedAt: at(1) });
    const now = fakeRun({ startedAt: at(2) });
    now.suiteVersion = '0.3.0';
    const q = now.requirements.find((x) => x.id === 'REC-001')!;
    const wasQuote = q.quote;
    q.quote = 'A changed sentence of the spec.';
    const l = now.requirements.find((x) => x.id === 'DOM-004')!;
    l.level = 'implementation-defined';
    const out = compareConformance({ runs: [save(old), save(now)] });
    expect(out.comparison.diff!.changedRequirements).toEqual([
      expect.objectContaining({ id: 'DOM-004', level: { was: 'core', now: 'implementation-defined' } }),
      { id: 'REC-001', quote: { was: wasQuote, now: 'A changed sentence of the spec.' } },
    ]);
    expect(row(out.comparison, 'REC-001').changed).toEqual({ quote: [wasQuote, 'A changed sentence of the spec.'] });
    expect(out.exitCode).toBe(0);
  });

  it('--since diffs the run given against the last earlier run of the same implementation', () => {
    const hist = path.join(tmp, 'since');
    save(fakeRun({ startedAt: at(1) }), path.join(hist, '1'));
    save(fakeRun({ startedAt: at(2), fail: ['REC-001'] }), path.join(hist, '2'));
    const other = fakeRun({ startedAt: at(3), fail: ['DOM-004'] });
    other.targetLabel = 'Another API';
    save(other, path.join(hist, '3'));
    const fixed = save(fakeRun({ startedAt: at(4) }));
    const out = compareConformance({ runs: [fixed], since: hist });
    expect(out.comparison.runs.map((r) => r.startedAt.slice(0, 10))).toEqual([
      '2026-11-01',
      '2026-11-02',
      '2026-11-04',
    ]);
    expect(out.comparison.diff!.newlyPassing.map((e) => e.id)).toEqual(['REC-001']);
    expect(out.exitCode).toBe(0);
    const broken = save(fakeRun({ startedAt: at(5), fail: ['DOM-004'] }));
    const bad = compareConformance({ runs: [broken], since: hist });
    expect(bad.comparison.diff!.regressions.map((r) => r.id)).toEqual(['DOM-004']);
    expect(bad.exitCode).toBe(1);
    const lonely = fakeRun({ startedAt: at(6) });
    lonely.targetLabel = 'Nobody';
    expect(() => compareConformance({ runs: [save(lonely)], since: hist })).toThrow(/no earlier run of 'Nobody'/);
  });

  it('an image run without a label is its image name; the tag and digest are its version', () => {
    const hist = path.join(tmp, 'images');
    const img = (day: number, tag: string, fail: string[] = []) => {
      const r = fakeRun({ startedAt: at(day), fail });
      delete r.targetLabel;
      r.target = {
        ...r.target,
        kind: 'container',
        image: `ghcr.io/acme/api:${tag}`,
        digest: `sha256:${tag}0000000000000`,
      };
      return r;
    };
    save(img(1, '1.0'), path.join(hist, 'a'));
    const out = compareConformance({ runs: [save(img(2, '1.1', ['REC-001']))], since: hist });
    expect(out.comparison.runs.map((r) => [r.implementation, r.implementationVersion])).toEqual([
      ['ghcr.io/acme/api', '1.0 @1.0000000000'],
      ['ghcr.io/acme/api', '1.1 @1.1000000000'],
    ]);
    expect(out.comparison.diff!.newlyFailing.map((e) => e.id)).toEqual(['REC-001']);
    expect(row(out.comparison, 'REC-001').flaky).toBeUndefined();
  });

  it('precondition-failed is not judged, for the cause fixture, and --allow fixture accepts it', () => {
    const a = fakeRun({ startedAt: at(1) });
    const b = fakeRun({ startedAt: at(2), precondition: ['PROP-001'] });
    const out = compareConformance({ runs: [save(a), save(b)] });
    expect(out.comparison.diff!.newlyNotJudged).toEqual([
      expect.objectContaining({ id: 'PROP-001', was: 'passed', now: 'precondition-failed', cause: 'fixture' }),
    ]);
    expect(out.exitCode).toBe(1);
    expect(compareConformance({ runs: [save(a), save(b)], allow: 'fixture' }).exitCode).toBe(0);
    expect(() => compareConformance({ runs: [save(a), save(b)], allow: 'fixtures' })).toThrow(
      /unknown cause 'fixtures'/,
    );
  });

  it('compare.html escapes what the runs carry', () => {
    const r = fakeRun({ fail: ['REC-001'] });
    r.targetLabel = XSS;
    const out = compareConformance({ runs: [save(fakeRun()), save(r)], out: path.join(tmp, 'html') });
    const html = fs.readFileSync(out.files!.html, 'utf8');
    expect(html).not.toContain('<script>window.__xss');
    expect(html).not.toContain('<img src="http://evil.invalid');
    expect(html).toContain('&lt;script&gt;window.__xss=1&lt;/script&gt;');
  });

  it('a file that is no results.json is a usage error naming it', () => {
    const f = path.join(tmp, 'not-results.json');
    fs.writeFileSync(f, JSON.stringify({ schema: 'something-else/1' }));
    expect(() => compareConformance({ runs: [f] })).toThrow(/not-results\.json: not a conformance results\.json/);
    fs.writeFileSync(f, '{');
    expect(() => compareConformance({ runs: [f] })).toThrow(/is not JSON/);
    expect(() => compareConformance({ runs: [tmp + '/empty-nothing'] })).toThrow(/no such file or directory/);
  });
});

describe('the vendor guide, section 12', () => {
  it('its GitHub Actions example is YAML whose compare commands use options the command has', async () => {
    const { parse } = await import('yaml');
    const guide = fs.readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## 12. Comparing runs'));
    const block = /```yaml\n([\s\S]*?)```/.exec(section)![1];
    const wf = parse(block) as { jobs: Record<string, { steps: { run?: string }[] }> };
    const runs = Object.values(wf.jobs).flatMap((j) => j.steps.flatMap((s) => (s.run ? [s.run] : [])));
    const compares = runs.flatMap((r) => r.split('\n')).filter((l) => /conformance compare /.test(l));
    expect(compares.length).toBe(2);
    for (const l of compares)
      for (const opt of l.match(/ --[a-z-]+/g) ?? [])
        expect(['--since', '--report-dir', '--out', '--allow', '--yes', '--package']).toContain(opt.trim());
    expect(compares.some((l) => /--since history "\$RUN"/.test(l))).toBe(true);
  });
});
