// `conformance states [--profile core]`: for each provider state, the params the selected tests
// send and the values they need back, so a vendor implements its state endpoint (or writes a
// fixtures file) before the first run instead of learning it from precondition failures.
//
// How: a recording run. The selected tests run against the reference server (a local process)
// with their provider-state endpoint pointed at a recorder that forwards every call to the
// reference's endpoint and notes the state and params. A static scan of the suite files for
// `given('state', {...})` would miss params built at run time (`{ grants }`, values of an earlier
// state, loops over proposal types) and the selection (profile, requirements, read-only, the tests a
// failed precondition skips); the recording sees exactly what the selected tests send. The values
// come from the state's values schema in spec/provider-states.yaml (what every implementation must
// answer), with the keys the reference answered beside them.
//
// A param a test took from the reference's own answer (the name of its custom domain, from `a link
// parent`) is not a name a vendor must serve: against the vendor, the test sends what the vendor's
// endpoint answered there. Such values are marked as examples (`examples`, and a line under the
// params): a string of a param (value or key) that a setup answer of the reference held, not as
// an echo of that setup's own params, and that the interface spec does not name (`Claim` is the
// spec's, `Custom.Inspection` the reference's).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Option, type Command } from 'commander';
import { resolveBindings } from '../model/bindings.js';
import { HarnessError } from '../model/errors.js';
import { EXIT } from '../report/results.js';
import type { Profile, RunContext } from '../model/context.js';
import { splitList } from '../model/context.js';
import { fieldsMarked } from '../model/options.js';
import { LocalProcessTarget } from '../targets/local-process.js';
import { runSuite } from '../run/vitest-run.js';
import { loadStateDocs, type StateField } from './state-catalogue.js';
import { log } from './log.js';
import { SPEC_DIR } from '../paths.js';

interface StatesOptions {
  profile?: Profile;
  requirements?: string;
  readOnly?: boolean;
  json?: boolean;
}

export interface StateUse {
  state: string;
  description: string;
  /** Setup calls of the run. */
  calls: number;
  /** Distinct params the tests sent (setupId left out), most frequent first, with their counts. */
  params: { params: Record<string, unknown>; count: number; examples?: ReferenceExample[] }[];
  /** The params schema: what may be sent. */
  paramFields: StateField[];
  /** The values schema: what the state must answer. */
  values: StateField[];
  /** Keys the reference answered. */
  referenceKeys: string[];
}

/** A param the tests took from the reference's own answer: the vendor's endpoint answers its own. */
interface ReferenceExample {
  /** The string as sent (a value, or the key of an object such as `grants`). */
  value: string;
  /** The state and value of the reference's answer it came from. */
  fromState: string;
  fromValue: string;
}

interface Recorded {
  state: string;
  params: Record<string, unknown>;
  keys: string[];
  /** The reference's answer (setup values). */
  values?: Record<string, unknown>;
}

