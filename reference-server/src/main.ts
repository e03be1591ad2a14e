// The reference server's command line (architecture section 6): the `reference-server` command.
import { isProcessEntry } from './entry.js';
import { parseServerArgs } from './options.js';
import { startServer, StartError, type RunningServer } from './server.js';

/** Start the server with command-line arguments (`argv` as in process.argv); stops on SIGTERM and SIGINT. */
export async function main(argv: string[] = process.argv): Promise<RunningServer | undefined> {
  let running: RunningServer;
  try {
    const o = parseServerArgs(argv);
    if (!o) {
      process.exitCode = 0;
      return undefined;
    }
    running = await startServer(o);
  } catch (err) {
    if (!(err instanceof StartError)) throw err;
    if (err.exitCode === 2 && err.message) process.stderr.write(err.message + '\n(run with --help for usage)\n');
    process.exitCode = err.exitCode;
    return undefined;
  }
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      running.log({ level: 'info', msg: `${sig}: shutting down` });
      void running.close().then(() => {
        running.log({ level: 'info', msg: 'stopped' });
        process.exit(0);
      });
    });
  }
  return running;
}

if (isProcessEntry(import.meta.url)) void main(process.argv);
