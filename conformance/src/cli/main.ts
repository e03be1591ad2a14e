// `conformance` CLI: the program and its commands, each registered from its own file in this
// folder (src/cli/ is the command line; the work is done in run/, report/, coverage/ and targets/).
import { Command, CommanderError } from 'commander';
import { HarnessError, UsageError } from '../model/errors.js';
import { EXIT } from '../report/results.js';
import { registerCompare } from './compare.js';
import { registerCoverage } from './coverage.js';
import { registerInit } from './init.js';
import { registerList } from './list.js';
import { log } from './log.js';
import { registerMerge } from './merge.js';
import { registerRecord } from './record.js';
import { registerReport } from './report.js';
import { registerRun } from './run.js';
import { registerStates } from './states.js';
import { registerVerifyTraffic } from './verify-traffic.js';
import { registerVerifyBundle } from './verify-bundle.js';
import { suiteVersion } from '../model/versions.js';

// the library entry (package export "./run", conformance/bin/run.mjs) shares this bundle
export { runConformance } from '../run/run-conformance.js';
export { compareConformance } from '../compare/index.js';

export function buildProgram(onExit: (code: number) => void): Command {
  const program = new Command();
  program
    .name('conformance')
    .description(
      'Conformance suite of the Records, Files, Links and Proposal Scheduling Service interface.\n' +
        'Exit codes: 0 every selected requirement passed, 1 a requirement failed (or is untested),\n' +
        '2 usage or configuration error, 3 the target or the harness failed.',
    )
    .addHelpText(
      'after',
      '\nFirst run in five steps (init, states, the state endpoint, config, run): the vendor guide,\n' +
        'conformance/README.md of the package, section "First run in five steps".',
    )
    .version(suiteVersion())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  registerRun(program, onExit);
  registerReport(program, onExit);
  registerList(program, onExit);
  registerCoverage(program, onExit);
  registerMerge(program, onExit);
  registerInit(program, onExit);
  registerStates(program, onExit);
  registerVerifyTraffic(program, onExit);
  registerVerifyBundle(program, onExit);
  registerRecord(program, onExit);
  registerCompare(program, onExit);

  return program;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  let code: number | undefined;
  const program = buildProgram((c) => (code = c));
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0) return EXIT.ok;
      if (e.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    if (e instanceof UsageError) {
      log(`conformance: error: ${e.message}`);
      return EXIT.usage;
    }
    if (e instanceof HarnessError) {
      log(`conformance: error: ${e.message}`);
      return EXIT.harness;
    }
    log(`conformance: internal error: ${(e as Error).stack ?? e}`);
    return EXIT.harness;
  }
  if (code === undefined) {
    // no command given
    program.outputHelp();
    return EXIT.usage;
  }
  return code;
}