/** An HTTP server forwarding provider-state calls to `upstream`, recording the setups. */
async function startRecorder(upstream: string, recorded: Recorded[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const up = await fetch(upstream, {
          method: req.method,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: req.method === 'POST' ? body : undefined,
        });
        const text = await up.text();
        try {
          const call = JSON.parse(body) as { state?: string; params?: Record<string, unknown>; action?: string };
          if (call.action === 'setup' && typeof call.state === 'string') {
            const { setupId: _s, ...params } = call.params ?? {};
            let keys: string[] = [];
            let values: Record<string, unknown> | undefined;
            try {
              const v = JSON.parse(text);
              if (v && typeof v === 'object' && !Array.isArray(v)) [keys, values] = [Object.keys(v), v];
            } catch {
              /* not JSON: no keys */
            }
            recorded.push({ state: call.state, params, keys, values });
          }
        } catch {
          /* not a protocol call: forwarded, not recorded */
        }
        res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      } catch (e) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ title: 'recorder could not reach the reference', detail: (e as Error).message }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/_provider-states`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every string of a JSON value, object keys included. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]);
  return [];
}

/** The words of the interface spec: names it gives (domains, columns, codes) are the spec's own. */
function specWords(specDir: string): Set<string> {
  const text = fs.readFileSync(path.join(specDir, 'interface-spec.md'), 'utf8');
  return new Set(text.match(/[A-Za-z][\w.]*[\w]/g) ?? []);
}

/** Strings the reference answered of its own (not echoing the setup's params, not the spec's), with where. */
function referenceValues(recorded: Recorded[], spec: Set<string>): Map<string, { state: string; key: string }> {
  const out = new Map<string, { state: string; key: string }>();
  for (const r of recorded) {
    const sent = new Set(strings(r.params));
    for (const [key, v] of Object.entries(r.values ?? {})) {
      if (key === 'protocol' || key === 'token') continue;
      for (const s of strings(v))
        if (s.length > 1 && !sent.has(s) && !spec.has(s) && !out.has(s)) out.set(s, { state: r.state, key });
    }
  }
  return out;
}

/** Groups the recorded setups by state, in the order of the spec. */
export function summarize(recorded: Recorded[], specDir: string = SPEC_DIR): StateUse[] {
  const fromReference = referenceValues(recorded, specWords(specDir));
  const examplesOf = (params: Record<string, unknown>): ReferenceExample[] =>
    [...new Set(strings(params))].flatMap((value) => {
      const from = fromReference.get(value);
      return from ? [{ value, fromState: from.state, fromValue: from.key }] : [];
    });
  return loadStateDocs().map((doc) => {
    const mine = recorded.filter((r) => r.state === doc.name);
    const counts = new Map<string, number>();
    for (const r of mine) {
      const key = JSON.stringify(sortKeys(r.params));
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return {
      state: doc.name,
      description: doc.description,
      calls: mine.length,
      params: [...counts]
        .map(([k, count]) => {
          const params = JSON.parse(k) as Record<string, unknown>;
          const examples = examplesOf(params);
          return { params, count, ...(examples.length ? { examples } : {}) };
        })
        .sort((a, b) => b.count - a.count || JSON.stringify(a.params).localeCompare(JSON.stringify(b.params))),
      paramFields: doc.params.filter((p) => p.name !== 'setupId'),
      values: doc.values,
      referenceKeys: [...new Set(mine.flatMap((r) => r.keys))].sort(),
    };
  });
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

export function formatStates(uses: StateUse[], profile: Profile): string {
  const out: string[] = [];
  const used = uses.filter((u) => u.calls > 0);
  out.push(
    `Provider states used by the ${profile} profile: ${used.length} of ${uses.length} (${used.reduce((n, u) => n + u.calls, 0)} setups)`,
    '',
  );
  for (const u of uses) {
    out.push(
      `${u.state}${u.calls ? `  (${u.calls} setup${u.calls === 1 ? '' : 's'})` : '  (not used by the selected tests)'}`,
    );
    out.push(`  ${u.description}`);
    if (u.calls) {
      out.push('  params the tests send (besides setupId):');
      for (const p of u.params) {
        out.push(
          `    ${Object.keys(p.params).length ? JSON.stringify(p.params) : '{}'}${p.count > 1 ? `  ×${p.count}` : ''}`,
        );
        for (const e of p.examples ?? [])
          out.push(
            `      ^ ${JSON.stringify(e.value)} is an example: the reference's own answer to \`${e.fromState}\` (${e.fromValue}); against you the tests send what your endpoint answers there`,
          );
      }
    }
    const optional = u.paramFields.map(
      (f) => `${f.name}${f.default !== undefined ? `=${JSON.stringify(f.default)}` : ''}`,
    );
    if (optional.length) out.push(`  params the spec defines: ${optional.join(', ')}`);
    out.push('  values to answer (spec/provider-states.yaml):');
    for (const v of u.values)
      out.push(
        `    ${v.required ? '*' : ' '} ${v.name}: ${v.type}${v.since !== '1.0.0' ? ` (since ${v.since})` : ''}${v.description ? `  ${v.description}` : ''}`,
      );
    const extra = u.referenceKeys.filter((k) => !u.values.some((v) => v.name === k));
    if (extra.length) out.push(`    (the reference also answers: ${extra.join(', ')})`);
    out.push('');
  }
  out.push('* = required: the tests read it.');
  return `${out.join('\n')}\n`;
}

async function statesCommand(opts: StatesOptions): Promise<number> {
  const profile = opts.profile ?? 'core';
  const recorded: Recorded[] = [];
  const target = new LocalProcessTarget({ log });
  let recorder: Awaited<ReturnType<typeof startRecorder>> | undefined;
  try {
    log('conformance: recording the provider-state calls of the selected tests against the reference server');
    const started = await target.start();
    if (!started.stateUrl) throw new HarnessError('the reference server has no provider-state endpoint');
    recorder = await startRecorder(started.stateUrl, recorded);
    const ctx: RunContext = {
      baseUrl: started.baseUrl,
      stateUrl: recorder.url,
      // the option rows marked `context` (model/options.ts): these three as given, the rest their defaults
      ...fieldsMarked('context', (key) =>
        key === 'profile'
          ? profile
          : key === 'requirements'
            ? splitList(opts.requirements ?? '')
            : key === 'readOnly'
              ? !!opts.readOnly
              : undefined,
      ),
      bindings: resolveBindings(),
    };
    await runSuite({ ctx, reporters: [{}] });
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return EXIT.harness;
  } finally {
    await recorder?.close();
    await target.stop();
  }
  const uses = summarize(recorded);
  process.stdout.write(opts.json ? `${JSON.stringify(uses, null, 2)}\n` : formatStates(uses, profile));
  return EXIT.ok;
}

export function registerStates(program: Command, onExit: (code: number) => void): void {
  program
    .command('states')
    .description(
      'list the provider states the selected tests use: the params they send and the values they need back (records a run of the selected tests against the reference server, a local process)',
    )
    .addOption(
      new Option('--profile <profile>', 'core | implementation-defined | all (default core)').choices([
        'core',
        'implementation-defined',
        'all',
      ]),
    )
    .option('--requirements <ids>', 'comma list of requirement IDs or prefixes')
    .option('--read-only', 'only the tests that change no data')
    .option('--json', 'print JSON')
    .action(async (opts: StatesOptions) => {
      onExit(await statesCommand(opts));
    });
}
