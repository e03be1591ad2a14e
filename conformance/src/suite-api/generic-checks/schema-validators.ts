// The compiled JSON Schema validators of response bodies: ajv over the full OpenAPI document and over
// its core view (spec/core-view.ts: every x-implementation-defined schema relaxed).
//
// Compiling them cost every worker thread about half a second of CPU at its first responses (ajv
// generates and compiles code per schema), and a run starts several workers, the mutation run ~180
// runs. So the conformance command compiles every response schema of both views once per version of
// the document into ajv's standalone code (precompileValidators: a file in the system's temporary
// directory, named by the hash of the document and of ajv's version), and each worker loads that file
// (a few ms). A schema missing from it, or no file at all, is compiled on first use as before.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { coreView } from '../../spec/core-view.js';
import type { OpenApiIndex } from '../../spec/openapi.js';
import type { SchemaView } from './types.js';

// ajv-formats and ajv's standalone module are CommonJS; under some loaders the default export is the module object.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof addFormatsModule;
const standaloneCode = ((standaloneCodeModule as any).default ?? standaloneCodeModule) as typeof standaloneCodeModule;
/** What the standalone code requires (ajv's runtime helpers, ajv-formats), resolved from here. */
const requireHere = createRequire(import.meta.url);

const DOC_ID: Record<SchemaView, string> = { full: 'openapi.json', core: 'openapi.core.json' };
const VIEWS: SchemaView[] = ['core', 'full'];

function newAjv(doc: unknown, source: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: true,
    logger: false,
    ...(source ? { code: { source: true } } : {}),
  });
  addFormats(ajv);
  for (const f of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) {
    ajv.addFormat(f, true);
  }
  ajv.addSchema(stripForAjv(doc), DOC_ID.full);
  ajv.addSchema(stripForAjv(coreView(doc as any)), DOC_ID.core);
  return ajv;
}

export class SchemaValidators {
  private ajv: Ajv2020 | undefined;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: unknown) {
    for (const [key, fn] of Object.entries(loadPrecompiled(doc))) this.compiled.set(key, fn);
  }

  /** The validator of the schema at `pointer` in the core view or the full document. */
  get(view: SchemaView, pointer: string): ValidateFunction {
    const key = `${DOC_ID[view]}#${pointer}`;
    let v = this.compiled.get(key);
    if (!v) {
      this.ajv ??= newAjv(this.doc, false);
      v = this.ajv.compile({ $ref: key });
      this.compiled.set(key, v);
    }
    return v;
  }
}

/** Bump when the generated file's layout changes. */
const LAYOUT = 1;

/** Where the precompiled validators of `doc` are kept. */
export function precompiledFile(doc: unknown): string {
  const ajvVersion = (requireHere('ajv/package.json') as { version: string }).version;
  const hash = createHash('sha256')
    .update(`${LAYOUT}\0${ajvVersion}\0${JSON.stringify(doc)}`)
    .digest('hex')
    .slice(0, 24);
  const user = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `rflps-conformance-${user}`, `validators-${hash}.cjs`);
}

/**
 * Whether the directory of the precompiled file is this user's own and nobody else may write in
 * it: the file is run as code, and the system's temporary directory is shared. Another user who
 * made the directory first (or a directory others may write) means: compile on use, load nothing.
 */
function ownCacheDir(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir);
    const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
    return st.isDirectory() && mine && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The precompiled validators of `doc` by key (`<view document>#<pointer>`); empty when there are none. */
function loadPrecompiled(doc: unknown): Record<string, ValidateFunction> {
  const file = precompiledFile(doc);
  if (!ownCacheDir(path.dirname(file))) return {};
  let code: string;
  try {
    code = fs.readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const module = { exports: {} as Record<string, unknown> };
    // the standalone code is CommonJS: it gets this module's require, so its requires of ajv's
    // runtime and of ajv-formats resolve from the suite's own node_modules wherever the file is
    new Function('require', 'module', 'exports', code)(requireHere, module, module.exports);
    const keys = module.exports.KEYS as Record<string, string>;
    return Object.fromEntries(
      Object.entries(keys).map(([key, name]) => [key, module.exports[name] as ValidateFunction]),
    );
  } catch {
    return {}; // a damaged file: compile on use
  }
}

/**
 * Compiles every documented response body schema of both views into ajv's standalone code and keeps
 * it for the workers, unless a file for this document is there already. Returns the file, or
 * undefined when it could not be written (the workers then compile on use).
 */
export function precompileValidators(index: OpenApiIndex): string | undefined {
  const file = precompiledFile(index.doc);
  if (fs.existsSync(file)) return file;
  try {
    const ajv = newAjv(index.doc, true);
    const keys: Record<string, string> = {};
    for (const view of VIEWS) {
      for (const pointer of index.responseSchemaPointers()) {
        const name = `v${Object.keys(keys).length}`;
        ajv.compile({ $id: name, $ref: `${DOC_ID[view]}#${pointer}` });
        keys[`${DOC_ID[view]}#${pointer}`] = name;
      }
    }
    const code =
      standaloneCode(ajv, Object.fromEntries(Object.values(keys).map((n) => [n, n]))) +
      `\nexports.KEYS = ${JSON.stringify(keys)};\n`;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    if (!ownCacheDir(path.dirname(file))) return undefined;
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, file);
    return file;
  } catch {
    return undefined;
  }
}

/** The document without keys that ajv would mistake for schema ids. */
function stripForAjv(doc: any): any {
  const copy = { ...doc };
  delete copy.$id;
  delete copy.$schema;
  return copy;
}
