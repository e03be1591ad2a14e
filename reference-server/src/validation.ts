// Request parsing and validation. Query parameters and JSON bodies are checked by hand in each
// route (typed parsing with clear 400s) and, when spec/generated/openapi.json is present, against
// the operation's schema from the OpenAPI document (ajv).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ApiError } from './errors.js';
import { own } from './own.js';
import { queryParam } from './query-params.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The request body as text; a body that is not valid UTF-8 → 400 MalformedRequest (decoding it
 * leniently stored U+FFFD in place of what was sent, and answered 200). */
// REQ: GEN-004
export async function readBodyText(c: Context): Promise<string> {
  const bytes = await c.req.arrayBuffer();
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ApiError(400, 'MalformedRequest', 'The request body is not valid UTF-8.');
  }
}

/** A JSON escape of a surrogate (`\ud800`): only where one occurs can a string be ill-formed. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** A lone surrogate: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function wellFormed(v: unknown): boolean {
  if (typeof v === 'string') return !LONE_SURROGATE.test(v);
  if (Array.isArray(v)) return v.every(wellFormed);
  if (typeof v === 'object' && v !== null)
    return Object.entries(v).every(([k, x]) => !LONE_SURROGATE.test(k) && wellFormed(x));
  return true;
}

/** JSON.parse of a request body; malformed JSON, or a string with a lone surrogate (`"\ud800"`,
 * which SQLite cannot store as sent: it came back as three U+FFFD) → 400 MalformedRequest. */
// REQ: GEN-004
export function parseJsonText(text: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'MalformedRequest', 'The request body is not valid JSON.');
  }
  if (SURROGATE_ESCAPE.test(text) && !wellFormed(v))
    throw new ApiError(
      400,
      'MalformedRequest',
      'The request body holds a string with a lone surrogate (not valid Unicode).',
    );
  return v;
}

/** Parse the JSON body; malformed JSON or text → 400 MalformedRequest. */
// REQ: GEN-004
export async function readJsonBody(c: Context): Promise<unknown> {
  const text = await readBodyText(c);
  if (text.trim() === '') return undefined;
  return parseJsonText(text);
}

const TRUE_WORDS = new Set(['true', 'True', 'Yes', 'Y', '1']);
const FALSE_WORDS = new Set(['false', 'False', 'No', 'N', '0']);

/** Booleans in query strings: true/false, True/False, Yes/No, Y/N, 1/0 (architecture section 2);
 * anything else → 400 MalformedRequest. */
export function parseBoolParam(raw: string | undefined, name: string, dflt: boolean): boolean {
  if (raw === undefined) return dflt;
  const v = raw;
  if (TRUE_WORDS.has(v)) return true;
  if (FALSE_WORDS.has(v)) return false;
  throw new ApiError(
    400,
    'MalformedRequest',
    `Query parameter '${name}' must be a boolean (true/false, Yes/No, Y/N, 1/0), got '${raw}'.`,
  );
}

/** An integer parameter (path or query); anything else → 400 MalformedRequest. */
export function parseIntParam(raw: string | undefined, name: string): number;
export function parseIntParam(raw: string | undefined, name: string, dflt: number): number;
export function parseIntParam(raw: string | undefined, name: string, dflt?: number): number {
  if (raw === undefined || raw === '') {
    if (dflt !== undefined) return dflt;
    throw new ApiError(400, 'MalformedRequest', `'${name}' is required and must be an integer.`);
  }
  if (!/^[-+]?\d+$/.test(raw))
    throw new ApiError(400, 'MalformedRequest', `'${name}' must be an integer, got '${raw}'.`);
  const n = Number(raw);
  // Beyond 2^53 - 1 a number no longer names one integer (JSON and JavaScript round it): the
  // documented bound of every integer parameter (README, table of choices).
  if (!Number.isSafeInteger(n))
    throw new ApiError(
      400,
      'MalformedRequest',
      `'${name}' must be an integer from -${MAX_ID} to ${MAX_ID}, got '${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}'.`,
    );
  return n;
}

/** The largest integer the server accepts anywhere (2^53 - 1): IDs are at most this. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** The record ID path parameter (an integer up to MAX_ID; beyond it 400 naming the bound). */
// REQ: GEN-004
export function parseId(raw: string | undefined, name = 'id'): number {
  return parseIntParam(raw, name);
}

