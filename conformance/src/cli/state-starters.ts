// The provider-state endpoint starters `conformance init --lang` writes, one per language, each
// with one stub per state of spec/provider-states.yaml (its params and values listed above it) and
// each running as written: every stub answers 501 until it is filled in, so the tests that need
// that state end precondition-failed naming it, and no other test is blamed.
//   ts:     a Hono app (TypeScript) to mount in the vendor's own service;
//   js:     Node's node:http, no dependencies (`node provider-states.mjs`);
//   python: the Python standard library's http.server (`python3 provider_states.py`).
// The js and python starters listen on HOST:PORT (127.0.0.1:3999 by default) and print
// `listening on <url>` once they answer.
import { loadStateDocs, type StateDoc, type StateField } from './state-catalogue.js';
import { loadProtocol } from '../suite-api/protocol.js';

export const STARTER_LANGS = ['ts', 'js', 'python'] as const;
export type StarterLang = (typeof STARTER_LANGS)[number];

/** The file each language's starter is written to. */
export const STARTER_FILES: Record<StarterLang, string> = {
  ts: 'provider-states.ts',
  js: 'provider-states.mjs',
  python: 'provider_states.py',
};

/** Where the js and python starters listen unless PORT / HOST say otherwise. */
export const STARTER_PORT = 3999;
export const STATE_PATH = '/_provider-states';

function fieldDoc(f: StateField): string {
  const bits = [
    `${f.name}${f.required ? '' : '?'}: ${f.type}${f.since !== '1.0.0' ? ` (since protocol ${f.since})` : ''}`,
  ];
  if (f.default !== undefined) bits.push(`default ${JSON.stringify(f.default)}`);
  return `${bits.join(', ')}${f.description ? ` (${f.description})` : ''}`;
}

/** The lines documenting one state: what it is, the params the suite may send, the values to answer. */
function stateDocLines(s: StateDoc): string[] {
  const params = s.params.filter((p) => p.name !== 'setupId');
  return [
    s.description,
    `params: ${params.length ? '' : '(none besides setupId)'}`,
    ...params.map((p) => `  - ${fieldDoc(p)}`),
    'values to answer (? = optional):',
    ...s.values.map((v) => `  - ${fieldDoc(v)}`),
  ];
}

/** The protocol in a few lines, the same for every starter (`prefix` is the comment marker). */
function header(prefix: string, run: string): string {
  return [
    `Provider-state endpoint of the RFLPS conformance suite (written by \`conformance init\` from`,
    `spec/provider-states.yaml of the suite's package; \`conformance states\` shows the params the tests`,
    `send). Protocol (Pact v3): POST {"state", "params": {..., "setupId"}, "action": "setup" | "teardown"}.`,
    `setup answers 200 with the state's values; teardown answers 200 {} and removes exactly what the`,
    `setup with the same setupId created. An unknown state answers 400. Serve it on a test deployment`,
    `only, never in production, and pass its URL with --provider-states-url (default`,
    `<base-url>${STATE_PATH}). Each stub answers 501 until you implement it; the tests that need`,
    `that state then end as precondition-failed, naming it. Every setup answer declares the protocol`,
    `version this endpoint implements (PROTOCOL); the suite asks for nothing newer. A setup throws`,
    `Refused for params it does not support (400: the tests that need them end precondition-failed,`,
    `or not-applicable where the protocol allows the refusal, x-may-refuse), and FixtureCannotExist for`,
    `a fixture your design cannot build (501 with code FixtureCannotExist and your reason in detail:`,
    `the tests that need it end not-applicable). The suite sends setups concurrently.`,
    run,
  ]
    .map((l) => `${prefix} ${l}`.trimEnd())
    .join('\n');
}

const protocolVersion = () => loadProtocol().version;

/** One state's stub in the JavaScript-shaped starters (TS and JS): its documentation, a setup that
 * answers "not implemented", a teardown to fill in. */
function stubHandler(s: StateDoc): string {
  return [
    `  /**`,
    ...stateDocLines(s).map((l) => `   * ${l}`),
    `   */`,
    `  ${JSON.stringify(s.name)}: {`,
    `    async setup(params) {`,
    `      throw new NotImplemented(${JSON.stringify(s.name)}, params);`,
    `    },`,
    `    async teardown(params) {`,
    `      // remove exactly what setup created for params.setupId`,
    `      void params;`,
    `    },`,
    `  },`,
  ].join('\n');
}

