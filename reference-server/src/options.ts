// The reference server's command line: its flags (`reference-server --help`) and the checked
// options they give (server.ts ServerOptions).
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { STATE_MODES, type StateMode } from './provider-states/protocol.js';
import {
  LOG_LEVELS,
  NODE_HEADERS_TIMEOUT_MS,
  NODE_REQUEST_TIMEOUT_MS,
  StartError,
  type LogLevel,
  type ServerOptions,
} from './server.js';

function parsePort(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535)
    throw new StartError(`error: --port must be an integer from 0 to 65535, got '${v}'`, 2);
  return Number(v);
}

function buildProgram(): Command {
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
    .option(
      '--headers-timeout <ms>',
      "how long a client may take to send a request's head (request line and headers) before it is answered 408 (default: 60000, Node's)",
    )
    .option(
      '--request-timeout <ms>',
      "how long a client may take to send a whole request (head and body) before it is answered 408 (default: 300000, Node's); at least --headers-timeout",
    )
    .addOption(new Option('--log-level <level>', 'log level').choices([...LOG_LEVELS]).default('info'))
    .allowExcessArguments(false)
    .showHelpAfterError('(run with --help for usage)');
}

/** A flag's number of milliseconds (1 to 9999999); undefined when the flag is not given. */
function milliseconds(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[1-9]\d{0,6}$/.test(v))
    throw new StartError(`error: ${flag} must be a number of milliseconds from 1 to 9999999, got '${v}'`, 2);
  return Number(v);
}

const onOff = (v: boolean | string | undefined) =>
  v === true || (typeof v === 'string' && !['0', 'false', ''].includes(v));

/**
 * The options of a command line (`argv` as in process.argv); undefined after --help. Throws a
 * StartError (2) on a usage error, with the message the command prints.
 */
export function parseServerArgs(argv: string[]): ServerOptions | undefined {
  const program = buildProgram().exitOverride();
  try {
    program.parse(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0)
        return undefined;
      // commander printed its own message; the caller prints only ours (a StartError with a message)
      throw new StartError('', 2);
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
    headersTimeout?: string;
    requestTimeout?: string;
    logLevel: LogLevel;
  }>();
  if (o.idStart !== undefined && !/^[1-9]\d{0,14}$/.test(o.idStart))
    throw new StartError(`error: --id-start must be a positive integer, got '${o.idStart}'`, 2);
  if (o.keepAliveTimeout !== undefined && !/^[1-9]\d{0,6}$/.test(o.keepAliveTimeout))
    throw new StartError(
      `error: --keep-alive-timeout must be a number of milliseconds from 1 to 9999999, got '${o.keepAliveTimeout}'`,
      2,
    );
  const headersTimeoutMs = milliseconds('--headers-timeout', o.headersTimeout);
  const requestTimeoutMs = milliseconds('--request-timeout', o.requestTimeout);
  // node refuses a head allowed longer than the whole request (it would never apply)
  if ((headersTimeoutMs ?? NODE_HEADERS_TIMEOUT_MS) > (requestTimeoutMs ?? NODE_REQUEST_TIMEOUT_MS))
    throw new StartError(
      `error: --headers-timeout (${headersTimeoutMs ?? NODE_HEADERS_TIMEOUT_MS} ms) must not be longer than --request-timeout (${requestTimeoutMs ?? NODE_REQUEST_TIMEOUT_MS} ms)`,
      2,
    );
  return {
    port: parsePort(String(o.port)),
    host: o.host,
    dbPath: o.db === ':memory:' ? ':memory:' : resolve(o.db),
    seed: o.seed,
    providerStates: onOff(o.providerStates),
    providerStatesMode: o.providerStatesMode,
    singleIdSequence: onOff(o.singleIdSequence),
    exclusiveDb: onOff(o.exclusiveDb),
    enhancedSessionSecurity: o.enhancedSessionSecurity,
    idStart: o.idStart === undefined ? undefined : Number(o.idStart),
    keepAliveTimeoutMs: o.keepAliveTimeout === undefined ? undefined : Number(o.keepAliveTimeout),
    headersTimeoutMs,
    requestTimeoutMs,
    logLevel: o.logLevel,
  };
}
