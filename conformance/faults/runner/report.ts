// The mutation run's reports: reports/mutation.json (the figures and one entry per fault and
// control), reports/mutation.md (the same as tables) and the summary printed at the end.
import os from 'node:os';
import {
  figures,
  SPREAD_LIMIT,
  type BaselineOutcome,
  type ControlOutcome,
  type FaultOutcome,
  type FaultScope,
} from './judge.js';
import { describeExtraFailures, type ExtraFailureVerdict } from './extra-failures.js';

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

export function fmtMs(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

function pct(a: number, b: number): string {
  return b ? ` (${Math.round((100 * a) / b)}%)` : '';
}

function failedOver(scope: FaultScope): string {
  switch (scope) {
    case 'whole-suite':
      return 'every core requirement of the whole suite (--whole-suite); result `failed` only, `blocked` not counted';
    case 'whole-files':
      return "every core requirement of the suite files that hold the fault's selected requirements (--whole-files); result `failed` only, `blocked` not counted";
    case 'named-tests':
      return "every core requirement of the tests of the fault's selected requirements (--named-tests); result `failed` only, `blocked` not counted";
    default:
      return 'every core requirement of the whole suite, over the tests that call an operation the fault rewrites (the same figure as --whole-suite: a rewrite cannot change a test that never calls its operations); result `failed` only, `blocked` not counted';
  }
}

/** ` (name n; name n)`: the faults that fail more than SPREAD_LIMIT requirements, or nothing. */
function spreadList(spreading: Array<{ name: string; failed: number }>, quote = ''): string {
  return spreading.length ? ` (${spreading.map((x) => `${quote}${x.name}${quote} ${x.failed}`).join('; ')})` : '';
}

export function renderMarkdown(o: {
  baseline: BaselineOutcome;
  outcomes: FaultOutcome[];
  controls?: ControlOutcome[];
  wallMs: number;
  startedAt: string;
  concurrency?: number;
  /** set while the run is not finished (the report is rewritten after every run) */
  partial?: string;
  /** what the fault runs covered (default: their selected requirements) */
  scope?: FaultScope;
  /** the caught faults judged against known-extra-failures.yaml (absent: not judged) */
  extraFailures?: ExtraFailureVerdict;
}): string {
  const controls = o.controls ?? [];
  const f = figures(o.outcomes, controls);
  const lines = [
    '# Mutation run: faults and controls through the fault-injecting proxy',
    '',
    ...(o.partial ? [`**Partial report: ${o.partial}.**`, ''] : []),
    `Started ${o.startedAt}; wall time ${fmtMs(o.wallMs)}${o.concurrency ? ` (concurrency ${o.concurrency}, one reference server per fault and per control)` : ''}.`,
    '',
    `- Baseline (reference server, core profile, no proxy): ${
      o.baseline.skipped
        ? 'skipped'
        : o.baseline.ok
          ? 'passes every core requirement'
          : `**FAILS** (${Object.entries(o.baseline.notPassing)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')})`
    }`,
    `- Mutation score: **${f.caught}/${f.faults}** faults caught${pct(f.caught, f.faults)}`,
  ];
  if (controls.length)
    lines.push(
      `- False-alarm rate: **${f.controlsFailed}/${f.controls}** controls failed${pct(f.controlsFailed, f.controls)} (target 0)`,
    );
  if (f.medianFailedPerFault !== undefined)
    lines.push(
      `- Requirements failed per caught fault: median **${f.medianFailedPerFault}**, max ${f.maxFailedPerFault} (target median <= 1, max <= ${SPREAD_LIMIT}; counted over ${failedOver(o.scope ?? 'operations')})`,
      `- Caught faults that fail more than ${SPREAD_LIMIT} requirements: **${f.spreading.length}**${spreadList(f.spreading, '`')}`,
    );
  const overReaching = o.outcomes.filter((x) => x.caught && (x.unnamedFailures ?? []).length > 0);
  if (f.medianFailedPerFault !== undefined)
    lines.push(
      `- Caught faults that fail requirements they do not name: **${overReaching.length}**${
        overReaching.length
          ? ` (${overReaching.map((x) => `\`${x.name}\` +${x.unnamedFailures.join(', +')}`).join('; ')})`
          : ''
      }`,
    );
  if (o.extraFailures) for (const line of describeExtraFailures(o.extraFailures)) lines.push(`- ${line}`);
  const uncaught = o.outcomes.filter((x) => !x.caught);
  if (uncaught.length) lines.push(`- Uncaught: ${uncaught.map((x) => `\`${x.name}\``).join(', ')}`);
  const alarms = controls.filter((c) => c.status !== 'passed');
  if (alarms.length) lines.push(`- False alarms: ${alarms.map((c) => `\`${c.name}\``).join(', ')}`);
  if (o.outcomes.length) {
    lines.push(
      '',
      '## Faults',
      '',
      '| fault | area | requirements | caught | failing | failed in run | other results | notes |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const x of o.outcomes) {
      const other = Object.entries(x.results)
        .filter(([, r]) => r !== 'failed')
        .map(([id, r]) => `${id} ${r}`)
        .join(', ');
      lines.push(
        `| \`${x.name}\` | ${x.area} | ${x.requirements.join(', ')} | ${x.caught ? 'yes' : x.status === 'error' ? '**no** (run error)' : '**no**'} | ${x.failing.join(', ') || '-'} | ${(x.failedRequirements ?? []).length} | ${other || '-'} | ${x.notes.join('; ').replace(/\|/g, '\\|') || '-'} |`,
      );
    }
  }
  if (controls.length) {
    lines.push(
      '',
      '## Controls',
      '',
      'A control imitates a behaviour the specification allows but the reference does not show; the suite must pass it.',
      '',
      '| control | area | result | requirements judged | false alarms | notes |',
      '|---|---|---|---|---|---|',
    );
    for (const c of controls)
      lines.push(
        `| \`${c.name}\` | ${c.area} | ${c.status === 'passed' ? 'passed' : `**${c.status}**`} | ${c.judged} | ${
          Object.entries(c.falseAlarms)
            .map(([id, r]) => `${id} ${r}`)
            .join(', ') || '-'
        } | ${c.notes.join('; ').replace(/\|/g, '\\|') || '-'} |`,
      );
  }
  if (o.outcomes.length) {
    lines.push('', '## Fault descriptions', '');
    for (const x of o.outcomes)
      lines.push(`- \`${x.name}\` (${x.area}; ${x.requirements.join(', ')}): ${x.description}`);
  }
  if (controls.length) {
    lines.push('', '## Control descriptions', '');
    for (const c of controls) lines.push(`- \`${c.name}\` (${c.area}): ${c.description} Allowed by ${c.allowedBy}`);
  }
  return lines.join('\n') + '\n';
}

