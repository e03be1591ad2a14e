// How much of the fault catalogue recorded traffic catches passively (issue 23): for every fault
// (conformance/faults/catalogue) the suite's tests of the fault's requirements run through the
// fault proxy with `recordHar` (a runConformance call); verifyTrafficFiles (what `verify-traffic`
// runs) then judges that HAR alone. A fault "changed an
// exchange" when its rewrite answered differently from the upstream (or sent it a different
// request). Every control (conformance/faults/controls) is recorded the same way and its HAR must
// verify with 0 failed. Writes reports/traffic.md (the figures the vendor guide quotes) and
// reports/traffic.json.
// --keep <dir> keeps each job's recording (traffic.har, config.yaml, outcome.json); --hars <dir>
// judges such kept recordings again with the verifier of this checkout, recording nothing (the
// same recordings before and after a change of the rules).
//   npx tsx scripts/traffic-faults.ts [--only a,b] [--concurrency 2] [--out reports] [--keep dir | --hars dir]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { stringify as stringifyYaml } from 'yaml';
import { FAULTS } from '../conformance/faults/catalogue/index.js';
import { CONTROLS } from '../conformance/faults/controls/index.js';
import type { Control, Fault } from '../conformance/faults/fault.js';
import { startFaultProxy } from '../conformance/faults/proxy.js';
import { runConformance } from '../conformance/src/run/run-conformance.js';
import { writeReports } from '../conformance/src/report/write-reports.js';
import { verifyTrafficFiles } from '../conformance/src/traffic/verify-files.js';
import { startReferenceProcess } from '../conformance/src/targets/reference-process.js';
import { notJudgeableReason } from '../conformance/src/traffic/report.js';
import { SCHEMA_RULE } from '../conformance/src/traffic/rules-schema.js';
import { SEQUENCE_RULES } from '../conformance/src/traffic/sequence-rules.js';
import { EXCHANGE_RULES } from '../conformance/src/traffic/verify.js';
import { ROOT } from '../spec/paths.js';

const o = new Command()
  .option('--only <names>', 'comma list of faults and controls')
  .option('--concurrency <n>', 'jobs at once', '2')
  .option('--out <dir>', 'where traffic.md and traffic.json go', 'reports')
  .option('--keep <dir>', "keep each job's recording (traffic.har, config.yaml, outcome.json) under <dir>/<name>")
  .option('--hars <dir>', 'judge the recordings kept with --keep again, recording nothing')
  .option(
    '--from <traffic.json>',
    'write traffic.md (and the README figures) again from an earlier traffic.json, running nothing',
  )
  .parse(process.argv)
  .opts<{ only?: string; concurrency: string; out: string; from?: string; keep?: string; hars?: string }>();
const only = o.only?.split(',').map((s) => s.trim());
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'traffic-faults-'));

interface Outcome {
  name: string;
  kind: 'fault' | 'control' | 'reference';
  /** `N of M testable core requirements observed`, from the verification. */
  observed?: string;
  requirements: string[];
  changed: number;
  suiteExit: number | null;
  trafficExit: number | null;
  /** Requirements verify-traffic failed. */
  trafficFailed: string[];
  exchanges: number;
}

/** A fault counting the exchanges its rewrite changed. */
function counting(f: Pick<Fault, 'rewrite'> & Omit<Fault, 'rewrite'>, counter: { n: number }): Fault {
  return {
    ...f,
    async rewrite(req, ctx, next) {
      let sent: { method: string; path: string; query: string; body: string } | undefined;
      let upstream: { status: number; headers: Record<string, string>; body: Buffer } | undefined;
      const res = await f.rewrite(req, ctx, async (r) => {
        sent = { method: r.method, path: r.path, query: r.query.toString(), body: r.body.toString('utf8') };
        const u = await next(r);
        upstream = u;
        return u;
      });
      const same =
        upstream &&
        sent &&
        sent.method === req.method &&
        sent.path === req.path &&
        sent.query === req.query.toString() &&
        sent.body === req.body.toString('utf8') &&
        res.status === upstream.status &&
        JSON.stringify(res.headers) === JSON.stringify(upstream.headers) &&
        res.body.equals(upstream.body);
      if (!same) counter.n++;
      return res;
    },
  };
}

