// Names the spec leaves open (docs/architecture.md section 4). The defaults are the reference
// server's names; a vendor maps its own names in the config file (`bindings:`). A binding only
// renames (or moves: a dotted path reaches into a nested body, a header name moves a value out of
// the body): it never changes what a test asserts. conformance/src/cli/binding-docs.ts says what each
// key names (the table in conformance/README.md section 3 and `conformance init`).

export interface Bindings {
  /** Header that carries the API token. */
  tokenHeader: string;
  /** Text put before the token in that header (e.g. `Bearer `); empty for the reference. */
  tokenPrefix: string;
  /** Query parameter names of GET /api/{domain}/Query (and the file query) that the spec does not name. */
  query: {
    skip: string;
    filter: string;
    linqFilter: string;
    excludeEmptyColumns: string;
    includeTotalCount: string;
  };
  /** Dotted path of the response body field that carries the total count (ignored when totalCountHeader is set).
   * Where neither finds it, a count the answer shows without doubt is recognised (not-shown-shapes.ts). */
  totalCountField: string;
  /** Response header that carries the total count instead of the body (empty: the body field). */
  totalCountHeader: string;
  /** Dotted path of the domain list in the body of GET /api/Domains (empty: the body is the array). Where no
   * array is there, the one list the answer holds is recognised (not-shown-shapes.ts). */
  domainsListField: string;
  /** Link query parameters beyond the documented ones. */
  linkQuery: {
    parentRecordId: string;
    parentRecordKey: string;
    parentRecordMatchField: string;
    childRecordKey: string;
    childRecordMatchField: string;
    relationship: string;
  };
  /** Body fields (dotted paths: `parent.domain` builds a nested body) of POST /api/Link/Upsert and /api/Link/Remove. */
  link: {
    parentDomain: string;
    parentRecordId: string;
    parentRecordKey: string;
    parentRecordMatchField: string;
    childDomain: string;
    childRecordId: string;
    childRecordKey: string;
    childRecordMatchField: string;
    relationship: string;
    newRelationship: string;
  };
  /** Link columns beyond the four documented ones. */
  linkColumns: {
    linkId: string;
    relationship: string;
  };
  /** Paths the harness itself uses. */
  paths: {
    health: string;
    linkUpsert: string;
    linkRemove: string;
  };
}

export const defaultBindings: Bindings = {
  tokenHeader: 'Token',
  tokenPrefix: '',
  query: {
    skip: 'skip',
    filter: 'filter',
    linqFilter: 'linqFilter',
    excludeEmptyColumns: 'excludeEmptyColumns',
    includeTotalCount: 'includeTotalCount',
  },
  totalCountField: 'TotalCount',
  totalCountHeader: '',
  domainsListField: 'List',
  linkQuery: {
    parentRecordId: 'parentRecordID',
    parentRecordKey: 'parentRecordKey',
    parentRecordMatchField: 'parentRecordMatchField',
    childRecordKey: 'childRecordKey',
    childRecordMatchField: 'childRecordMatchField',
    relationship: 'relationship',
  },
  link: {
    parentDomain: 'ParentDomain',
    parentRecordId: 'ParentRecordID',
    parentRecordKey: 'ParentRecordKey',
    parentRecordMatchField: 'ParentRecordMatchField',
    childDomain: 'ChildDomain',
    childRecordId: 'ChildRecordID',
    childRecordKey: 'ChildRecordKey',
    childRecordMatchField: 'ChildRecordMatchField',
    relationship: 'Relationship',
    newRelationship: 'NewRelationship',
  },
  linkColumns: {
    linkId: 'LinkID',
    relationship: 'ContactTypeID',
  },
  paths: {
    health: '/health',
    linkUpsert: '/api/Link/Upsert',
    linkRemove: '/api/Link/Remove',
  },
};

/** The value at a dotted `path` of `obj` (`''`: obj itself). */
export function atPath(obj: unknown, path: string): unknown {
  if (path === '') return obj;
  return path.split('.').reduce<any>((o, k) => (o !== null && typeof o === 'object' ? o[k] : undefined), obj);
}

/** Sets `value` at a dotted `path` of `obj`, creating the objects on the way. */
export function setAtPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur: Record<string, unknown> = obj;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]] = value;
}

/**
 * Default bindings overlaid with `overrides` (from the config file). Unknown keys are a
 * configuration error, so a typo does not silently keep the default.
 */
export function resolveBindings(overrides?: unknown): Bindings {
  const out = structuredClone(defaultBindings) as unknown as Record<string, unknown>;
  if (overrides === undefined || overrides === null) return out as unknown as Bindings;
  merge(out, overrides, 'bindings');
  return out as unknown as Bindings;
}

function merge(target: Record<string, unknown>, src: unknown, where: string): void {
  if (typeof src !== 'object' || src === null || Array.isArray(src)) {
    throw new BindingsError(`${where} must be a mapping`);
  }
  for (const [k, v] of Object.entries(src)) {
    if (!(k in target)) {
      throw new BindingsError(`unknown binding ${where}.${k} (known: ${Object.keys(target).join(', ')})`);
    }
    const cur = target[k];
    if (typeof cur === 'object' && cur !== null) {
      merge(cur as Record<string, unknown>, v, `${where}.${k}`);
    } else {
      if (typeof v !== 'string') throw new BindingsError(`${where}.${k} must be a string`);
      target[k] = v;
    }
  }
}

class BindingsError extends Error {
  override name = 'BindingsError';
}