/** What reports/mutation.json holds (schema rflps-mutation/2). */
export function mutationJson(o: {
  startedAt: string;
  wallMs: number;
  complete: boolean;
  planned: { faults: number; controls: number };
  concurrency: number;
  scope: FaultScope;
  baseline: BaselineOutcome;
  outcomes: FaultOutcome[];
  controls: ControlOutcome[];
  /** the seed of every run (the baseline's: the operations each test called are known for it) */
  seed?: number;
  /** --seeds: each caught fault was run under this many seeds */
  seedsPerFault?: number;
  extraFailures?: ExtraFailureVerdict;
}) {
  const f = figures(o.outcomes, o.controls);
  return {
    schema: 'rflps-mutation/2',
    startedAt: o.startedAt,
    wallMs: o.wallMs,
    complete: o.complete,
    planned: o.planned,
    concurrency: o.concurrency,
    cpus: os.cpus().length,
    loadAverage: os.loadavg(),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    seedsPerFault: o.seedsPerFault ?? 1,
    baseline: o.baseline,
    score: { caught: f.caught, total: f.faults },
    falseAlarms: { failed: f.controlsFailed, total: f.controls },
    failedPerFault: {
      measured: true,
      scope: o.scope,
      median: f.medianFailedPerFault ?? null,
      max: f.maxFailedPerFault ?? null,
      over: failedOver(o.scope),
      limit: SPREAD_LIMIT,
      overLimit: f.spreading,
      unnamed: o.outcomes.filter((x) => x.caught && x.unnamedFailures.length > 0).map((x) => x.name),
      ...(o.extraFailures ? { overAllowance: o.extraFailures.over, allowanceToLower: o.extraFailures.lower } : {}),
    },
    uncaught: o.outcomes.filter((x) => !x.caught).map((x) => x.name),
    falseAlarmControls: o.controls.filter((c) => c.status !== 'passed').map((c) => c.name),
    faults: o.outcomes,
    controls: o.controls,
  };
}

