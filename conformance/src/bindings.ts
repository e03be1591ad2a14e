// Names the spec leaves open (docs/architecture.md section 4). The defaults are the reference
// server's names; a vendor maps its own names in the config file (`bindings:`). A binding only
// renames (or moves: a dotted path reaches into a nested body, a header name moves a value out of
// the body): it never changes what a test asserts. BINDING_DOCS below is the one source of the
// table in conformance/README.md section 4 (checked by conformance/test/bindings.test.ts).

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
  /** Dotted path of the response body field that carries the total count (ignored when totalCountHeader is set). */
  totalCountField: string;
  /** Response header that carries the total count instead of the body (empty: the body field). */
  totalCountHeader: string;
  /** Dotted path of the domain list in the body of GET /api/Domains (empty: the body is the array). */
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

/** What each binding names, and the words of the spec that leave it open (README section 4). */
export const BINDING_DOCS: Record<string, { meaning: string; spec: string }> = {
  tokenHeader: {
    meaning: 'header that carries the API token',
    spec: '5: "the header that carries the token: not shown"',
  },
  tokenPrefix: {
    meaning: 'text put before the token in that header (e.g. `"Bearer "`)',
    spec: '5: "the header that carries the token: not shown"',
  },
  'query.skip': { meaning: 'query parameter of the start offset', spec: '4.2: names of the parameters "not shown"' },
  'query.filter': { meaning: 'query parameter of the filter', spec: '4.2: names of the parameters "not shown"' },
  'query.linqFilter': {
    meaning: 'query parameter of the LINQ filter',
    spec: '4.2: names of the parameters "not shown"',
  },
  'query.excludeEmptyColumns': {
    meaning: 'query parameter of empty-column suppression',
    spec: '4.2: names of the parameters "not shown"',
  },
  'query.includeTotalCount': {
    meaning: 'query parameter that asks for the total count',
    spec: '4.2: names of the parameters "not shown"',
  },
  totalCountField: {
    meaning: 'dotted path of the body field with the total count (e.g. `meta.total`)',
    spec: '4.2: "Place and name of the total count in the response: not shown"',
  },
  totalCountHeader: {
    meaning: 'response header with the total count (e.g. `X-Total-Count`); when set, the body field is not read',
    spec: '4.2: "Place and name of the total count in the response: not shown"',
  },
  domainsListField: {
    meaning: 'dotted path of the domain list in the body of `GET /api/Domains`; empty: the body is the array',
    spec: '4.4: "response envelope: not shown"',
  },
  'linkQuery.parentRecordId': {
    meaning: 'Link/Query parameter of the parent record ID',
    spec: '4.4: parameter names beyond `childDomain`, `childRecordID`, `parentDomain` not shown',
  },
  'linkQuery.parentRecordKey': {
    meaning: 'Link/Query parameter of the parent match key',
    spec: '4.4: parameter names beyond `childDomain`, `childRecordID`, `parentDomain` not shown',
  },
  'linkQuery.parentRecordMatchField': {
    meaning: 'Link/Query parameter of the parent match field',
    spec: '4.4: parameter names beyond `childDomain`, `childRecordID`, `parentDomain` not shown',
  },
  'linkQuery.childRecordKey': {
    meaning: 'Link/Query parameter of the child match key',
    spec: '4.4: "Child-side names for these parameters: not shown"',
  },
  'linkQuery.childRecordMatchField': {
    meaning: 'Link/Query parameter of the child match field',
    spec: '4.4: "Child-side names for these parameters: not shown"',
  },
  'linkQuery.relationship': {
    meaning: 'Link/Query parameter of the relationship',
    spec: '2.3: the relationship column "not shown"',
  },
  'link.parentDomain': {
    meaning: 'Link/Upsert and Link/Remove body path of the parent domain',
    spec: '4.4: Upsert body fields / Remove "Body and response: not shown"',
  },
  'link.parentRecordId': {
    meaning: 'body path of the parent record ID',
    spec: '4.4: Upsert body fields / Remove "Body and response: not shown"',
  },
  'link.parentRecordKey': {
    meaning: 'body path of the parent match key',
    spec: '4.4: Upsert body fields / Remove "Body and response: not shown"',
  },
  'link.parentRecordMatchField': {
    meaning: 'body path of the parent match field',
    spec: '4.4: Upsert body fields / Remove "Body and response: not shown"',
  },
  'link.childDomain': {
    meaning: 'body path of the child domain',
    spec: '4.4: "Body fields for the relationship and the child side: not shown"',
  },
  'link.childRecordId': {
    meaning: 'body path of the child record ID',
    spec: '4.4: "Body fields for the relationship and the child side: not shown"',
  },
  'link.childRecordKey': {
    meaning: 'body path of the child match key',
    spec: '4.4: "Body fields for the relationship and the child side: not shown"',
  },
  'link.childRecordMatchField': {
    meaning: 'body path of the child match field',
    spec: '4.4: "Body fields for the relationship and the child side: not shown"',
  },
  'link.relationship': {
    meaning: 'body path of the relationship',
    spec: '4.4: "Body fields for the relationship ...: not shown"',
  },
  'link.newRelationship': {
    meaning: 'Upsert body path of the new relationship of an existing link (implementation-defined tests only)',
    spec: '4.4: "Body fields for the relationship ...: not shown"',
  },
  'linkColumns.linkId': {
    meaning: 'link column with the link ID (implementation-defined tests only)',
    spec: '2.3: columns beyond the four documented are not shown',
  },
  'linkColumns.relationship': {
    meaning: 'link column with the relationship (requested in `columns`, read from the rows)',
    spec: '2.3: "Name and type of the relationship column in the Link record: not shown"',
  },
  'paths.health': {
    meaning: 'path the harness polls until the target answers',
    spec: 'not part of the interface',
  },
  'paths.linkUpsert': { meaning: 'path of Link/Upsert', spec: '4.4 (documented; a base path goes in --base-url)' },
  'paths.linkRemove': { meaning: 'path of Link/Remove', spec: '4.4 (documented; a base path goes in --base-url)' },
};

/** Every binding key as written in the config file (`query.skip`), in declaration order. */
export function bindingKeys(b: object = defaultBindings, prefix = ''): string[] {
  return Object.entries(b).flatMap(([k, v]) =>
    typeof v === 'object' && v !== null ? bindingKeys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

/** The markdown table of README section 4, generated from defaultBindings and BINDING_DOCS. */
export function bindingsTable(): string {
  const rows = bindingKeys().map((key) => {
    const def = key.split('.').reduce<any>((o, k) => o?.[k], defaultBindings);
    const doc = BINDING_DOCS[key];
    return `| \`${key}\` | \`${JSON.stringify(def)}\` | ${doc?.meaning ?? '?'} | ${doc?.spec ?? '?'} |`;
  });
  return [
    '| YAML key under `bindings:` | default | what it names | open in the spec |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

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
 * The total count of a query response, where the bindings put it: the `totalCountHeader` header
 * (a decimal integer) or the body at `totalCountField`. undefined when it is not there.
 */
export function totalCountOf(b: Bindings, res: { json: unknown; headers: Headers }): unknown {
  if (b.totalCountHeader) {
    const h = res.headers.get(b.totalCountHeader);
    if (h === null) return undefined;
    return /^\s*\d+\s*$/.test(h) ? Number(h) : h;
  }
  return atPath(res.json, b.totalCountField);
}

/** The domain list of a GET /api/Domains body, where the bindings put it. */
export function domainListOf(b: Bindings, body: unknown): unknown {
  return atPath(body, b.domainsListField);
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
