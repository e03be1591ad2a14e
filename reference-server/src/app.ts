// createApp: the Hono application of the reference server (architecture section 6).
import { Hono } from 'hono';
import { systemClock, type AppEnv, type Deps, type Settings } from './deps.js';
import { createDictionary, DOMAINS } from './dictionary.js';
import { openDatabase } from './db.js';
import { installAuthCache } from './auth.js';
import { makeErrorHandler, notFoundHandler, type ErrorLogger } from './errors.js';
import { bodySizeLimit } from './limits.js';
import { checkEveryRoute } from './request-checks.js';
import { loadSettings } from './settings.js';
import { MethodRouter } from './routing.js';
import { StrictPatternRouter } from './router.js';
import { registerProviderStates } from './provider-states/index.js';
import * as health from './areas/health.js';
import * as authRoutes from './areas/auth-routes.js';
import * as domains from './areas/domains.js';
import * as links from './areas/links.js';
import * as files from './areas/files.js';
import * as query from './areas/query.js';
import * as records from './areas/records.js';
import { migrate as migrateProposalTables } from './proposals/tables.js';
import * as binding from './areas/binding.js';
import { shareIdSequence } from './id-sequence.js';
import type { StateMode } from './provider-states/protocol.js';
import * as members from './areas/members.js';
import * as schedules from './areas/schedules.js';

export interface CreateAppOptions {
  /** SQLite file; ':memory:' (default) for a throwaway database. */
  dbPath?: string;
  /** Hold the database file exclusively (db.ts, OpenOptions.exclusive; `--exclusive-db`). */
  exclusiveDb?: boolean;
  /** Initial settings; they override what the database holds. */
  settings?: Partial<Settings>;
  /** Serve POST /_provider-states. */
  providerStates?: boolean;
  /** How the provider-state endpoint answers (protocol.ts; default: the newest protocol, in full). */
  providerStatesMode?: StateMode;
  /** Record IDs of every domain from one sequence (id-sequence.ts; `--single-id-sequence`). */
  singleIdSequence?: boolean;
  clock?: () => Date;
  /** Structured log sink (one object per entry); default: JSON lines on stderr for errors only. */
  log?: ErrorLogger;
  /** Start the asynchronous bind worker (default true). */
  bindWorker?: boolean;
  /** Called once per request with method, path, status and duration (structured request log). */
  requestLog?: (entry: { method: string; path: string; status: number; ms: number }) => void;
}

export interface CreatedApp {
  app: Hono<AppEnv>;
  deps: Deps;
  close(): void;
}

const defaultLog: ErrorLogger = (entry) => {
  if (entry.level === 'error')
    process.stderr.write(JSON.stringify({ time: new Date().toISOString(), ...entry }) + '\n');
};

export function createApp(opts: CreateAppOptions = {}): CreatedApp {
  const db = openDatabase(opts.dbPath ?? ':memory:', DOMAINS, { exclusive: opts.exclusiveDb });
  // token → user cache, invalidated by TEMP triggers on users/grants/tokens (auth.ts, AuthCache)
  installAuthCache(db);
  const dict = createDictionary(DOMAINS);
  const deps: Deps = {
    db,
    dict,
    settings: { enhancedSessionIDSecurity: true },
    clock: opts.clock ?? systemClock,
  };
  deps.settings = loadSettings(db, opts.settings);
  const log = opts.log ?? defaultLog;

  // Hono's PatternRouter, strict about a trailing slash (router.ts)
  const app = new Hono<AppEnv>({ router: new StrictPatternRouter() });
  app.onError(makeErrorHandler(log));
  if (opts.requestLog) {
    const requestLog = opts.requestLog;
    app.use('*', async (c, next) => {
      const started = performance.now();
      await next();
      requestLog({
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    });
  }
  // Every route and the 404 answer run behind the request checks (request-checks.ts): URL length,
  // body size, an undeclared method on a declared path (405 + Allow, before authentication; the
  // route table is read once everything is registered), a token for everything under /api.
  const methods = new MethodRouter();
  checkEveryRoute(app, { deps, methods, bodyLimit: bodySizeLimit() }, notFoundHandler);

  // Routes without a token.
  health.register(app, deps);
  authRoutes.register(app, deps);
  if (opts.singleIdSequence) shareIdSequence(db, DOMAINS);
  if (opts.providerStates)
    registerProviderStates(app, deps, {
      mode: opts.providerStatesMode ?? 'full',
      singleIdSequence: opts.singleIdSequence ?? false,
    });

  // Everything under /api needs a token (needsToken in request-checks.ts).
  domains.register(app, deps);
  links.register(app, deps);
  migrateProposalTables(deps.db); // the proposal area's tables that are not domains
  binding.register(app, deps);
  members.register(app, deps);
  schedules.register(app, deps);
  // Generic routes last: /api/{domain}/{id}/Files, /api/{domain}/Query, /api/{domain}/{id}.
  files.register(app, deps);
  query.register(app, deps);
  records.register(app, deps);
  methods.seal(app);

  const stopWorker = opts.bindWorker === false ? () => {} : binding.startBindWorker(deps);
  let closed = false;
  return {
    app,
    deps,
    close() {
      if (closed) return;
      closed = true;
      stopWorker();
      db.close();
    },
  };
}
