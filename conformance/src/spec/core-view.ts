// The core view of the OpenAPI document: what the interface specification documents, without the
// reference server's own choices. Every schema marked `x-implementation-defined: true` (a property,
// a component schema, the schema of a marked parameter) keeps its annotations but loses every
// constraint, so it accepts any value; a marked property is no longer required by its parent (and,
// since it stays under `properties`, additionalProperties: false cannot forbid it either).
// Marked responses, operations, request bodies and security schemes are kept as they are: the
// generic checks already treat a marked response as a finding, never a failure.
//
// The core profile validates responses against this view; the implementation-defined profile
// validates against the full document (conformance/src/suite-api/generic-checks/checker.ts).

export const MARKER = 'x-implementation-defined';

/** What the core view did with one marker. */
export interface CoreViewChange {
  /** JSON pointer of the marked node (same in the full document and in the view). */
  pointer: string;
  /** 'schema': constraints dropped (and the property no longer required); 'kept': marker read elsewhere. */
  action: 'schema-relaxed' | 'parameter-schema-relaxed' | 'kept';
}

/** Keys a relaxed schema keeps: annotations only, none of which constrain a value. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'example',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'externalDocs',
  '$comment',
]);

/** Keys under a schema whose value is a map of name to subschema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keys under a schema whose value is one subschema. */
const SCHEMA_ONE = new Set([
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'contentSchema',
  'additionalItems',
]);
/** Keys under a schema whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isMarked = (v: unknown): boolean => isObject(v) && v[MARKER] === true;
const tok = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** The annotations of a schema without any constraint: a schema every JSON value satisfies. */
function relaxSchema(schema: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (ANNOTATIONS.has(k) || k.startsWith('x-')) out[k] = structuredClone(v);
  }
  return out;
}

/**
 * The core view of `doc` (a deep copy; `doc` is not changed) and the list of what happened to each
 * marker. Pure: the same document gives the same view.
 */
export function coreViewWithChanges(doc: unknown): { doc: any; changes: CoreViewChange[] } {
  const changes: CoreViewChange[] = [];

  const schema = (node: unknown, ptr: string): unknown => {
    if (!isObject(node)) return structuredClone(node);
    if (isMarked(node)) {
      changes.push({ pointer: ptr, action: 'schema-relaxed' });
      return relaxSchema(node);
    }
    const out: Record<string, any> = {};
    for (const [k, v] of Object.entries(node)) {
      const p = `${ptr}/${tok(k)}`;
      if (SCHEMA_MAPS.has(k) && isObject(v)) {
        out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, schema(s, `${p}/${tok(name)}`)]));
      } else if (SCHEMA_ONE.has(k) && isObject(v)) out[k] = schema(v, p);
      else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) out[k] = v.map((s, i) => schema(s, `${p}/${i}`));
      else out[k] = structuredClone(v);
    }
    // a marked property is no longer required: the spec does not say it must be there
    if (Array.isArray(out.required) && isObject(node.properties)) {
      out.required = out.required.filter((name: unknown) => !isMarked(node.properties[String(name)]));
    }
    return out;
  };

  // Everything outside schemas: walk until a `schema` key or the components' schema map.
  const other = (node: unknown, ptr: string): unknown => {
    if (Array.isArray(node)) return node.map((v, i) => other(v, `${ptr}/${i}`));
    if (!isObject(node)) return node;
    const isParameter = typeof node.in === 'string' && typeof node.name === 'string';
    if (isMarked(node)) {
      changes.push({
        pointer: ptr,
        action: isParameter && isObject(node.schema) ? 'parameter-schema-relaxed' : 'kept',
      });
    }
    const out: Record<string, any> = {};
    for (const [k, v] of Object.entries(node)) {
      const p = `${ptr}/${tok(k)}`;
      if (k === 'schema' && isObject(v)) {
        out[k] = isParameter && isMarked(node) ? relaxSchema(v) : schema(v, p);
      } else if (k === 'schemas' && ptr === '/components' && isObject(v)) {
        out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, schema(s, `${p}/${tok(name)}`)]));
      } else if (k === 'examples' || k === 'example') {
        out[k] = structuredClone(v); // data, not schemas: never rewritten
      } else out[k] = other(v, p);
    }
    return out;
  };

  return { doc: other(doc, ''), changes };
}

/** The core view of an OpenAPI document (see coreViewWithChanges). */
export function coreView(doc: unknown): any {
  return coreViewWithChanges(doc).doc;
}
