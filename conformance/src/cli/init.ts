// `conformance init`: starter files for a vendor, derived from the suite itself so they cannot
// drift from it: conformance.yaml (every `run` option the config file takes, with the option's
// own help text, and every binding key with its default and meaning, all commented out),
// expected-failures.yaml (an empty list and the entry format) and a provider-state endpoint
// starter (--lang ts|js|python, state-starters.ts) with one stub per state of
// spec/provider-states.yaml.
import fs from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { CONFIG_KEYS } from '../model/options.js';
import { EXIT } from '../report/results.js';
import { bindingRows } from './binding-docs.js';
import { UsageError } from '../model/errors.js';
import { probeBindings, type Finding } from './probe-bindings.js';
import {
  STARTER_FILES,
  STARTER_LANGS,
  STARTER_PORT,
  STATE_PATH,
  stateStarter,
  type StarterLang,
} from './state-starters.js';

const INIT_FILES = {
  config: 'conformance.yaml',
  expectedFailures: 'expected-failures.yaml',
} as const;

const yamlScalar = (s: string) => (s === '' || /[:#'"{}[\],&*?|<>=!%@`]|^\s|\s$/.test(s) ? JSON.stringify(s) : s);

/** What `--from-url` saw: the URL probed and its findings. */
interface Probed {
  url: string;
  findings: Finding[];
}

/**
 * conformance.yaml: the `run` options the config file takes and every binding, commented out;
 * with `probed`, the base URL and the bindings the probe recognised written out, and a note on
 * each binding it looked for.
 */
function configYaml(run: Command, probed?: Probed): string {
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
    if (key === 'baseUrl' && probed)
      lines.push(`base-url: ${yamlScalar(probed.url)}   # probed by conformance init --from-url`);
    else
      lines.push(`# ${flag}: ${key === 'containerEnv' ? '{ NAME: value }' : `<${value}>`.replace('<true>', 'true')}`);
    lines.push(`#     ${help}`);
  }
  const found = new Map((probed?.findings ?? []).map((f) => [f.key, f]));
  const set = (key: string) => found.get(key)?.value !== undefined;
  lines.push(
    '',
    '# ---- bindings: names the spec leaves open, mapped to yours (a binding only renames; it never',
    "# changes what a test asserts). Shown with the defaults, the reference server's names.",
  );
  if (probed)
    lines.push(
      `# \`conformance init --from-url ${probed.url}\` asked that URL (GET requests only) and wrote out`,
      '# the bindings it recognised; "probe:" comments say what it saw where it could not tell.',
    );
  const anySet = bindingRows().some((r) => set(r.key));
  lines.push(anySet ? 'bindings:' : '# bindings:');
  // a line written out, or commented out as `# ` before the same line (uncommenting it is removing that)
  const line = (on: boolean, text: string) => lines.push(on ? text : `# ${text}`);
  let group = '';
  for (const r of bindingRows()) {
    const [head, leaf] = r.key.includes('.') ? r.key.split('.') : ['', r.key];
    if (head !== group) {
      if (head)
        line(
          bindingRows().some((g) => g.key.startsWith(`${head}.`) && set(g.key)),
          `  ${head}:`,
        );
      group = head;
    }
    const indent = head ? '    ' : '  ';
    const f = found.get(r.key);
    if (f?.value !== undefined) line(true, `${indent}${leaf}: ${yamlScalar(f.value)}   # probe: ${f.note}`);
    else {
      if (f) lines.push(`${indent}# probe: ${f.note}`);
      line(false, `${indent}${leaf}: ${yamlScalar(r.default)}   # ${r.meaning}`);
    }
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

interface InitOptions {
  dir?: string;
  force?: boolean;
  lang?: StarterLang;
  fromUrl?: string;
  token?: string;
}

/** How to start each starter, for the closing hint. */
const START_HINT: Record<StarterLang, string> = {
  ts: `mount ${STARTER_FILES.ts} in your service (a Hono app) on a test deployment`,
  js: `node ${STARTER_FILES.js}   (serves http://127.0.0.1:${STARTER_PORT}${STATE_PATH}; PORT, HOST)`,
  python: `python3 ${STARTER_FILES.python}   (serves http://127.0.0.1:${STARTER_PORT}${STATE_PATH}; PORT, HOST)`,
};

async function initCommand(run: Command, opts: InitOptions): Promise<number> {
  const dir = path.resolve(opts.dir ?? '.');
  const lang = opts.lang ?? 'ts';
  if (!STARTER_LANGS.includes(lang)) throw new UsageError(`--lang must be one of ${STARTER_LANGS.join(', ')}`);
  const starter = STARTER_FILES[lang];
  const names = [INIT_FILES.config, INIT_FILES.expectedFailures, starter];
  const existing = names.filter((f) => fs.existsSync(path.join(dir, f)));
  if (existing.length && !opts.force) {
    process.stderr.write(
      `conformance: error: ${existing.join(', ')} already exist(s) in ${dir} (--force overwrites)\n`,
    );
    return EXIT.usage;
  }
  let probed: Probed | undefined;
  if (opts.fromUrl) {
    if (!/^https?:\/\//.test(opts.fromUrl)) throw new UsageError(`--from-url must be an http(s) URL: ${opts.fromUrl}`);
    process.stdout.write(`probing ${opts.fromUrl} (GET requests only)\n`);
    const findings = await probeBindings(opts.fromUrl, { token: opts.token }).catch((e: Error) => {
      throw new UsageError(`--from-url: ${e.message}`);
    });
    for (const f of findings)
      process.stdout.write(
        `  ${f.key}: ${f.value !== undefined ? JSON.stringify(f.value) : 'not recognised'} (${f.note})\n`,
      );
    probed = { url: opts.fromUrl, findings };
  }
  const files: [string, string][] = [
    [INIT_FILES.config, configYaml(run, probed)],
    [INIT_FILES.expectedFailures, expectedFailuresYaml()],
    [starter, stateStarter(lang)],
  ];
  fs.mkdirSync(dir, { recursive: true });
  for (const [f, text] of files) {
    fs.writeFileSync(path.join(dir, f), text);
    process.stdout.write(`wrote ${path.join(path.relative(process.cwd(), dir) || '.', f)}\n`);
  }
  process.stdout.write(
    [
      '',
      'Next:',
      `  1. conformance states --profile core   (the params the core tests send, the values to answer)`,
      `  2. ${START_HINT[lang]}; fill in its stubs, \`a user\` first (a stub answers 501 until then)`,
      `  3. edit ${INIT_FILES.config}: base-url (or image), provider-states-url, and the bindings whose names differ in your API`,
      `  4. conformance run --config ${INIT_FILES.config} --profile core`,
      `  (the vendor guide, conformance/README.md, "First run in five steps")`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

export function registerInit(program: Command, onExit: (code: number) => void): void {
  program
    .command('init')
    .description(
      `write starter files: ${INIT_FILES.config} (every option and binding, commented), ${INIT_FILES.expectedFailures} and a provider-state endpoint with one stub per state that runs as written and answers 501 until filled in`,
    )
    .addOption(
      new Option(
        '--lang <lang>',
        `the provider-state endpoint's language: ts = ${STARTER_FILES.ts}, a Hono app to mount; js = ${STARTER_FILES.js}, Node's node:http, no dependencies; python = ${STARTER_FILES.python}, Python's http.server (default ts)`,
      ).choices(STARTER_LANGS),
    )
    .option(
      '--from-url <url>',
      "probe a running implementation at this base URL and write the bindings it recognises (token header, GET /api/Domains' envelope, the total-count parameter and where the count comes back, the start-offset parameter) into conformance.yaml, with a note where it cannot tell. Read-only: it sends GET requests only (about 15), creates and changes nothing",
    )
    .option('--token <token>', 'an API token for --from-url, to recognise the token header and read past it')
    .option('--dir <dir>', 'where to write them (default: the working directory)')
    .option('--force', 'overwrite existing files')
    .action(async (opts: InitOptions) => {
      const run = program.commands.find((c) => c.name() === 'run');
      if (!run) throw new Error('the run command is not registered');
      onExit(await initCommand(run, opts));
    });
}