/** A Hono app serving the provider-state protocol, one stub per state (mounted in the vendor's app). */
function tsStarter(states: StateDoc[]): string {
  const handlers = states.map(stubHandler);
  return `${header('//', 'Mount it beside your service on a test deployment (Hono; see the last line).')}
import { Hono } from 'hono';

/** The provider-state protocol version this endpoint implements (spec/provider-states.yaml). */
const PROTOCOL = '${protocolVersion()}';

type Params = { setupId: string } & Record<string, unknown>;
type Values = Record<string, unknown>;

interface StateHandler {
  setup(params: Params): Promise<Values>;
  teardown(params: Params): Promise<void>;
}

class NotImplemented extends Error {
  constructor(state: string, params: Params) {
    super(\`provider state '\${state}' is not implemented yet (params \${JSON.stringify(params)})\`);
  }
}

/** Throw from a setup for params this endpoint does not support: 400 with your message. */
class Refused extends Error {}

/** Throw from a setup for a fixture your design cannot build: 501 with code FixtureCannotExist. */
class FixtureCannotExist extends Error {}

export const states: Record<string, StateHandler> = {
${handlers.join('\n')}
};

const problem = (status: number, title: string, detail: string) => ({
  type: 'about:blank',
  title,
  status,
  detail,
});

export const providerStates = new Hono();

providerStates.post('${STATE_PATH}', async (c) => {
  let body: { state?: unknown; params?: unknown; action?: unknown };
  try {
    body = await c.req.json();
  } catch {
    return c.json(problem(400, 'Bad Request', 'the body is not JSON'), 400);
  }
  const handler = typeof body.state === 'string' ? states[body.state] : undefined;
  if (!handler) return c.json(problem(400, 'Unknown state', \`unknown provider state \${JSON.stringify(body.state)}\`), 400);
  const params = (body.params ?? {}) as Params;
  try {
    if (body.action === 'teardown') {
      await handler.teardown(params);
      return c.json({});
    }
    return c.json({ protocol: PROTOCOL, ...(await handler.setup(params)) });
  } catch (e) {
    if (e instanceof NotImplemented) return c.json(problem(501, 'Not Implemented', e.message), 501);
    if (e instanceof Refused) return c.json(problem(400, 'Bad Request', e.message), 400);
    if (e instanceof FixtureCannotExist)
      return c.json({ ...problem(501, 'Not Implemented', e.message), code: 'FixtureCannotExist' }, 501);
    return c.json(problem(500, 'State setup failed', (e as Error).message), 500);
  }
});

// Mount it beside your service on a test deployment, e.g.  app.route('/', providerStates);
`;
}

/** Node without dependencies: node:http, runnable as written, importable for its \`states\`. */
function jsStarter(states: StateDoc[]): string {
  const handlers = states.map(stubHandler);
  return `${header('//', `Run it as written: node provider-states.mjs (Node 18+, no dependencies; PORT and HOST, default ${STARTER_PORT} and 127.0.0.1).`)}
import http from 'node:http';
import { pathToFileURL } from 'node:url';

/** The provider-state protocol version this endpoint implements (spec/provider-states.yaml). */
const PROTOCOL = '${protocolVersion()}';

class NotImplemented extends Error {
  constructor(state, params) {
    super(\`provider state '\${state}' is not implemented yet (params \${JSON.stringify(params)})\`);
  }
}

/** Throw from a setup for params this endpoint does not support: 400 with your message. */
class Refused extends Error {}

/** Throw from a setup for a fixture your design cannot build: 501 with code FixtureCannotExist. */
class FixtureCannotExist extends Error {}

/** One handler per state: setup(params) answers the values, teardown(params) removes what setup made. */
export const states = {
${handlers.join('\n')}
};

const problem = (status, title, detail) => ({ type: 'about:blank', title, status, detail });

/** The answer to one protocol call: [status, body]. */
export async function answer(call) {
  const handler = typeof call?.state === 'string' && Object.hasOwn(states, call.state) ? states[call.state] : undefined;
  if (!handler) return [400, problem(400, 'Unknown state', \`unknown provider state \${JSON.stringify(call?.state)}\`)];
  const params = call.params ?? {};
  try {
    if (call.action === 'teardown') {
      await handler.teardown(params);
      return [200, {}];
    }
    return [200, { protocol: PROTOCOL, ...(await handler.setup(params)) }];
  } catch (e) {
    if (e instanceof NotImplemented) return [501, problem(501, 'Not Implemented', e.message)];
    if (e instanceof Refused) return [400, problem(400, 'Bad Request', e.message)];
    if (e instanceof FixtureCannotExist) return [501, { ...problem(501, 'Not Implemented', e.message), code: 'FixtureCannotExist' }];
    return [500, problem(500, 'State setup failed', e instanceof Error ? e.message : String(e))];
  }
}

export const server = http.createServer((req, res) => {
  const send = ([status, body]) => {
    res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (new URL(req.url ?? '/', 'http://x').pathname !== '${STATE_PATH}') return send([404, problem(404, 'Not Found', 'the endpoint is POST ${STATE_PATH}')]);
  if (req.method !== 'POST') return send([405, problem(405, 'Method Not Allowed', 'the endpoint is POST ${STATE_PATH}')]);
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    let call;
    try {
      call = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send([400, problem(400, 'Bad Request', 'the body is not JSON')]);
    }
    send(await answer(call));
  });
});

// run as a program (not when imported): listen and say where
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const host = process.env.HOST || '127.0.0.1';
  server.listen(Number(process.env.PORT ?? ${STARTER_PORT}), host, () => {
    console.log(\`listening on http://\${host}:\${server.address().port}${STATE_PATH}\`);
  });
}
`;
}