// ---- the OpenAPI document --------------------------------------------------------------------

/** Find `spec/<rel>` upwards from this module (src or the dist bundle) and from the cwd. */
export function findSpecFile(rel: string): string | undefined {
  const starts = [dirname(fileURLToPath(import.meta.url)), process.cwd()];
  for (const start of starts) {
    let dir = resolve(start);
    for (;;) {
      const p = join(dir, 'spec', rel);
      if (existsSync(p)) return p;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  return undefined;
}

type Json = Record<string, unknown>;

interface ParamCheck {
  name: string;
  in: 'query' | 'path';
  required: boolean;
  numeric: boolean;
  validate: ValidateFunction;
}

export interface ResponseCheck {
  validate: ValidateFunction;
  mediaType: string;
}

interface OperationCheck {
  params: ParamCheck[];
  body?: { required: boolean; validate: ValidateFunction };
}

/** Keywords of a parameter schema that the reference deliberately does not enforce by refusal:
 * `take` above 100 is clamped (architecture section 2), not refused. */
const RELAXED: Record<string, string[]> = { take: ['maximum'] };

/** Validator of one OpenAPI document: requests are checked against the operation's parameter
 * and request-body schemas. */
export class SpecValidator {
  private ajv: Ajv2020;
  readonly version: string | undefined;

  constructor(
    private doc: Json,
    private docId = 'openapi.json',
  ) {
    // verbose: an error carries its schema, so a failed `anyOf` can name its alternatives
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, verbose: true });
    addFormats.default(this.ajv);
    this.ajv.addFormat('password', true);
    this.ajv.addSchema({ ...doc, $id: docId } as Json, docId);
    this.version = (doc.info as { version?: string } | undefined)?.version;
  }

  private resolveRef<T>(obj: unknown): T {
    let cur = obj as Json;
    for (let i = 0; i < 10 && cur && typeof cur.$ref === 'string' && cur.$ref.startsWith('#/'); i++) {
      cur = (cur.$ref as string)
        .slice(2)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((o, k) => (o as Json)?.[k], this.doc) as Json;
    }
    return cur as T;
  }

  private compileAt(pointer: string, relax: string[] = []): ValidateFunction {
    if (relax.length === 0) return this.ajv.compile({ $ref: `${this.docId}#${pointer}` });
    const schema = { ...this.resolveRef<Json>({ $ref: '#' + pointer }) };
    for (const k of relax) delete schema[k];
    // Nested refs in the copy are resolved against the document.
    return this.ajv.compile({ ...rebase(schema, this.docId) });
  }

  private responses = new Map<string, ResponseCheck | undefined>();

  /** The validator of a documented response (used by the server's own tests, GEN-002). */
  response(method: string, path: string, status: number): ResponseCheck | undefined {
    const key = `${method.toLowerCase()} ${path} ${status}`;
    if (this.responses.has(key)) return this.responses.get(key);
    let check: ResponseCheck | undefined;
    const op = (this.doc.paths as Record<string, Json>)[path]?.[method.toLowerCase()] as Json | undefined;
    const resp = (op?.responses as Record<string, unknown> | undefined)?.[String(status)];
    if (resp) {
      const content = this.resolveRef<Json>(resp).content as Record<string, Json> | undefined;
      const mediaType = content ? Object.keys(content)[0] : undefined;
      if (mediaType && content![mediaType]!.schema) {
        const esc = (x: string) => x.replace(/~/g, '~0').replace(/\//g, '~1');
        const pointer =
          typeof (resp as Json).$ref === 'string'
            ? `${((resp as Json).$ref as string).slice(1)}/content/${esc(mediaType)}/schema`
            : `/paths/${esc(path)}/${method.toLowerCase()}/responses/${status}/content/${esc(mediaType)}/schema`;
        check = { validate: this.ajv.compile({ $ref: `${this.docId}#${pointer}` }), mediaType };
      }
    }
    this.responses.set(key, check);
    return check;
  }

  /** the checks of each operation asked for, by method as given (the routes give it in lower case)
   * and path template: a route asks for its own on every request, so no key is built for the
   * lookup; an operation the document does not declare is kept as undefined */
  private ops = new Map<string, Map<string, OperationCheck | undefined>>();

  operation(method: string, path: string): OperationCheck | undefined {
    let byPath = this.ops.get(method);
    if (!byPath) this.ops.set(method, (byPath = new Map()));
    if (byPath.has(path)) return byPath.get(path);
    const check = this.compileOperation(method, path);
    byPath.set(path, check);
    return check;
  }

  private compileOperation(method: string, path: string): OperationCheck | undefined {
    const paths = (this.doc.paths ?? {}) as Record<string, Json>;
    const item = paths[path];
    const op = item?.[method.toLowerCase()] as Json | undefined;
    if (!item || !op) return undefined;
    const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    const params: ParamCheck[] = [];
    const rawParams = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])];
    rawParams.forEach((raw) => {
      const rp = raw as Json;
      const p = this.resolveRef<Json>(rp);
      if (p.in !== 'query' && p.in !== 'path') return;
      let pointer: string;
      if (typeof rp.$ref === 'string') pointer = (rp.$ref as string).slice(1) + '/schema';
      else {
        const where = (item.parameters as unknown[] | undefined)?.includes(raw)
          ? `/paths/${esc(path)}/parameters`
          : `/paths/${esc(path)}/${method.toLowerCase()}/parameters`;
        const list = (
          where.endsWith(`${method.toLowerCase()}/parameters`) ? op.parameters : item.parameters
        ) as unknown[];
        pointer = `${where}/${list.indexOf(raw)}/schema`;
      }
      const schema = this.resolveRef<Json>(p.schema);
      const numeric = schema?.type === 'integer' || schema?.type === 'number';
      params.push({
        name: String(p.name),
        in: p.in as 'query' | 'path',
        required: !!p.required,
        numeric,
        validate: this.compileAt(pointer, own(RELAXED, String(p.name)) ?? []),
      });
    });
    let body: OperationCheck['body'];
    const rb = op.requestBody ? this.resolveRef<Json>(op.requestBody) : undefined;
    const content = rb?.content as Record<string, Json> | undefined;
    if (content?.['application/json']?.schema) {
      body = {
        required: !!rb!.required,
        validate: this.compileAt(
          `/paths/${esc(path)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`,
        ),
      };
    }
    return { params, body };
  }
}

