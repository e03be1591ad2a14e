// Shared helpers of the spec tests (not a test file itself).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ROOT } from '../paths.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

export function loadYaml<T = any>(rel: string): T {
  return YAML.parse(readFileSync(join(ROOT, rel), 'utf8')) as T;
}

export interface Operation {
  method: string;
  path: string;
  op: any;
  /** path-level and operation-level parameters, $refs resolved */
  parameters: any[];
}

/** Resolves a local `#/...` reference (repeatedly, for chains). */
export function deref(doc: any, node: any): any {
  let cur = node;
  for (let i = 0; cur && typeof cur === 'object' && typeof cur.$ref === 'string' && i < 20; i++) {
    const ref: string = cur.$ref;
    if (!ref.startsWith('#/')) throw new Error(`non-local $ref ${ref}`);
    cur = ref
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((o, k) => (o == null ? undefined : o[k]), doc);
    if (cur === undefined) throw new Error(`unresolvable $ref ${ref}`);
  }
  return cur;
}

export function operations(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, rawItem] of Object.entries<any>(doc.paths ?? {})) {
    const item = deref(doc, rawItem);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(doc, p));
      out.push({ method, path, op, parameters: params });
    }
  }
  return out;
}

const OAS_BASE = 'https://rflps.invalid/schemas';

/** Rewrites `#/components/schemas/X` references so that compiled schemas resolve them through ajv. */
function rewriteRefs(node: any): any {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: any = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
        out[k] = `${OAS_BASE}#/$defs/${v.slice('#/components/schemas/'.length)}`;
      } else {
        out[k] = rewriteRefs(v);
      }
    }
    return out;
  }
  return node;
}

/**
 * An ajv instance (JSON Schema 2020-12, the OpenAPI 3.1 dialect, with ajv-formats) that knows the
 * document's component schemas. OpenAPI's own schema keywords are registered as annotations so
 * that strict mode still catches misspelt keywords.
 */
export function schemaValidator(doc: any) {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true, allowUnionTypes: true });
  const addFormats = (addFormatsModule as any).default ?? addFormatsModule;
  addFormats(ajv);
  ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example', 'x-implementation-defined', 'x-requirements']);
  // the provider-state protocol's version marks (spec/provider-states.yaml, 'Versions and negotiation')
  ajv.addVocabulary(['x-since', 'x-confirmed-by', 'x-may-refuse']);
  ajv.addFormat('password', true); // OpenAPI format registry: a UI hint only
  ajv.addSchema({ $id: OAS_BASE, $defs: rewriteRefs(doc.components?.schemas ?? {}) });
  const cache = new Map<any, ReturnType<typeof ajv.compile>>();
  return (schema: any, value: unknown): string | null => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(rewriteRefs(schema));
      cache.set(schema, validate);
    }
    return validate(value) ? null : ajv.errorsText(validate.errors, { separator: '; ' });
  };
}

/** Every `example`/`examples` of a media type or parameter, as [name, value] pairs. */
export function examplesOf(doc: any, holder: any): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  if (holder && 'example' in holder) out.push(['example', holder.example]);
  for (const [name, ex] of Object.entries<any>(holder?.examples ?? {})) {
    const e = deref(doc, ex);
    if (e && 'value' in e) out.push([name, e.value]);
    else if (e && 'externalValue' in e) throw new Error(`example ${name}: externalValue is not allowed`);
  }
  return out;
}