/** The plain reference, the whole core suite: how much of core its recorded traffic shows. */
const REFERENCE: Control = {
  name: 'reference',
  area: 'GEN',
  description: 'no fault: the whole core suite',
  allowedBy: '-',
};

/** A kept recording judged again: the outcome recorded then, the verdict of this checkout's verifier. */
function rejudge(kind: 'fault' | 'control' | 'reference', f: Fault | Control, from: string): Outcome {
  const dir = path.join(from, f.name);
  const then = JSON.parse(fs.readFileSync(path.join(dir, 'outcome.json'), 'utf8')) as Outcome;
  const configFile = fs.existsSync(path.join(dir, 'config.yaml')) ? path.join(dir, 'config.yaml') : undefined;
  const v = verifyTrafficFiles([path.join(dir, 'traffic.har')], configFile ? { config: configFile } : {});
  return {
    ...then,
    kind,
    trafficExit: v.results.exitCode,
    trafficFailed: v.results.requirements.filter((q) => q.result === 'failed').map((q) => q.id),
    exchanges: v.exchanges,
    observed: `${v.observed.observed} of ${v.observed.testable} testable core requirements observed`,
  };
}

async function job(kind: 'fault' | 'control' | 'reference', f: Fault | Control): Promise<Outcome> {
  if (o.hars) return rejudge(kind, f, o.hars);
  const out = await record(kind, f);
  if (o.keep) {
    const keep = path.join(o.keep, f.name);
    fs.mkdirSync(keep, { recursive: true });
    for (const n of ['traffic.har', 'config.yaml'])
      if (fs.existsSync(path.join(work, f.name, n))) fs.copyFileSync(path.join(work, f.name, n), path.join(keep, n));
    fs.writeFileSync(path.join(keep, 'outcome.json'), `${JSON.stringify(out, null, 2)}\n`);
  }
  return out;
}

async function record(kind: 'fault' | 'control' | 'reference', f: Fault | Control): Promise<Outcome> {
  const dir = path.join(work, f.name);
  fs.mkdirSync(dir, { recursive: true });
  const ref = await startReferenceProcess({
    providerStates: true,
    args: ['--log-level', 'warn', ...((f as Control).serverFlags ?? [])],
  });
  const counter = { n: 0 };
  const rewrite = f.rewrite ?? ((req, _ctx, next) => next(req));
  const proxy = await startFaultProxy({
    upstream: ref.url,
    fault: counting(
      {
        name: f.name,
        area: f.area,
        description: f.description,
        requirements: (f as Fault).requirements ?? [],
        rewrite: rewrite as Fault['rewrite'],
      },
      counter,
    ),
    log: () => undefined,
  });
  const config = (f as Control).config;
  const configFile = config ? path.join(dir, 'config.yaml') : undefined;
  if (configFile) fs.writeFileSync(configFile, stringifyYaml(config));
  const select = kind === 'fault' ? ((f as Fault).select ?? (f as Fault).requirements) : (f as Control).select;
  const har = path.join(dir, 'traffic.har');
  try {
    const runLog = fs.openSync(path.join(dir, 'run.log'), 'w');
    const write = (text: string) => fs.writeSync(runLog, text.endsWith('\n') ? text : `${text}\n`);
    let suiteExit: number | null;
    try {
      const run = await runConformance(
        {
          baseUrl: proxy.url,
          providerStatesUrl: `${proxy.url}/_provider-states`,
          profile: 'core',
          reportDir: path.join(dir, 'run'),
          timeout: '30000',
          concurrency: '8',
          skipShrink: true,
          recordHar: har,
          ...(select?.length ? { requirements: select.join(',') } : {}),
          ...(configFile ? { config: configFile } : {}),
        },
        { log: write, out: write, writeReports: true },
      );
      suiteExit = run.exitCode;
    } catch (e) {
      write(`run failed: ${(e as Error).stack ?? e}`);
      suiteExit = null;
    } finally {
      fs.closeSync(runLog);
    }
    const v = verifyTrafficFiles([har], configFile ? { config: configFile } : {});
    writeReports(v.results, path.join(dir, 'verify'));
    return {
      name: f.name,
      kind,
      requirements: (f as Fault).requirements ?? [],
      changed: counter.n,
      suiteExit,
      trafficExit: v.results.exitCode,
      trafficFailed: v.results.requirements.filter((q) => q.result === 'failed').map((q) => q.id),
      exchanges: v.exchanges,
      observed: `${v.observed.observed} of ${v.observed.testable} testable core requirements observed`,
    };
  } finally {
    await proxy.close();
    await ref.stop();
  }
}

