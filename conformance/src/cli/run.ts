// `conformance run`: start a target, run the suite against it, write the reports; the exit code
// is the run's (see report/results.ts EXIT).
import { type Command, Option } from 'commander';
import { ENV_VARS, runOptionFlags, type ConformanceOptions } from '../model/options.js';
import { runConformance } from '../run/run-conformance.js';
import { UsageError } from '../model/errors.js';
import { EXIT } from '../report/results.js';
import { log } from './log.js';

/** Only the options the user gave (commander fills defaults otherwise). */
function given(cmd: Command): ConformanceOptions {
  const out: Record<string, unknown> = {};
  const opts = cmd.opts();
  for (const k of Object.keys(opts)) {
    const src = cmd.getOptionValueSource(k);
    if (src === 'cli' || src === 'env') out[k] = opts[k];
  }
  return out as ConformanceOptions;
}

function collectKV(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

export function registerRun(program: Command, onExit: (code: number) => void): void {
  const run = program
    .command('run')
    .description('start a target (default: the reference server image) and run the suite against it');
  // the flags, their help and their variables: the table of run options (model/options.ts)
  for (const f of runOptionFlags()) {
    const o = new Option(f.flags, f.description);
    if (f.choices) o.choices(f.choices);
    if (f.repeatable) o.argParser(collectKV);
    run.addOption(o);
  }
  run.action(async (_opts, cmd: Command) => {
    onExit(await runCommand(given(cmd)));
  });
  run.addHelpText(
    'after',
    `\nEnvironment: ${Object.values(ENV_VARS).join(', ')}; CI=true implies --require-container.`,
  );
}

async function runCommand(raw: ConformanceOptions): Promise<number> {
  const controller = new AbortController();
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = sig;
    log(`conformance: ${sig}: cancelling the run and stopping the target`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const results = await runConformance(
      raw,
      // the command line always writes its reports (default reports/latest)
      {
        env: process.env,
        log,
        out: (s) => process.stdout.write(s),
        signal: controller.signal,
        writeReports: true,
      },
    );
    return results.exitCode;
  } catch (e) {
    if (interrupted) return interrupted === 'SIGINT' ? 130 : 143;
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof UsageError ? EXIT.usage : EXIT.harness;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