/** A Python identifier for a state's functions: "a record with files" -> a_record_with_files. */
const pyName = (state: string) =>
  state
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

/** Python's standard library only: http.server, runnable as written. */
function pythonStarter(states: StateDoc[]): string {
  const handlers = states.map((s) => {
    const n = pyName(s.name);
    return [
      ...stateDocLines(s).map((l) => `# ${l}`.trimEnd()),
      `def setup_${n}(params):`,
      `    raise NotImplementedState(${JSON.stringify(s.name)}, params)`,
      '',
      '',
      `def teardown_${n}(params):`,
      `    # remove exactly what setup created for params["setupId"]`,
      `    pass`,
      '',
      '',
      '',
    ].join('\n');
  });
  const table = states.map(
    (s) => `    ${JSON.stringify(s.name)}: (setup_${pyName(s.name)}, teardown_${pyName(s.name)}),`,
  );
  return `#!/usr/bin/env python3
${header('#', `Run it as written: python3 provider_states.py (Python 3.8+, standard library only; PORT and HOST, default ${STARTER_PORT} and 127.0.0.1).`)}
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The provider-state protocol version this endpoint implements (spec/provider-states.yaml).
PROTOCOL = "${protocolVersion()}"


class NotImplementedState(Exception):
    def __init__(self, state, params):
        super().__init__(f"provider state '{state}' is not implemented yet (params {json.dumps(params)})")


class Refused(Exception):
    """Raise from a setup for params this endpoint does not support: 400 with your message."""


class FixtureCannotExist(Exception):
    """Raise from a setup for a fixture your design cannot build: 501 with code FixtureCannotExist."""


${handlers.join('')}# One (setup, teardown) pair per state: setup(params) returns the values as a dict.
STATES = {
${table.join('\n')}
}


def problem(status, title, detail):
    return {"type": "about:blank", "title": title, "status": status, "detail": detail}


def answer(call):
    """The answer to one protocol call: (status, body)."""
    state = call.get("state") if isinstance(call, dict) else None
    if state not in STATES:
        return 400, problem(400, "Unknown state", f"unknown provider state {json.dumps(state)}")
    setup, teardown = STATES[state]
    params = call.get("params") or {}
    try:
        if call.get("action") == "teardown":
            teardown(params)
            return 200, {}
        return 200, {"protocol": PROTOCOL, **setup(params)}
    except NotImplementedState as e:
        return 501, problem(501, "Not Implemented", str(e))
    except Refused as e:
        return 400, problem(400, "Bad Request", str(e))
    except FixtureCannotExist as e:
        return 501, {**problem(501, "Not Implemented", str(e)), "code": "FixtureCannotExist"}
    except Exception as e:  # any other failure of a setup: a 500 with its message
        return 500, problem(500, "State setup failed", str(e))


class Handler(BaseHTTPRequestHandler):
    def send(self, status, body):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/problem+json" if status >= 400 else "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        if self.path.split("?")[0] != "${STATE_PATH}":
            return self.send(404, problem(404, "Not Found", "the endpoint is POST ${STATE_PATH}"))
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            call = json.loads(raw or b"null")
        except ValueError:
            return self.send(400, problem(400, "Bad Request", "the body is not JSON"))
        self.send(*answer(call))

    def do_GET(self):
        self.send(405, problem(405, "Method Not Allowed", "the endpoint is POST ${STATE_PATH}"))

    def log_message(self, format, *args):  # quiet: the suite sends many calls
        pass


if __name__ == "__main__":
    host = os.environ.get("HOST") or "127.0.0.1"
    server = ThreadingHTTPServer((host, int(os.environ.get("PORT", "${STARTER_PORT}"))), Handler)
    print(f"listening on http://{host}:{server.server_address[1]}${STATE_PATH}", flush=True)
    server.serve_forever()
`;
}

/** The starter of one language, generated from the states of the spec. */
export function stateStarter(lang: StarterLang): string {
  const states = loadStateDocs();
  return { ts: tsStarter, js: jsStarter, python: pythonStarter }[lang](states);
}
