// The reference server's command line (architecture section 6).
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Command, CommanderError, Option } from 'commander';
import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { seedDemo } from './seed.js';
import { startIdsAt } from './settings.js';
import { STATE_MODES, type StateMode } from './provider-states/protocol.js';
import { specVersion } from './areas/health.js';
import { clientErrorHandler, MAX_HEADER_BYTES } from './limits.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

function makeLogger(level: LogLevel) {
  const rank = (l: string) => LOG_LEVELS.indexOf(l as LogLevel);
  return (entry: Record<string, unknown>) => {
    const l = String(entry.level ?? 'info');
    if (rank(l) < rank(level) || level === 'silent') return;
    const line = JSON.stringify({ time: new Date().toISOString(), level: l, ...entry });
    (l === 'error' || l === 'warn' ? process.stderr : process.stdout).write(line + '\n');
  };
}

function usageError(msg: string): never {
  throw new CommanderError(2, 'reference-server.usage', `error: ${msg}`);
}

function parsePort(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535) usageError(`--port must be an integer from 0 to 65535, got '${v}'`);
  return Number(v);
}

export function buildProgram(): Command {
  return new Command('reference-server')
    .description('Reference server of the Records, Files, Links and Proposal Scheduling Service (HTTP/JSON).')
    .addOption(
      new Option('--port <port>', 'TCP port (0 = any free port)').default(process.env.PORT ?? '8080').env('PORT'),
    )
    .option('--host <host>', 'interface to listen on (the container uses 0.0.0.0)', '127.0.0.1')
    .option('--db <file>', "SQLite database file (WAL mode), or ':memory:'", './reference.db')
    .addOption(
      new Option(
        '--exclusive-db',
        "hold the database file exclusively while running (SQLite's exclusive locking mode: faster reads; no other process may open the file meanwhile)",
      ).env('REFERENCE_EXCLUSIVE_DB'),
    )
    .addOption(new Option('--seed <dataset>', 'load a dataset on start (idempotent)').choices(['demo']))
    .addOption(
      new Option('--provider-states', 'serve POST /_provider-states for the conformance suite').env(
        'REFERENCE_PROVIDER_STATES',
      ),
    )
    .addOption(
      new Option(
        '--provider-states-mode <mode>',
        'how /_provider-states answers: full (newest protocol), 1.0.0 (an endpoint of the first protocol), minimal (declares the newest, supports only what it requires)',
      )
        .choices([...STATE_MODES])
        .default('full')
        .env('REFERENCE_PROVIDER_STATES_MODE'),
    )
    .addOption(
      new Option(
        '--single-id-sequence',
        'record IDs of every domain from one sequence (no two records of different domains share an ID)',
      ).env('REFERENCE_SINGLE_ID_SEQUENCE'),
    )
    .addOption(
      new Option('--enhanced-session-security <onoff>', 'Service.EnableEnhancedSessionIDSecurity')
        .choices(['on', 'off'])
        .default('on'),
    )
    .option('--id-start <n>', 'number new records, links, users and codes from n on (default: 1)')
    .option(
      '--keep-alive-timeout <ms>',
      "how long an idle kept-alive connection stays open (default: 5000, Node's); a client that keeps its idle connections for less never sends on one the server is closing",
    )
    .addOption(new Option('--log-level <level>', 'log level').choices([...LOG_LEVELS]).default('info'))
    .allowExcessArguments(false)
    .showHelpAfterError('(run with --help for usage)');
}

