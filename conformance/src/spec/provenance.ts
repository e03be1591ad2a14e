// Provenance of what core enforces: every constraint of the core view of the OpenAPI document that
// the core profile judges a vendor by, or that a core request sends, traces to a requirement of the
// catalogue whose quote supports it (`x-requirements: [ID, ...]`), or carries the
// `x-implementation-defined` marker, which the core view relaxes (core-view.ts) so that it is no
// longer enforced. What counts as enforced:
// - a documented 2xx response of an operation not marked as a whole (GEN-002 validates its body):
//   the response itself (its status and media type) and every schema node under its body that
//   carries a constraint keyword (type, format, pattern, enum, const, bounds, sizes, required,
//   additionalProperties: false, a combinator);
// - every parameter of such an operation and every schema node of its request body (what a core
//   test sends).
// A node's own `x-requirements` is its provenance. A member of a combinator (allOf/oneOf/anyOf) and
// the `items` of an array inherit the provenance of the node they belong to (they are parts of one
// constraint, e.g. "a timestamp or null"); a property never inherits (each field is a sentence of
// its own), nor does the target of a `$ref` (a component is judged once, on its own). The names in
// `required` must be properties with provenance of their own.
// An ID in `x-requirements` must be a requirement of the catalogue that is not retired; on the
// response side a core one: a response constraint only an implementation-defined requirement
// supports belongs under the marker. On the request side (parameters, request bodies) an
// implementation-defined requirement may support a bound (the reference's refusal of an ID beyond
// 2^53 - 1, GEN-004): core never judges a vendor by what it accepts, and core tests send only
// values within every bound.
import type { Catalogue } from './catalogue.js';
import { coreView } from './core-view.js';

const PROVENANCE = 'x-requirements';

/** Keywords that constrain a value (annotations such as description or example do not). */
const CONSTRAINT_KEYWORDS = [
  'type',
  'format',
  'pattern',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
  'dependentRequired',
  'propertyNames',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'contentEncoding',
] as const;

type ConstraintKind = 'response' | 'response-schema' | 'parameter' | 'request-schema';

/** One enforced constraint of the core view and where its provenance comes from. */
interface EnforcedConstraint {
  /** JSON pointer of the node in the document (a component's own pointer when reached by $ref). */
  pointer: string;
  kind: ConstraintKind;
  /** The constraint keywords on the node (for a response: `status`, `content`; a parameter: `in`). */
  keywords: string[];
  /** The requirement IDs that support it; empty when it has no provenance. */
  requirements: string[];
  /** The pointer of the node the provenance was inherited from, when not the node itself. */
  inheritedFrom?: string;
}

interface ProvenanceProblem {
  pointer: string;
  problem: string;
}

