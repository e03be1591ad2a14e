// Which requirements a schema violation breaks: the provenance of the schema node that refused the
// body (spec/generated/provenance.json, written from the `x-requirements` of spec/openapi.yaml). A
// test whose requirements include one of them is about that very shape: the violation is its own
// failure. Any other test that meets it relies on the shape as a step: it is blocked by the
// violation, not failed by an assertion the broken shape made fail (dsl.ts).
//
// The node is found by walking the response's schema along the error's instance path (properties,
// items, $ref, the members of allOf/anyOf/oneOf), not from ajv's `schemaPath`, which is relative to
// whichever schema ajv compiled as a function of its own and so does not always name the node.
import type { ErrorObject } from 'ajv';
import fs from 'node:fs';
import path from 'node:path';
import { SPEC_DIR } from '../../paths.js';

type Node = Record<string, unknown>;

let loaded: { doc: Node; provenance: Map<string, string[]> } | undefined;

/** The OpenAPI document and the provenance of its nodes (pointer → requirements), once per process. */
function load() {
  if (!loaded) {
    const read = (f: string) => JSON.parse(fs.readFileSync(path.join(SPEC_DIR, 'generated', f), 'utf8'));
    const prov = read('provenance.json') as { constraints: Array<{ pointer: string; requirements: string[] }> };
    loaded = {
      doc: read('openapi.json'),
      provenance: new Map(prov.constraints.map((c) => [c.pointer, c.requirements])),
    };
  }
  return loaded;
}

const unescape = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');
const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function at(doc: Node, pointer: string): Node | undefined {
  let n: unknown = doc;
  for (const seg of pointer.split('/').slice(1)) n = (n as Node | undefined)?.[unescape(seg)];
  return n && typeof n === 'object' ? (n as Node) : undefined;
}

/** Follows `$ref`s from `pointer`; the pointers passed through, the last one resolved. */
function resolve(doc: Node, pointer: string, trail: string[]): string {
  let p = pointer;
  for (let i = 0; i < 20; i++) {
    trail.push(p);
    const ref = at(doc, p)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return p;
    p = ref.slice(1);
  }
  return p;
}

/**
 * The schema pointers on the way from `schemaPointer` down to the value at `instancePath`, deepest
 * last. `hint` (the error's schemaPath) picks the member of a combinator the error came from, where
 * several members describe the same value (an allOf that narrows a property of a shared schema).
 */
function walk(doc: Node, schemaPointer: string, instancePath: string, hint = ''): string[] {
  const trail: string[] = [];
  let p = resolve(doc, schemaPointer, trail);
  for (const seg of instancePath.split('/').slice(1).map(unescape)) {
    const next = step(doc, p, seg, hint);
    if (!next) break;
    p = resolve(doc, next, trail);
  }
  return trail;
}

/** The pointer of the schema of member `seg` of the value the schema at `p` describes. */
function step(doc: Node, p: string, seg: string, hint = ''): string | undefined {
  const n = at(doc, p);
  if (!n) return undefined;
  const props = n.properties as Node | undefined;
  if (props && seg in props) return `${p}/properties/${escape(seg)}`;
  if (/^\d+$/.test(seg) && n.items && typeof n.items === 'object') return `${p}/items`;
  const found: Array<{ via: string; at: string }> = [];
  for (const k of ['allOf', 'anyOf', 'oneOf'])
    for (const [i] of ((n[k] as unknown[]) ?? []).entries()) {
      const next = step(doc, resolve(doc, `${p}/${k}/${i}`, []), seg, hint);
      if (next) found.push({ via: `/${k}/${i}/properties/${escape(seg)}/`, at: next });
    }
  if (found.length) return (found.find((f) => hint.includes(f.via)) ?? found[0]!).at;
  const extra = n.additionalProperties;
  if (extra && typeof extra === 'object') return `${p}/additionalProperties`;
  return undefined;
}

/**
 * The requirements whose constraint one error of a body validated against `schemaPointer` breaks,
 * and whether they come from a schema the error names below the value's own (a component reached
 * through a combinator: ajv gives its absolute schemaPath, `#/components/schemas/X/pattern`).
 */
function errorRequirements(
  doc: Node,
  provenance: Map<string, string[]>,
  schemaPointer: string,
  e: ErrorObject,
): { requirements: string[]; member: boolean } {
  const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
  const instance = missing === undefined ? e.instancePath : `${e.instancePath}/${escape(missing)}`;
  const named = e.schemaPath.startsWith('#/components/') ? e.schemaPath.slice(1).replace(/\/[^/]+$/, '') : undefined;
  if (missing === undefined && named && provenance.has(named))
    return { requirements: provenance.get(named)!, member: true };
  const trail = walk(doc, schemaPointer, instance, e.schemaPath);
  const owner = [...trail].reverse().find((p) => provenance.has(p));
  return { requirements: owner ? provenance.get(owner)! : [], member: false };
}

/** An error of one alternative of a oneOf/anyOf, or of the combinator itself. */
const ofAlternatives = (e: ErrorObject) =>
  e.keyword === 'oneOf' || e.keyword === 'anyOf' || /\/(oneOf|anyOf)\/\d+\//.test(e.schemaPath);

/**
 * The requirements whose constraints the errors of a body validated against the schema at
 * `schemaPointer` break: for each error, the provenance of the deepest node with provenance on the
 * way to the refused value (a missing required member: to the member).
 */
export function violatedRequirements(
  schemaPointer: string,
  errors: ReadonlyArray<ErrorObject> | null | undefined,
): string[] {
  return attributeErrors(schemaPointer, errors).requirements;
}

/**
 * The errors split by whether a requirement of their own states the refused constraint
 * (`attributed`, with the union of those `requirements`) or only the documented shape as a whole
 * does (`unattributed`: GEN-002's own).
 */
export function attributeErrors(
  schemaPointer: string,
  errors: ReadonlyArray<ErrorObject> | null | undefined,
): { requirements: string[]; attributed: ErrorObject[]; unattributed: ErrorObject[] } {
  const { doc, provenance } = load();
  const out = new Set<string>();
  const attributed: ErrorObject[] = [];
  const unattributed: ErrorObject[] = [];
  const found = (errors ?? []).map((e) => ({ e, ...errorRequirements(doc, provenance, schemaPointer, e) }));
  // a value that fails a oneOf/anyOf fails every alternative and the combinator too; where one
  // alternative has a requirement of its own (a nullable timestamp: the timestamp's), that one
  // names what broke, not the alternatives the value was never meant to be
  const byMember = new Set(found.filter((f) => f.member).map((f) => f.e.instancePath));
  for (const { e, requirements: all, member } of found) {
    if (!member && byMember.has(e.instancePath) && ofAlternatives(e)) {
      attributed.push(e);
      continue;
    }
    const reqs = all.filter((r) => r !== 'GEN-002');
    if (reqs.length === 0) unattributed.push(e);
    else {
      attributed.push(e);
      for (const r of reqs) out.add(r);
    }
  }
  return { requirements: [...out].sort(), attributed, unattributed };
}