const jobs: Array<['fault' | 'control' | 'reference', Fault | Control]> = [
  ['reference', REFERENCE] as ['reference', Control],
  ...FAULTS.map((f) => ['fault', f] as ['fault', Fault]),
  ...CONTROLS.map((c) => ['control', c] as ['control', Control]),
].filter(([, f]) => !only || only.includes(f.name));
const BROWSER_HEADING = '## A Chromium session, against the reference and a sample of faults';

/** The browser sample (scripts/traffic-browser-faults.ts wrote <out>/traffic-browser.json), when there is one. */
function browserSection(): string[] {
  const file = path.join(o.out, 'traffic-browser.json');
  if (!fs.existsSync(file)) return [];
  const b = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    date: string;
    outcomes: Array<{ name: string; requirements: string[]; entries: number; exitCode: number; failed: string[] }>;
  };
  const faults = b.outcomes.filter((x) => x.name !== 'reference');
  const caught = faults.filter((x) => x.exitCode === 1 && x.failed.some((id) => x.requirements.includes(id)));
  return [
    BROWSER_HEADING,
    '',
    `Generated by \`npx tsx scripts/traffic-browser-faults.ts\` on ${b.date}: a page in Debian's Chromium (Playwright's recordHar, bodies embedded) calls the interface through the fault proxy in front of the reference (\`--seed demo\`), once without a fault and once with each fault of the sample; \`verify-traffic\` judged each HAR alone. Caught on a requirement of the fault: **${caught.length} of ${faults.length}**.`,
    '',
    '| Fault | Requirements | Entries | verify-traffic |',
    '|---|---|---|---|',
    ...b.outcomes.map(
      (x) =>
        `| ${x.name} | ${x.requirements.join(', ') || '-'} | ${x.entries} | exit ${x.exitCode}${x.failed.length ? `: ${x.failed.join(', ')}` : ''} |`,
    ),
    '',
  ];
}

const outcomes: Outcome[] = o.from
  ? (JSON.parse(fs.readFileSync(o.from, 'utf8')) as { outcomes: Outcome[] }).outcomes
  : [];