/** The summary printed at the end of a run (stdout). */
export function summaryText(o: {
  baseline: BaselineOutcome;
  outcomes: FaultOutcome[];
  controls: ControlOutcome[];
  wallMs: number;
  extraFailures?: ExtraFailureVerdict;
}): string {
  const f = figures(o.outcomes, o.controls);
  const uncaught = o.outcomes.filter((x) => !x.caught);
  const alarms = o.controls.filter((c) => c.status !== 'passed');
  const lines: string[] = [''];
  if (o.outcomes.length)
    lines.push(
      table([
        ['fault', 'requirements', 'caught', 'failing', 'failed in run'],
        ...o.outcomes.map((x) => [
          x.name,
          x.requirements.join(','),
          x.caught ? 'yes' : x.status === 'error' ? 'NO (run error)' : 'NO',
          x.failing.join(',') || '-',
          String(x.failedRequirements.length),
        ]),
      ]),
      '',
    );
  lines.push(
    `baseline: ${o.baseline.skipped ? 'skipped' : o.baseline.ok ? 'reference passes every core requirement' : 'reference FAILS core'}`,
  );
  if (o.outcomes.length) lines.push(`mutation score: ${f.caught}/${f.faults}${pct(f.caught, f.faults)}`);
  if (f.medianFailedPerFault !== undefined)
    lines.push(
      `requirements failed per caught fault: median ${f.medianFailedPerFault}, max ${f.maxFailedPerFault}`,
      `caught faults failing more than ${SPREAD_LIMIT} requirements: ${f.spreading.length}${spreadList(f.spreading)}`,
    );
  if (o.controls.length)
    lines.push(`false alarms: ${f.controlsFailed}/${f.controls}${pct(f.controlsFailed, f.controls)}`);
  if (uncaught.length) {
    lines.push(`uncaught faults (${uncaught.length}):`);
    for (const x of uncaught)
      lines.push(
        `  - ${x.name} [${x.requirements.join(', ')}]: ${Object.entries(x.results)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}${x.notes.length ? `; ${x.notes.join('; ')}` : ''}`,
      );
  }
  if (alarms.length) {
    lines.push(`controls the suite fails (false alarms, ${alarms.length}):`);
    for (const c of alarms)
      lines.push(
        `  - ${c.name}: ${Object.entries(c.falseAlarms)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}${c.notes.length ? `; ${c.notes.join('; ')}` : ''} (see ${c.reportDir})`,
      );
  }
  const overReaching = o.outcomes.filter((x) => x.caught && x.unnamedFailures.length > 0);
  if (f.medianFailedPerFault !== undefined)
    lines.push(
      `caught faults that fail requirements they do not name: ${overReaching.length}${
        overReaching.length
          ? ` (${overReaching.map((x) => `${x.name} +${x.unnamedFailures.join(',+')}`).join('; ')})`
          : ''
      }`,
    );
  if (o.extraFailures) lines.push(...describeExtraFailures(o.extraFailures));
  lines.push(`wall time: ${fmtMs(o.wallMs)}`);
  return lines.join('\n') + '\n';
}