export interface ResponseCheck {
  validate: ValidateFunction;
  mediaType: string;
}

/** Make the local refs of a copied sub-schema point into the document. */
function rebase(v: unknown, docId: string): any {
  if (Array.isArray(v)) return v.map((x) => rebase(x, docId));
  if (v && typeof v === 'object') {
    const out: Json = {};
    for (const [k, x] of Object.entries(v))
      out[k] = k === '$ref' && typeof x === 'string' && x.startsWith('#') ? docId + x : rebase(x, docId);
    return out;
  }
  return v;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  // A failed anyOf (the link body: each side by ID, or by match field and key) names its
  // alternatives instead of the first branch's missing property.
  const any = errors?.find((x) => x.keyword === 'anyOf' && Array.isArray(x.schema));
  if (any) {
    const ways = (any.schema as Json[]).map((b) => {
      const req = Array.isArray(b.required) ? ` (${(b.required as string[]).join(' with ')})` : '';
      return `${typeof b.title === 'string' ? b.title : 'an alternative'}${req}`;
    });
    return `${any.instancePath ? `${any.instancePath} ` : ''}must give one of: ${ways.join('; or ')}`;
  }
  const e = errors?.[0];
  if (!e) return 'is invalid';
  const where = e.instancePath ? `${e.instancePath} ` : '';
  // An ID beyond its documented bound (the ID schemas carry minimum/maximum ±MAX_ID) is named
  // with both bounds, as parseIntParam names them, not as a bare "must be <= ...".
  const bounded = e.parentSchema as { type?: unknown; minimum?: unknown; maximum?: unknown } | undefined;
  if (
    (e.keyword === 'minimum' || e.keyword === 'maximum') &&
    bounded?.type === 'integer' &&
    typeof bounded.minimum === 'number' &&
    typeof bounded.maximum === 'number'
  )
    return `${where}must be an integer from ${bounded.minimum} to ${bounded.maximum}`;
  if (e.keyword === 'enum')
    return `${where}must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((x) => JSON.stringify(x)).join(', ')}`;
  return `${where}${e.message ?? 'is invalid'}`.trim();
}