let next = o.from ? jobs.length : 0;
await Promise.all(
  Array.from({ length: Number(o.concurrency) }, async () => {
    while (next < jobs.length) {
      const [kind, f] = jobs[next++];
      const out = await job(kind, f).catch((e: Error) => {
        process.stderr.write(`${f.name}: ${e.message}\n`);
        return undefined;
      });
      if (out) {
        outcomes.push(out);
        process.stdout.write(
          `${kind} ${f.name}: changed ${out.changed}, suite exit ${out.suiteExit}, traffic exit ${out.trafficExit} ${out.trafficFailed.join(',')}\n`,
        );
      }
    }
  }),
);
outcomes.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
const faults = outcomes.filter((x) => x.kind === 'fault');
const reference = outcomes.find((x) => x.kind === 'reference');
const controls = outcomes.filter((x) => x.kind === 'control');
const changed = faults.filter((x) => x.changed > 0);
const caught = changed.filter((x) => x.trafficExit === 1);
const missed = changed.filter((x) => x.trafficExit !== 1);
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');
const missedReqs = [...new Set(missed.flatMap((x) => x.requirements))].sort();
const md = [
  '# Recorded traffic against the fault catalogue',
  '',
  `Generated by \`npx tsx scripts/traffic-faults.ts${o.hars ? ' --hars <dir>' : ''}\` on ${new Date().toISOString().slice(0, 10)}: for each fault, the suite's tests of the fault's requirements ran through the fault proxy with \`--record-har\`, and \`verify-traffic\` judged that HAR alone (no state endpoint, no request of its own; the provider-state calls the recording holds are read as evidence of the data the implementation holds).${
    o.hars
      ? " The recordings are those kept by an earlier run with `--keep` (the suite and the fault catalogue of that run), judged again by this checkout's verifier; no suite run was recorded for this report."
      : ''
  }`,
  '',
  ...(reference
    ? [
        `- The whole core suite against the reference, recorded: ${reference.exchanges} exchanges; verify-traffic exit ${reference.trafficExit}, ${reference.trafficFailed.length} failed; ${reference.observed}.`,
      ]
    : []),
  `- Faults: ${faults.length}; a fault changed at least one recorded exchange in ${changed.length}.`,
  `- Caught passively (the HAR fails verify-traffic): **${caught.length} of ${changed.length} (${pct(caught.length, changed.length)})** of the faults that changed an exchange; the suite itself caught ${faults.filter((x) => x.suiteExit === 1).length} of ${faults.length}.`,
  `- Controls: ${controls.length}; their HARs failed verify-traffic in ${controls.filter((x) => x.trafficExit !== 0).length}${
    controls.filter((x) => x.trafficExit !== 0).length
      ? ` (${controls
          .filter((x) => x.trafficExit !== 0)
          .map((x) => `${x.name}: ${x.trafficFailed.join(', ')}`)
          .join('; ')})`
      : ''
  }.`,
  '',
  ...browserSection(),
  '## Requirements of the faults traffic alone did not catch, and why',
  '',
  'A requirement of a missed fault either has no traffic rule (the reason says what a recording lacks), or has one whose conditions the recorded exchanges of that fault did not meet or whose change the rule cannot see (named with the rule).',
  '',
  '| Requirement | Missed faults | Why |',
  '|---|---|---|',
  ...missedReqs.map((id) => {
    const rules = [...EXCHANGE_RULES, SCHEMA_RULE, ...SEQUENCE_RULES]
      .filter((r) => (r.requirements as readonly string[]).includes(id))
      .map((r) => `\`${r.name}\``);
    const why = rules.length
      ? `judged by ${rules.join(', ')}, but these faults change what only the stored data, another call's intent or a condition the rule leaves unjudged would show`
      : notJudgeableReason(id);
    return `| ${id} | ${missed
      .filter((x) => x.requirements.includes(id))
      .map((x) => x.name)
      .join(', ')} | ${why} |`;
  }),
  '',
  '## Per fault and control',
  '',
  '| Kind | Name | Requirements | Exchanges | Changed by the fault | Suite | verify-traffic |',
  '|---|---|---|---|---|---|---|',
  ...outcomes.map(
    (x) =>
      `| ${x.kind} | ${x.name} | ${x.requirements.join(', ')} | ${x.exchanges} | ${x.changed} | exit ${x.suiteExit} | exit ${x.trafficExit}${x.trafficFailed.length ? `: ${x.trafficFailed.join(', ')}` : ''} |`,
  ),
  '',
];
fs.mkdirSync(o.out, { recursive: true });
fs.writeFileSync(path.join(o.out, 'traffic.md'), md.join('\n'));
fs.writeFileSync(
  path.join(o.out, 'traffic.json'),
  `${JSON.stringify({ faults: faults.length, changed: changed.length, caught: caught.length, controls: controls.length, controlsFailed: controls.filter((x) => x.trafficExit !== 0).length, outcomes }, null, 2)}\n`,
);
// the figures of the vendor guide (conformance/README.md), between its markers
const readme = path.join(ROOT, 'conformance/README.md');
const figures = md.slice(
  md.indexOf('') + 1,
  md.indexOf(BROWSER_HEADING) >= 0
    ? md.indexOf(BROWSER_HEADING)
    : md.indexOf('## Requirements of the faults traffic alone did not catch, and why'),
);
const text = fs.readFileSync(readme, 'utf8');
const start = '<!-- traffic-figures:start (generated by scripts/traffic-faults.ts) -->';
const end = '<!-- traffic-figures:end -->';
if (!only && text.includes(start) && text.includes(end))
  fs.writeFileSync(
    readme,
    `${text.slice(0, text.indexOf(start) + start.length)}\n${figures.join('\n').trim()}\n${text.slice(text.indexOf(end))}`,
  );
fs.rmSync(work, { recursive: true, force: true });
if (o.from) process.stdout.write(`traffic: written again from ${o.from}\n`);
process.stdout.write(
  `traffic: ${caught.length} of ${changed.length} changing faults caught passively; controls failed ${controls.filter((x) => x.trafficExit !== 0).length} of ${controls.length}\n`,
);
// The suite's runs in this process (vitest, in-process) leave process.exitCode at 1 once a fault
// made tests fail; the script's outcome is the reports it wrote (a failure above throws first).
process.exitCode = 0;