export interface ProvenanceReport {
  constraints: EnforcedConstraint[];
  /** Enforced constraints without a requirement or a marker. */
  missing: EnforcedConstraint[];
  /** x-requirements that name an unknown, retired or implementation-defined requirement, or a required name without provenance. */
  problems: ProvenanceProblem[];
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const tok = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
const untok = (k: string) => k.replace(/~1/g, '/').replace(/~0/g, '~');

function at(doc: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((n, k) => (isObject(n) ? n[untok(k)] : undefined), doc);
}

function ownProvenance(node: Record<string, any>): string[] | undefined {
  const v = node[PROVENANCE];
  return Array.isArray(v) ? v.map(String) : undefined;
}

function constraintKeywords(node: Record<string, any>): string[] {
  const out: string[] = CONSTRAINT_KEYWORDS.filter((k) => k in node);
  if (node.additionalProperties === false) out.push('additionalProperties');
  return out;
}

/**
 * Every enforced constraint of the core view of `doc` with its provenance, the ones without any,
 * and the IDs that cannot be provenance (checked against `catalogue`).
 */
export function provenanceOf(doc: unknown, catalogue: Catalogue): ProvenanceReport {
  const view = coreView(doc);
  const constraints: EnforcedConstraint[] = [];
  const problems: ProvenanceProblem[] = [];
  const seen = new Set<string>();

  const record = (c: EnforcedConstraint) => {
    constraints.push(c);
    for (const id of c.inheritedFrom ? [] : c.requirements) {
      const r = catalogue.byId.get(id);
      if (!r)
        problems.push({ pointer: c.pointer, problem: `${PROVENANCE} names ${id}, which is not in the catalogue` });
      else if (r.retired) problems.push({ pointer: c.pointer, problem: `${PROVENANCE} names ${id}, which is retired` });
      // request-side bounds say what the reference accepts (an implementation-defined choice may
      // support them); the core profile judges no vendor by them, only by what it answers
      else if (r.level !== 'core' && (c.kind === 'response' || c.kind === 'response-schema'))
        problems.push({
          pointer: c.pointer,
          problem: `${PROVENANCE} names ${id}, an implementation-defined requirement: mark the node x-implementation-defined instead`,
        });
    }
  };

  /** A schema node (after $ref) and the provenance it may inherit from the node it is part of. */
  const schema = (
    node: unknown,
    pointer: string,
    kind: 'response-schema' | 'request-schema',
    inherited?: { requirements: string[]; from: string },
  ): void => {
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      const target = node.$ref.slice(1);
      // a component is judged once, on its own provenance
      if (!seen.has(`${kind}:${target}`)) {
        seen.add(`${kind}:${target}`);
        schema(at(view, target), target, kind);
      }
    }
    const own = ownProvenance(node);
    const prov = own ? { requirements: own, from: pointer } : inherited;
    const keywords = constraintKeywords(node);
    if (keywords.length > 0)
      record({
        pointer,
        kind,
        keywords,
        requirements: prov?.requirements ?? [],
        ...(prov && prov.from !== pointer ? { inheritedFrom: prov.from } : {}),
      });
    if (Array.isArray(node.required) && isObject(node.properties)) {
      for (const name of node.required) {
        const p = node.properties[String(name)];
        const target = isObject(p) && typeof p.$ref === 'string' ? at(view, p.$ref.slice(1)) : p;
        if (!isObject(p) || (!ownProvenance(p) && !(isObject(target) && ownProvenance(target))))
          problems.push({
            pointer: `${pointer}/required`,
            problem: `required property '${String(name)}' has no ${PROVENANCE} of its own`,
          });
      }
    }
    for (const key of ['properties', 'patternProperties'] as const)
      if (isObject(node[key]))
        for (const [name, sub] of Object.entries(node[key])) schema(sub, `${pointer}/${key}/${tok(name)}`, kind);
    for (const key of ['items', 'additionalProperties', 'contains', 'not', 'propertyNames'] as const)
      if (isObject(node[key]))
        schema(node[key], `${pointer}/${key}`, kind, key === 'items' || key === 'not' ? prov : undefined);
    for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const)
      if (Array.isArray(node[key]))
        node[key].forEach((sub: unknown, i: number) => schema(sub, `${pointer}/${key}/${i}`, kind, prov));
  };

  const deref = (node: unknown, pointer: string): { node: unknown; pointer: string } =>
    isObject(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#/')
      ? { node: at(view, node.$ref.slice(1)), pointer: node.$ref.slice(1) }
      : { node, pointer };

  for (const [path, item] of Object.entries<any>(view.paths ?? {})) {
    if (!isObject(item)) continue;
    const itemPtr = `/paths/${tok(path)}`;
    for (const [method, op] of Object.entries<any>(item)) {
      if (!isObject(op) || !isObject(op.responses) || op['x-implementation-defined'] === true) continue;
      const opPtr = `${itemPtr}/${method}`;
      // responses the core profile judges: documented 2xx statuses not marked
      for (const [status, raw] of Object.entries(op.responses)) {
        if (!/^2/.test(status)) continue;
        const { node: res, pointer: resPtr } = deref(raw, `${opPtr}/responses/${status}`);
        if (!isObject(res) || res['x-implementation-defined'] === true) continue;
        const own = ownProvenance(res);
        const content = isObject(res.content) ? res.content : {};
        record({
          pointer: resPtr,
          kind: 'response',
          keywords: ['status', ...(Object.keys(content).length ? ['content'] : [])],
          requirements: own ?? [],
        });
        for (const [media, c] of Object.entries<any>(content))
          if (isObject(c?.schema) && !seen.has(`response-schema:${resPtr}/content/${tok(media)}`)) {
            seen.add(`response-schema:${resPtr}/content/${tok(media)}`);
            schema(c.schema, `${resPtr}/content/${tok(media)}/schema`, 'response-schema');
          }
      }
      // what a core request sends: parameters (path-level ones included) and the request body
      const params = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(op.parameters ?? [])];
      params.forEach((raw: unknown, i: number) => {
        const { node: p, pointer: pPtr } = deref(raw, `${opPtr}/parameters/${i}`);
        if (!isObject(p) || p['x-implementation-defined'] === true || seen.has(`parameter:${pPtr}`)) return;
        seen.add(`parameter:${pPtr}`);
        const own = ownProvenance(p);
        record({
          pointer: pPtr,
          kind: 'parameter',
          keywords: ['in', ...(p.required ? ['required'] : [])],
          requirements: own ?? [],
        });
        if (isObject(p.schema))
          schema(p.schema, `${pPtr}/schema`, 'request-schema', own ? { requirements: own, from: pPtr } : undefined);
      });
      if (op.requestBody) {
        const { node: body, pointer: bPtr } = deref(op.requestBody, `${opPtr}/requestBody`);
        if (isObject(body) && body['x-implementation-defined'] !== true)
          for (const [media, c] of Object.entries<any>(isObject(body.content) ? body.content : {}))
            if (isObject(c?.schema)) schema(c.schema, `${bPtr}/content/${tok(media)}/schema`, 'request-schema');
      }
    }
  }
  const missing = constraints.filter((c) => c.requirements.length === 0);
  return { constraints, missing, problems };
}
