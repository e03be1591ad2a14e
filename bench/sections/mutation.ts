// Section "mutation": the mutation run (every fault and every control), timed.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../spec/paths.js';
import { benchMutation, type MutationBench } from '../lib/mutation.js';
import type { BenchContext } from './context.js';

export async function mutationSection(ctx: BenchContext): Promise<MutationBench> {
  const { cfg, log } = ctx;
  log(
    `\n## Mutation run (${cfg.mutationOnly ? `subset: ${cfg.mutationOnly.join(', ')}` : 'every fault and every control'}, each on its own reference server)`,
  );
  // kept after the run (reports/tmp is git-ignored): the per-run reports say why a fault was missed
  const reportDir = join(ROOT, 'reports', 'tmp', cfg.quick ? 'bench-quick-mutation' : 'bench-mutation');
  rmSync(reportDir, { recursive: true, force: true });
  const r = await benchMutation({ reportDir, only: cfg.mutationOnly });
  log(
    `wall ${(r.wallMs / 1000).toFixed(1)} s (exit ${r.exitCode}): ${r.faults.caught}/${r.faults.total} faults caught, ` +
      `${r.controls.falseAlarms}/${r.controls.total} false alarms; baseline run ${((r.baselineMs ?? NaN) / 1000).toFixed(1)} s; ` +
      `${r.concurrency ?? '?'} runs at a time; machine CPU ${((r.machineCpuMs ?? NaN) / 1000).toFixed(0)} s; load average ${r.loadavg.toFixed(1)}`,
  );
  if (r.exitCode !== 0) log(r.outputTail);
  return r;
}

/** The section's part of README.md. */
export function mutationMarkdown(m: Omit<MutationBench, 'outputTail'>): string[] {
  const L: string[] = [];
  L.push('## Mutation run', '');
  L.push(
    `\`npx tsx conformance/faults/run-faults.ts\`${m.only ? ` \`--only ${m.only.join(',')}\`` : ''} (reports kept in \`reports/tmp/${m.only ? 'bench-quick-mutation' : 'bench-mutation'}/\`): every fault and every control on its own reference server and fault proxy, ${m.concurrency ?? '?'} runs at a time, after a baseline core run (${((m.baselineMs ?? NaN) / 1000).toFixed(1)} s). ` +
      `Wall ${(m.wallMs / 1000).toFixed(1)} s, exit ${m.exitCode}; ${m.faults.caught} of ${m.faults.total} faults caught, ${m.controls.falseAlarms} of ${m.controls.total} controls failed; ` +
      `the machine spent ${((m.machineCpuMs ?? NaN) / 1000).toFixed(0)} s of CPU meanwhile (load average ${m.loadavg.toFixed(1)} at the start).`,
    '',
  );
  return L;
}
