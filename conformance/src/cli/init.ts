// `conformance init`: starter files for a vendor, derived from the suite itself so they cannot
// drift from it: conformance.yaml (every `run` option the config file takes, with the option's
// own help text, and every binding key with its default and meaning, all commented out),
// expected-failures.yaml (an empty list and the entry format) and a provider-state endpoint
// skeleton (TypeScript, Hono) with one handler stub per state of spec/provider-states.yaml.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { CONFIG_KEYS } from '../model/options.js';
import { EXIT } from '../report/results.js';
import { bindingRows } from './binding-docs.js';
import { loadStateDocs, type StateField } from './state-catalogue.js';
import { loadProtocol } from '../suite-api/protocol.js';

const INIT_FILES = {
  config: 'conformance.yaml',
  expectedFailures: 'expected-failures.yaml',
  providerStates: 'provider-states.ts',
} as const;

const yamlScalar = (s: string) => (s === '' || /[:#'"{}[\],&*?|<>=!%@`]|^\s|\s$/.test(s) ? JSON.stringify(s) : s);

/** conformance.yaml: the `run` options the config file takes and every binding, commented out. */
function configYaml(run: Command): string {
  const lines = [
    '# conformance.yaml: configuration of `conformance run --config conformance.yaml`',
    '# (written by `conformance init`). Every key is optional and commented out: uncomment what you',
    '# need. The command line and CONFORMANCE_* environment variables win over this file.',
    '',
    '# ---- run options (the same as the command-line options; `conformance run --help`)',
  ];
  for (const o of run.options) {
    const key = o.attributeName();
    if (!CONFIG_KEYS.has(key)) continue;
    const flag = (o.long ?? '').replace(/^--/, '');
    const value =
      o.required || o.optional
        ? (o.flags
            .match(/<([^>]+)>|\[([^\]]+)\]/)
            ?.slice(1)
            .find(Boolean) ?? '')
        : 'true';
    const help = o.description.replace(/\s*\[CONFORMANCE_[A-Z_]+\]$/, '');
    lines.push(`# ${flag}: ${key === 'containerEnv' ? '{ NAME: value }' : `<${value}>`.replace('<true>', 'true')}`);
    lines.push(`#     ${help}`);
  }
  lines.push(
    '',
    '# ---- bindings: names the spec leaves open, mapped to yours (a binding only renames; it never',
    "# changes what a test asserts). Shown with the defaults, the reference server's names.",
    '# bindings:',
  );
  let group = '';
  for (const r of bindingRows()) {
    const [head, leaf] = r.key.includes('.') ? r.key.split('.') : ['', r.key];
    if (head !== group) {
      if (head) lines.push(`#   ${head}:`);
      group = head;
    }
    const indent = head ? '#     ' : '#   ';
    lines.push(`${indent}${leaf}: ${yamlScalar(r.default)}   # ${r.meaning}`);
  }
  return `${lines.join('\n')}\n`;
}

function expectedFailuresYaml(): string {
  return [
    '# expected-failures.yaml: requirements your implementation is known to fail, so that a run',
    '# still passes while you fix them (`conformance run --expected-failures expected-failures.yaml`).',
    '# Each entry needs a reason and an expiry day (YYYY-MM-DD, UTC): after it, the entry no longer',
    '# excuses the failure. A listed requirement that passes is reported, so the list stays honest.',
    '#',
    '# - id: AUTH-004',
    '#   reason: token lifetime not configurable yet (ticket ACME-123)',
    '#   expires: 2030-01-31',
    '[]',
    '',
  ].join('\n');
}

function fieldDoc(f: StateField): string {
  const bits = [
    `${f.name}${f.required ? '' : '?'}: ${f.type}${f.since !== '1.0.0' ? ` (since protocol ${f.since})` : ''}`,
  ];
  if (f.default !== undefined) bits.push(`default ${JSON.stringify(f.default)}`);
  return `${bits.join(', ')}${f.description ? ` (${f.description})` : ''}`;
}

/** A Hono app serving the provider-state protocol, one stub per state. */
function providerStatesSkeleton(): string {
  const states = loadStateDocs();
  const handlers = states.map((s) => {
    const params = s.params.filter((p) => p.name !== 'setupId');
    return [
      `  /**`,
      `   * ${s.description}`,
      `   * params: ${params.length ? '' : '(none besides setupId)'}`,
      ...params.map((p) => `   *   - ${fieldDoc(p)}`),
      `   * values to answer:`,
      ...s.values.map((v) => `   *   - ${fieldDoc(v)}`),
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
  });
  return `// Provider-state endpoint of the RFLPS conformance suite (written by \`conformance init\` from
// spec/provider-states.yaml of the suite's package; \`conformance states\` shows the params the tests
// send). Protocol (Pact v3): POST {"state", "params": {..., "setupId"}, "action": "setup" | "teardown"}.
// setup answers 200 with the state's values; teardown answers 200 {} and removes exactly what the
// setup with the same setupId created. An unknown state answers 400. Serve it on a test deployment
// only, never in production, and pass its URL with --provider-states-url (default
// <base-url>/_provider-states). Each stub answers 501 until you implement it; the tests that need
// that state then end as precondition-failed, naming it. Every setup answer declares the protocol
// version this endpoint implements (PROTOCOL); the suite asks for nothing newer. A fixture your
// design cannot build answers 501 with code FixtureCannotExist and the reason in detail: the tests
// that need it end not-applicable.
import { Hono } from 'hono';

/** The provider-state protocol version this endpoint implements (spec/provider-states.yaml). */
const PROTOCOL = '${loadProtocol().version}';

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

providerStates.post('/_provider-states', async (c) => {
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
    return c.json(problem(500, 'State setup failed', (e as Error).message), 500);
  }
});

// Mount it beside your service on a test deployment, e.g.  app.route('/', providerStates);
`;
}

interface InitOptions {
  dir?: string;
  force?: boolean;
}

function initCommand(run: Command, opts: InitOptions): number {
  const dir = path.resolve(opts.dir ?? '.');
  const files: [string, string][] = [
    [INIT_FILES.config, configYaml(run)],
    [INIT_FILES.expectedFailures, expectedFailuresYaml()],
    [INIT_FILES.providerStates, providerStatesSkeleton()],
  ];
  const existing = files.filter(([f]) => fs.existsSync(path.join(dir, f))).map(([f]) => f);
  if (existing.length && !opts.force) {
    process.stderr.write(
      `conformance: error: ${existing.join(', ')} already exist(s) in ${dir} (--force overwrites)\n`,
    );
    return EXIT.usage;
  }
  fs.mkdirSync(dir, { recursive: true });
  for (const [f, text] of files) {
    fs.writeFileSync(path.join(dir, f), text);
    process.stdout.write(`wrote ${path.join(path.relative(process.cwd(), dir) || '.', f)}\n`);
  }
  process.stdout.write(
    [
      '',
      'Next:',
      `  1. edit ${INIT_FILES.config}: base-url (or image), and the bindings whose names differ in your API`,
      `  2. implement the states in ${INIT_FILES.providerStates} (\`conformance states --profile core\` lists the params the tests send)`,
      `  3. conformance run --config ${INIT_FILES.config}`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

export function registerInit(program: Command, onExit: (code: number) => void): void {
  program
    .command('init')
    .description(
      `write starter files: ${INIT_FILES.config} (every option and binding, commented), ${INIT_FILES.expectedFailures} and ${INIT_FILES.providerStates} (a Hono provider-state endpoint with one stub per state)`,
    )
    .option('--dir <dir>', 'where to write them (default: the working directory)')
    .option('--force', 'overwrite existing files')
    .action((opts: InitOptions) => {
      const run = program.commands.find((c) => c.name() === 'run');
      if (!run) throw new Error('the run command is not registered');
      onExit(initCommand(run, opts));
    });
}