let specValidator: SpecValidator | null | undefined;

/** The validator of spec/generated/openapi.json (null when the document is not found). */
export function getSpecValidator(): SpecValidator | null {
  if (specValidator !== undefined) return specValidator;
  const file = findSpecFile('generated/openapi.json');
  specValidator = null;
  if (file) {
    try {
      specValidator = new SpecValidator(JSON.parse(readFileSync(file, 'utf8')) as Json);
    } catch (err) {
      process.stderr.write(
        JSON.stringify({
          level: 'warn',
          msg: 'cannot load the OpenAPI document; request validation off',
          error: String(err),
        }) + '\n',
      );
    }
  }
  return specValidator;
}

/** Validate the query and path parameters of an operation against the OpenAPI document. */
// REQ: GEN-004
export function validateQuery(c: Context, method: string, path: string): void {
  const op = getSpecValidator()?.operation(method, path);
  if (!op) return;
  for (const p of op.params) {
    const raw = p.in === 'query' ? queryParam(c, p.name) : c.req.param(p.name);
    if (raw === undefined) {
      if (p.required) throw new ApiError(400, 'MalformedRequest', `The ${p.in} parameter '${p.name}' is required.`);
      continue;
    }
    let value: unknown = raw;
    if (p.numeric) {
      if (!/^[-+]?\d+(\.\d+)?$/.test(raw.trim())) {
        throw new ApiError(
          400,
          'MalformedRequest',
          `The ${p.in} parameter '${p.name}' must be a number, got '${raw}'.`,
        );
      }
      value = Number(raw);
    }
    if (!p.validate(value)) {
      throw new ApiError(
        400,
        'MalformedRequest',
        `The ${p.in} parameter '${p.name}' ${describe(p.validate.errors)} (got '${raw}').`,
      );
    }
  }
}

/** Validate a JSON body against the operation's request schema. */
// REQ: GEN-004
export function validateBody(method: string, path: string, body: unknown): void {
  const op = getSpecValidator()?.operation(method, path);
  if (!op?.body) return;
  if (body === undefined) {
    if (op.body.required) throw new ApiError(400, 'MalformedRequest', 'A JSON request body is required.');
    return;
  }
  if (!op.body.validate(body)) {
    throw new ApiError(
      400,
      'MalformedRequest',
      `The request body ${describe(op.body.validate.errors).replace(/^\//, 'field /')}.`,
    );
  }
}

// ---- provider-state params (spec/generated/provider-states.json) -----------------------------

let stateParamValidators: Map<string, ValidateFunction> | null | undefined;

function loadStateValidators(): Map<string, ValidateFunction> | null {
  if (stateParamValidators !== undefined) return stateParamValidators;
  stateParamValidators = null;
  const file = findSpecFile('generated/provider-states.json');
  if (!file) return null;
  try {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Json;
    const ajv = new Ajv2020({ strict: false, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema({ ...doc, $id: 'provider-states.json' } as Json, 'provider-states.json');
    const op = ((doc.paths as Json)['/_provider-states'] as Json).post as Json;
    const map = new Map<string, ValidateFunction>();
    for (const s of (op['x-states'] as Array<{ name: string; params?: { $ref?: string } }>) ?? []) {
      if (s.params?.$ref) map.set(s.name, ajv.compile({ $ref: 'provider-states.json' + s.params.$ref }));
    }
    stateParamValidators = map;
  } catch (err) {
    process.stderr.write(
      JSON.stringify({ level: 'warn', msg: 'cannot load the provider-state document', error: String(err) }) + '\n',
    );
  }
  return stateParamValidators;
}

/** Validate a provider state's params against its schema (when the document is present). */
export function validateStateParams(state: string, params: unknown): void {
  const v = loadStateValidators()?.get(state);
  if (v && !v(params))
    throw new ApiError(
      400,
      'MalformedRequest',
      `Params of state '${state}' ${describe(v.errors).replace(/^\//, 'field /')}.`,
    );
}
