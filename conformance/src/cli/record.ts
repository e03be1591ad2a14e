// `conformance record --upstream URL --har FILE`: a recording proxy. Point a client (a vendor's
// integration tests, a client in staging) at it; it forwards everything unchanged to the upstream
// and writes the traffic as HAR for `conformance verify-traffic`. Stops on Ctrl-C (or SIGTERM).
import type { Command } from 'commander';
import { UsageError } from '../model/errors.js';
import { EXIT } from '../report/results.js';
import { bindingsFromConfig } from '../traffic/bindings-file.js';
import { startRecordingProxy } from '../traffic/recording-proxy.js';
import { log } from './log.js';
import { suiteVersion } from '../model/versions.js';

interface Opts {
  upstream?: string;
  har?: string;
  port: string;
  host: string;
  config?: string;
  keepCredentials?: boolean;
}

export function registerRecord(program: Command, onExit: (code: number) => void): void {
  program
    .command('record')
    .description(
      'run a recording proxy in front of a deployment: forwards every request unchanged and writes the traffic as HAR 1.2 for verify-traffic (credentials redacted); stops on Ctrl-C',
    )
    .requiredOption('--upstream <url>', 'base URL of the deployment (the service root that precedes /api)')
    .requiredOption('--har <file>', 'HAR file to write (rewritten after each exchange)')
    .option('--port <n>', 'port to listen on (0: a free one, printed)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--config <file>', 'config file whose `bindings:` name the token header (as for run)')
    .option('--keep-credentials', 'write tokens, cookies and Authorization unredacted (default: redacted)')
    .action(async (opts: Opts) => onExit(await recordCommand(opts)));
}

async function recordCommand(o: Opts): Promise<number> {
  try {
    let upstream: URL;
    try {
      upstream = new URL(o.upstream!);
    } catch {
      throw new UsageError(`--upstream ${o.upstream} is not a URL`);
    }
    const port = Number(o.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${o.port} is not a port`);
    const bindings = bindingsFromConfig(o.config);
    const proxy = await startRecordingProxy({
      upstream: upstream.toString(),
      har: o.har!,
      port,
      host: o.host,
      tokenHeader: bindings.tokenHeader,
      keepCredentials: o.keepCredentials,
      creatorVersion: suiteVersion(),
      log,
    });
    process.stdout.write(`conformance record: ${proxy.url} → ${upstream} ; writing ${o.har} (Ctrl-C to stop)\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await proxy.close();
    process.stdout.write(`conformance record: ${proxy.entries()} exchange(s) written to ${o.har}\n`);
    return EXIT.ok;
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof UsageError ? EXIT.usage : EXIT.harness;
  }
}
