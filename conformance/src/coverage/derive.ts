// The operations a requirement governs, derived from spec/openapi.yaml where the catalogue says what
// the requirement is about (`governs:` in spec/requirements.yaml):
//
// - `fields: [Schema.Property, ...]`: every operation whose 2xx response, or whose request body,
//   carries that property of that named schema (followed through $ref, items, properties and
//   allOf/oneOf/anyOf);
// - `parameters: [name, ...]`: every operation that takes a parameter of that wire name.
//
// A hand-entered `operations:` list adds to what is derived; it never removes. A core requirement
// derives only through what the interface spec documents: a response, schema or parameter marked
// `x-implementation-defined: true` is the reference's choice, so core requirements do not derive
// through it (implementation-defined requirements do). The result is the input of the requirement x
// operation gate; it does not depend on how the operations a test calls are recorded.

type Doc = any;

interface Governs {
  fields?: string[];
  parameters?: string[];
}

export interface GovernedRequirement {
  id: string;
  level: 'core' | 'implementation-defined';
  operations?: string[];
  governs?: Governs;
}

/** What one operation carries, split by whether a core requirement may derive through it. */
export interface OperationFacts {
  operationId: string;
  /** `Schema.Property` carried by the 2xx responses and the request body. */
  fields: { core: Set<string>; all: Set<string> };
  /** Wire names of the parameters it takes. */
  parameters: { core: Set<string>; all: Set<string> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function resolve(doc: Doc, node: any): { node: any; schemaName?: string } {
  let cur = node;
  let schemaName: string | undefined;
  for (let i = 0; cur && typeof cur === 'object' && typeof cur.$ref === 'string' && i < 20; i++) {
    const ref: string = cur.$ref;
    const m = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
    if (m) schemaName = m[1];
    cur = ref
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((o: any, k) => (o == null ? undefined : o[k]), doc);
  }
  return { node: cur, schemaName };
}

const implDefined = (n: any) => n?.['x-implementation-defined'] === true;

/** Adds the `Schema.Property` names reachable from a schema; `core` is false below an implementation-defined node. */
function collectFields(
  doc: Doc,
  node: any,
  core: boolean,
  out: OperationFacts['fields'],
  seen: Set<any>,
  name?: string,
) {
  const { node: s, schemaName } = resolve(doc, node);
  if (!s || typeof s !== 'object' || seen.has(s)) return;
  seen.add(s);
  const owner = schemaName ?? name;
  const coreHere = core && !implDefined(s);
  for (const [prop, sub] of Object.entries<any>(s.properties ?? {})) {
    if (owner) {
      out.all.add(`${owner}.${prop}`);
      if (coreHere) out.core.add(`${owner}.${prop}`);
    }
    collectFields(doc, sub, coreHere && !implDefined(sub), out, seen);
  }
  if (s.items) collectFields(doc, s.items, coreHere, out, seen);
  for (const k of ['allOf', 'oneOf', 'anyOf'] as const)
    for (const sub of s[k] ?? []) collectFields(doc, sub, coreHere, out, seen, owner);
  seen.delete(s);
}

/** What each operation of the document carries (fields of 2xx responses and request bodies, parameters). */
export function operationFacts(doc: Doc): Map<string, OperationFacts> {
  const out = new Map<string, OperationFacts>();
  for (const pathItem of Object.values<any>(doc?.paths ?? {})) {
    for (const method of METHODS) {
      const op = pathItem?.[method];
      if (!op?.operationId) continue;
      const facts: OperationFacts = {
        operationId: op.operationId,
        fields: { core: new Set(), all: new Set() },
        parameters: { core: new Set(), all: new Set() },
      };
      for (const p of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]) {
        const param = resolve(doc, p).node;
        if (!param?.name) continue;
        facts.parameters.all.add(param.name);
        if (!implDefined(param) && !implDefined(p)) facts.parameters.core.add(param.name);
      }
      const bodies: Array<[any, boolean]> = [];
      for (const [status, r] of Object.entries<any>(op.responses ?? {})) {
        if (!/^2/.test(status)) continue;
        const res = resolve(doc, r).node;
        for (const c of Object.values<any>(res?.content ?? {})) bodies.push([c?.schema, !implDefined(res)]);
      }
      const body = resolve(doc, op.requestBody).node;
      for (const c of Object.values<any>(body?.content ?? {})) bodies.push([c?.schema, !implDefined(body)]);
      for (const [schema, core] of bodies)
        if (schema) collectFields(doc, schema, core && !implDefined(op), facts.fields, new Set());
      out.set(op.operationId, facts);
    }
  }
  return out;
}

export interface Governed {
  /** Every operation the requirement governs: derived ones and the hand-entered list, in document order. */
  operations: string[];
  /** Operations derived from `governs:` (whether or not also entered by hand). */
  derived: string[];
  /** Entries of `governs:` that match no operation (a typo, or a field the document does not have). */
  unmatched: string[];
}

/** The operations one requirement governs. */
export function governedOperations(r: GovernedRequirement, facts: Map<string, OperationFacts>): Governed {
  const core = r.level === 'core';
  const derived = new Set<string>();
  const unmatched: string[] = [];
  const each = (items: string[] | undefined, kind: 'fields' | 'parameters') => {
    for (const item of items ?? []) {
      for (const f of facts.values()) if ((core ? f[kind].core : f[kind].all).has(item)) derived.add(f.operationId);
      // matching nothing, even through implementation-defined parts, is a typo or a stale name
      if (![...facts.values()].some((f) => f[kind].all.has(item))) unmatched.push(`${kind}: ${item}`);
    }
  };
  each(r.governs?.fields, 'fields');
  each(r.governs?.parameters, 'parameters');
  const order = [...facts.keys()];
  const hand = r.operations ?? [];
  const all = new Set([...derived, ...hand]);
  const operations = [...hand, ...order.filter((o) => all.has(o) && !hand.includes(o))];
  return { operations, derived: order.filter((o) => derived.has(o)), unmatched };
}

/** Governed operations of every requirement of a catalogue, by requirement ID. */
export function governedByRequirement(requirements: GovernedRequirement[], doc: Doc): Map<string, Governed> {
  const facts = operationFacts(doc);
  return new Map(requirements.map((r) => [r.id, governedOperations(r, facts)]));
}
