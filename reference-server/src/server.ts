// One reference server: its database opened, its app listening, its log lines written where the
// caller says. Used by the command (main.ts) and by the host of many servers (host.ts).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { seedDemo } from './seed.js';
import { startIdsAt } from './settings.js';
import type { StateMode } from './provider-states/protocol.js';
import { specVersion } from './areas/health.js';
import { clientErrorHandler, guardRequests, MAX_HEADER_BYTES } from './limits.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** node's own request limits, the defaults when no flag asks for others (http.createServer: headersTimeout,
 * requestTimeout). */
export const NODE_HEADERS_TIMEOUT_MS = 60_000;
export const NODE_REQUEST_TIMEOUT_MS = 300_000;

export interface RunningServer {
  url: string;
  close(): Promise<void>;
  /** writes a line of the server's log (at its level) */
  log(entry: Record<string, unknown>): void;
}

/** What the command line asks for, checked. */
export interface ServerOptions {
  port: number;
  host: string;
  /** absolute path, or ':memory:' */
  dbPath: string;
  seed?: 'demo';
  providerStates: boolean;
  providerStatesMode: StateMode;
  singleIdSequence: boolean;
  exclusiveDb: boolean;
  enhancedSessionSecurity: 'on' | 'off';
  idStart?: number;
  keepAliveTimeoutMs?: number;
  /** how long a request's head may take before the answer is 408 (node's headersTimeout; default 60 s) */
  headersTimeoutMs?: number;
  /** how long a whole request may take before the answer is 408 (node's requestTimeout; default 300 s) */
  requestTimeoutMs?: number;
  logLevel: LogLevel;
}

/** Where a server's lines go (default: this process's stdout, and stderr for warnings and errors). */
export interface ServerOutput {
  stdout(line: string): void;
  stderr(line: string): void;
}

const PROCESS_OUTPUT: ServerOutput = {
  stdout: (line) => process.stdout.write(line),
  stderr: (line) => process.stderr.write(line),
};

/** A server that could not start: the exit code of the command (2 usage, 3 database or port). */
export class StartError extends Error {
  constructor(
    message: string,
    readonly exitCode: 2 | 3,
  ) {
    super(message);
  }
}

function makeLogger(level: LogLevel, output: ServerOutput) {
  const rank = (l: string) => LOG_LEVELS.indexOf(l as LogLevel);
  return (entry: Record<string, unknown>) => {
    const l = String(entry.level ?? 'info');
    if (rank(l) < rank(level) || level === 'silent') return;
    const line = JSON.stringify({ time: new Date().toISOString(), level: l, ...entry });
    (l === 'error' || l === 'warn' ? output.stderr : output.stdout)(line + '\n');
  };
}

/**
 * node's request timeouts (defaults: node's own, 60 s for the head and 300 s for the request) and
 * how often node looks for requests over them. node's own check runs every 30 s, so a 408 came 60
 * to 90 s after a slow head began (the outside probe of issue 35); a check every second, or every
 * quarter of a shorter timeout, answers a slow request at most that late.
 */
export function requestTimeouts(
  o: Pick<ServerOptions, 'headersTimeoutMs' | 'requestTimeoutMs'>,
): Record<string, number> {
  const headersTimeout = o.headersTimeoutMs ?? NODE_HEADERS_TIMEOUT_MS;
  const requestTimeout = o.requestTimeoutMs ?? NODE_REQUEST_TIMEOUT_MS;
  return {
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.min(
      1_000,
      Math.max(10, Math.floor(Math.min(headersTimeout, requestTimeout) / 4)),
    ),
  };
}

/**
 * One server: its database opened, listening, its listening line written. No process-wide
 * handlers: main() adds the signals; the host (host.ts) runs many servers in one process.
 * Throws a StartError (3) when the database cannot be opened or the port not bound.
 */
export async function startServer(o: ServerOptions, output: ServerOutput = PROCESS_OUTPUT): Promise<RunningServer> {
  const log = makeLogger(o.logLevel, output);
  const { dbPath } = o;
  let created;
  try {
    created = createApp({
      dbPath,
      exclusiveDb: o.exclusiveDb,
      providerStates: o.providerStates,
      providerStatesMode: o.providerStatesMode,
      singleIdSequence: o.singleIdSequence,
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
    throw new StartError(`cannot open the database ${dbPath}: ${String(err)}`, 3);
  }
  if (o.idStart !== undefined) startIdsAt(created.deps.db, o.idStart);
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
      {
        fetch: created.app.fetch,
        port: o.port,
        hostname: o.host,
        // requireHostHeader: guardRequests answers a missing Host with a problem, not node's bare 400
        serverOptions: { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false, ...requestTimeouts(o) },
      },
      () => resolveServer(s),
    );
    guardRequests(s as Server);
    // node keeps the first 2,000 header lines and drops the rest without a word (a Token on line
    // 3,000 went unread: the outside probe of issue 35); the 60 KB head limit bounds them instead
    (s as Server).maxHeadersCount = 0;
    // Requests node's parser refuses get a problem+json answer (414 for a request line over the limit).
    s.on('clientError', clientErrorHandler());
    s.once('error', reject);
  }).catch((err: unknown) => {
    log({ level: 'error', msg: 'cannot listen', host: o.host, port: o.port, error: String(err) });
    created.close();
    throw new StartError(`cannot listen on ${o.host}:${o.port}: ${String(err)}`, 3);
  });
  if (o.keepAliveTimeoutMs !== undefined)
    (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = o.keepAliveTimeoutMs;
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  // The listening line is printed whatever the log level (scripts and tests read the URL from it).
  output.stdout(
    JSON.stringify({
      time: new Date().toISOString(),
      level: 'info',
      msg: `listening on ${url}`,
      url,
      db: dbPath,
      providerStates: o.providerStates,
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
  return { url, close, log };
}