/** Start the server with command-line arguments (`argv` as in process.argv). */
export async function main(argv: string[] = process.argv): Promise<RunningServer | undefined> {
  const program = buildProgram().exitOverride();
  try {
    program.parse(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) {
        process.exitCode = 0;
        return undefined;
      }
      if (err.code === 'reference-server.usage') process.stderr.write(err.message + '\n(run with --help for usage)\n');
      process.exitCode = 2;
      return undefined;
    }
    throw err;
  }
  const o = program.opts<{
    port: string;
    host: string;
    db: string;
    seed?: 'demo';
    providerStates?: boolean | string;
    providerStatesMode: StateMode;
    singleIdSequence?: boolean | string;
    exclusiveDb?: boolean | string;
    enhancedSessionSecurity: 'on' | 'off';
    idStart?: string;
    keepAliveTimeout?: string;
    logLevel: LogLevel;
  }>();
  if (o.idStart !== undefined && !/^[1-9]\d{0,14}$/.test(o.idStart)) {
    process.stderr.write(
      `error: --id-start must be a positive integer, got '${o.idStart}'\n(run with --help for usage)\n`,
    );
    process.exitCode = 2;
    return undefined;
  }
  if (o.keepAliveTimeout !== undefined && !/^[1-9]\d{0,6}$/.test(o.keepAliveTimeout)) {
    process.stderr.write(
      `error: --keep-alive-timeout must be a number of milliseconds from 1 to 9999999, got '${o.keepAliveTimeout}'\n(run with --help for usage)\n`,
    );
    process.exitCode = 2;
    return undefined;
  }
  let port: number;
  try {
    port = parsePort(String(o.port));
  } catch (err) {
    process.stderr.write((err as Error).message + '\n(run with --help for usage)\n');
    process.exitCode = 2;
    return undefined;
  }
  const providerStates =
    o.providerStates === true ||
    (typeof o.providerStates === 'string' && !['0', 'false', ''].includes(o.providerStates));
  const exclusiveDb =
    o.exclusiveDb === true || (typeof o.exclusiveDb === 'string' && !['0', 'false', ''].includes(o.exclusiveDb));
  const singleIdSequence =
    o.singleIdSequence === true ||
    (typeof o.singleIdSequence === 'string' && !['0', 'false', ''].includes(o.singleIdSequence));
  const log = makeLogger(o.logLevel);
  const dbPath = o.db === ':memory:' ? ':memory:' : resolve(o.db);

  let created;
  try {
    created = createApp({
      dbPath,
      exclusiveDb,
      providerStates,
      providerStatesMode: o.providerStatesMode,
      singleIdSequence,
      settings: { enhancedSessionIDSecurity: o.enhancedSessionSecurity === 'on' },
      log,
      // the per-request middleware only where its lines are written (debug, info)
      requestLog:
        o.logLevel === 'debug' || o.logLevel === 'info'
          ? (e) => log({ level: 'info', msg: 'request', ...e })
          : undefined,
    });
  } catch (err) {
    log({ level: 'error', msg: 'cannot open the database', db: dbPath, error: String(err) });
    process.exitCode = 3;
    return undefined;
  }
  if (o.idStart !== undefined) startIdsAt(created.deps.db, Number(o.idStart));
  if (o.seed === 'demo') {
    const r = seedDemo(created.deps);
    log({
      level: 'info',
      msg: r.seeded ? 'seeded demo data' : 'demo data already present',
      users: r.users.map((u) => `${u.account}/${u.user}/${u.password}`),
      todo: r.todo,
    });
  }

  const server = await new Promise<ReturnType<typeof serve>>((resolveServer, reject) => {
    const s = serve(
      { fetch: created.app.fetch, port, hostname: o.host, serverOptions: { maxHeaderSize: MAX_HEADER_BYTES } },
      () => resolveServer(s),
    );
    // Requests node's parser refuses get a problem+json answer (414 for a request line over the limit).
    s.on('clientError', clientErrorHandler());
    s.once('error', reject);
  }).catch((err: unknown) => {
    log({ level: 'error', msg: 'cannot listen', host: o.host, port, error: String(err) });
    created.close();
    process.exitCode = 3;
    return undefined;
  });
  if (!server) return undefined;
  if (o.keepAliveTimeout !== undefined)
    (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = Number(o.keepAliveTimeout);
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  // The listening line is printed whatever the log level (scripts and tests read the URL from it).
  process.stdout.write(
    JSON.stringify({
      time: new Date().toISOString(),
      level: 'info',
      msg: `listening on ${url}`,
      url,
      db: dbPath,
      providerStates,
      specVersion: specVersion(),
      enhancedSessionSecurity: o.enhancedSessionSecurity,
    }) + '\n',
  );

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((done) => {
      const timer = setTimeout(() => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }, 5000);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        created.close();
        done();
      });
      (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
    }));
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      log({ level: 'info', msg: `${sig}: shutting down` });
      void close().then(() => {
        log({ level: 'info', msg: 'stopped' });
        process.exit(0);
      });
    });
  }
  return { url, close };
}

function isEntry(): boolean {
  try {
    return !!process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isEntry()) void main(process.argv);
