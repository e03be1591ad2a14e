// Generated bad requests for the reliability tests, driven by spec/generated/openapi.json: every
// operation's parameters (name, place, type, enum) and request-body schema (properties, types,
// required) decide which wrong types, missing and extra fields, huge values and injections are
// tried. A generated request is a valid template (one per operation shape, on data the test set
// up) with one to three mutations; each mutation says what the answer must at least be.
//
// Data safety: templates of mutating operations only name sacrificial records, and mutations only
// put identifiers there that name no record (or the sacrificial ones), so that a bad request that
// happens to be acceptable can only change sacrificial data (the test's snapshot leaves it out).
import fc from 'fast-check';
import type { operations } from '../../../spec/generated/openapi.js';
import { loadOpenApi } from '../../../conformance/src/spec/openapi.js';
import { MAX_URL_CHARS } from '../../src/limits.js';
import { DOMAINS } from '../../src/dictionary.js';

// ---------------------------------------------------------------------------------------------
// The spec's operations

type Kind = 'integer' | 'number' | 'boolean' | 'string' | 'object' | 'array' | 'null';

interface ParamInfo {
  name: string;
  in: 'path' | 'query';
  kind: Kind;
  enum?: string[];
}

interface SchemaInfo {
  kinds: Kind[];
  properties: Record<string, SchemaInfo>;
  required: string[];
  items?: SchemaInfo;
}

export interface OpInfo {
  id: string;
  method: string;
  path: string;
  params: ParamInfo[];
  body?: SchemaInfo;
  statuses: number[];
}

export function loadOps(): Map<string, OpInfo> {
  const doc = loadOpenApi().doc;
  const resolve = (o: any): any => {
    let cur = o;
    for (let i = 0; i < 20 && cur && typeof cur.$ref === 'string'; i++) {
      cur = cur.$ref
        .slice(2)
        .split('/')
        .map((k: string) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce((a: any, k: string) => a?.[k], doc);
    }
    return cur;
  };
  const schemaInfo = (raw: any, depth = 0): SchemaInfo => {
    const s = resolve(raw) ?? {};
    const out: SchemaInfo = { kinds: [], properties: {}, required: [] };
    // allOf nests (the link body: its own part, then LinkIdentification, whose fields sit in an
    // allOf of their own beside the per-side alternatives): every level's properties count.
    const allOfParts = (x: any, n = 0): any[] =>
      n > 5 ? [] : [x, ...((x?.allOf as unknown[]) ?? []).flatMap((p) => allOfParts(resolve(p), n + 1))];
    const parts = allOfParts(s);
    for (const p of parts) {
      const types = Array.isArray(p?.type) ? p.type : p?.type ? [p.type] : [];
      for (const t of types) if (!out.kinds.includes(t)) out.kinds.push(t);
      for (const r of (p?.required as string[]) ?? []) if (!out.required.includes(r)) out.required.push(r);
      if (depth < 4)
        for (const [k, v] of Object.entries((p?.properties as Record<string, unknown>) ?? {}))
          out.properties[k] = schemaInfo(v, depth + 1);
      if (p?.items && depth < 4) out.items = schemaInfo(p.items, depth + 1);
    }
    if (out.kinds.length === 0 && Object.keys(out.properties).length) out.kinds.push('object');
    return out;
  };
  const kindOf = (raw: any): Kind => {
    const s = resolve(raw);
    if (typeof raw?.$ref === 'string' && /Boolean/.test(raw.$ref)) return 'boolean';
    if (s?.type === 'integer' || s?.type === 'number') return 'integer';
    if (s?.type === 'boolean' || /"boolean"/.test(JSON.stringify(s ?? {}))) return 'boolean';
    return 'string';
  };
  const ops = new Map<string, OpInfo>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !(op as any).responses) continue;
      const o = op as any;
      const params: ParamInfo[] = [...(item.parameters ?? []), ...(o.parameters ?? [])]
        .map(resolve)
        .filter((p: any) => p.in === 'path' || p.in === 'query')
        .map((p: any) => {
          const s = resolve(p.schema);
          return {
            name: p.name,
            in: p.in,
            kind: kindOf(p.schema),
            enum: Array.isArray(s?.enum) ? s.enum.map(String) : undefined,
          };
        });
      const rb = resolve(o.requestBody);
      const bodySchema = rb?.content?.['application/json']?.schema;
      ops.set(o.operationId, {
        id: o.operationId,
        method: method.toUpperCase(),
        path,
        params,
        body: bodySchema ? schemaInfo(bodySchema) : undefined,
        statuses: Object.keys(o.responses).map(Number),
      });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------
// Templates: valid requests on the test's data

export interface Fixture {
  token: string;
  expiredToken: string;
  /** read-only targets (any data) */
  claimId: number;
  contactId: number;
  fileId: number;
  inspectionId: number;
  seededProposalId: number;
  /** sacrificial targets of the mutating operations */
  parent: { domain: string; id: number; textField: string; textKey: string };
  contact: { id: number; numericField: string; numericKey: number; textField: string; textKey: string };
  file: number;
  quote: { id: number; locationIds: number[] };
  endorsement: { id: number; locationIds: number[] };
}

/** Provider-state setup, however the test reaches the endpoint (app.request or real HTTP). */
export type StateFn = (name: string, params?: Record<string, unknown>) => Promise<Record<string, any>>;

/** The sacrificial records the mutating templates target, made through provider states. */
export async function fixtureStates(state: StateFn, fileTag: string) {
  return {
    parent: await state('a link parent'),
    contact: await state('a contact'),
    file: await state('a file', {
      kind: 'internal',
      linked: false,
      fileName: `${fileTag}.txt`,
      contentsBase64: Buffer.from(fileTag).toString('base64'),
    }),
    quote: await state('a proposal', { type: 'Quote', locations: 3 }),
    endorsement: await state('a proposal', { type: 'Endorsement', locations: 2 }),
  };
}

/** The fixture from those states plus the read-only targets of the seeded demo data in `db`. */
export function fixtureFrom(
  db: { prepare(sql: string): { get(): unknown } },
  s: Awaited<ReturnType<typeof fixtureStates>>,
  tokens: { token: string; expiredToken: string },
): Fixture {
  const one = (sql: string) => (db.prepare(sql).get() as { id: number }).id;
  return {
    ...tokens,
    claimId: one(`SELECT min(ClaimID) AS id FROM Claim`),
    contactId: one(`SELECT min(ContactID) AS id FROM Contact`),
    fileId: one(`SELECT min(FileID) AS id FROM "File"`),
    inspectionId: one(`SELECT min(InspectionID) AS id FROM "Custom.Inspection"`),
    seededProposalId: one(`SELECT min(ProposalID) AS id FROM Proposal`),
    parent: {
      domain: s.parent.domain,
      id: s.parent.id,
      textField: s.parent.textMatchField,
      textKey: s.parent.textMatchKey,
    },
    contact: {
      id: s.contact.contactId,
      numericField: s.contact.numericMatchField,
      numericKey: s.contact.numericMatchKey,
      textField: s.contact.textMatchField,
      textKey: s.contact.textMatchKey,
    },
    file: s.file.fileId,
    quote: { id: s.quote.proposalId, locationIds: s.quote.locationIds },
    endorsement: { id: s.endorsement.proposalId, locationIds: s.endorsement.locationIds },
  };
}

export interface Template {
  op: string;
  pathParams: Record<string, string>;
  query: Array<[string, string]>;
  body?: unknown;
  /** Changes data: identifiers that mutations put in must name no record. */
  mutating: boolean;
}

/** The operationIds of the spec (spec/generated/openapi.ts): the templates' keys. */
type OperationId = keyof operations;

/**
 * Valid requests on the test's data, by operation: the operation list is the spec's (a new operation
 * without templates fails `tsc`, and auth-limits.test.ts's coverage test); what is written here is
 * only each operation's requests, which the spec cannot give (data the test made, mutating or not).
 */
export function templates(fx: Fixture): Template[] {
  const P = String(fx.quote.id);
  const E = String(fx.endorsement.id);
  const t = (
    pathParams: Record<string, string>,
    query: Array<[string, string]> = [],
    body?: unknown,
    mutating = false,
  ): Omit<Template, 'op'> => ({ pathParams, query, body, mutating });
  const linkById = {
    ParentDomain: fx.parent.domain,
    ParentRecordID: fx.parent.id,
    ChildDomain: 'Contact',
    ChildRecordID: fx.contact.id,
    Relationship: 'ADJ',
  };
  const linkByMatch = {
    ParentDomain: fx.parent.domain,
    ParentRecordMatchField: fx.parent.textField,
    ParentRecordKey: fx.parent.textKey,
    ChildDomain: 'Contact',
    ChildRecordMatchField: fx.contact.numericField,
    ChildRecordKey: fx.contact.numericKey,
  };
  const linkFile = {
    ParentDomain: fx.parent.domain,
    ParentRecordID: fx.parent.id,
    ChildDomain: 'File',
    ChildRecordID: fx.file,
  };
  const upsert = {
    Inserts: [{ Fields: { LocationName: 'Fuzz Depot', City: 'Portland', ZipCode: '97201' } }],
    Updates: [{ ID: fx.quote.locationIds[0], Fields: { City: 'Salem' } }],
    Deletes: [{ ID: fx.quote.locationIds[1] }],
  };
  const byOperation: { [K in OperationId]: Array<Omit<Template, 'op'>> } = {
    listDomains: [t({})],
    getRecord: [
      t({ domain: 'Claim', id: String(fx.claimId) }, [
        ['columns', 'ClaimNumber, Location.Name as Loc, Custom2Code.Description'],
        ['resolveAssociationNames', 'true'],
      ]),
      t({ domain: 'Custom.Inspection', id: String(fx.inspectionId) }, []),
      t({ domain: 'Contact', id: String(fx.contactId) }, [['columns', 'FirstName,LastName,ContactCode']]),
    ],
    queryRecords: [
      t({ domain: 'Claim' }, [
        ['columns', 'ClaimNumber,ReserveAmount,Location.City'],
        ['filter', 'Status:eq:Open&&ReserveAmount:gt:100'],
        ['sort', 'LossDate desc,ClaimNumber'],
        ['take', '5'],
        ['skip', '0'],
        ['includeTotalCount', 'true'],
      ]),
      t({ domain: 'Contact' }, [
        ['linqFilter', '(LastName == "Doe" || ContactCode >= 1002) && Email.Contains("example")'],
        ['excludeEmptyColumns', 'Y'],
      ]),
      t({ domain: 'Custom.Inspection' }, [
        ['columns', 'InspectionNumber,Severity.Code,Location'],
        ['resolveAssociationNames', '1'],
      ]),
      t({ domain: 'ProposalVehicle' }, [
        ['columns', 'VIN,Year'],
        ['sort', 'Year desc'],
        ['linqFilter', 'Year > 2000 || VIN == null'],
      ]),
      t({ domain: 'Location' }, [
        ['columns', 'City,Name'],
        ['sort', 'City'],
        ['filter', 'City:startswith:P'],
      ]),
    ],
    listAttachedFiles: [
      t({ domain: 'Claim', id: String(fx.claimId) }, [
        ['columns', 'FileName,FileSize,MimeType'],
        ['take', '10'],
        ['sort', 'FileName desc'],
      ]),
    ],
    queryFiles: [
      t({}, [
        ['columns', 'FileName,MimeType,IsUnlinked'],
        ['filter', 'FileName:contains:.p'],
        ['take', '3'],
      ]),
    ],
    getFile: [t({ id: String(fx.fileId) }, [['columns', 'FileName,Contents,DownloadURL']])],
    queryLinks: [
      t({}, [
        ['parentDomain', 'Claim'],
        ['parentRecordID', String(fx.claimId)],
        ['columns', 'ParentID,ChildID,ChildDomainID,ContactTypeID'],
      ]),
      t({}, [
        ['childDomain', 'Contact'],
        ['childRecordMatchField', fx.contact.numericField],
        ['childRecordKey', String(fx.contact.numericKey)],
        ['relationship', 'ADJ'],
      ]),
    ],
    upsertLink: [t({}, [], linkById, true), t({}, [], linkByMatch, true), t({}, [], linkFile, true)],
    removeLink: [t({}, [], linkById, true), t({}, [], linkFile, true)],
    getBindStatus: [t({ proposalId: String(fx.seededProposalId) }), t({ proposalId: P })],
    queueBindQuote: [
      t(
        { proposalId: P },
        [
          ['billingFrequencyCode', 'M'],
          ['billingStatus', 'B'],
        ],
        undefined,
        true,
      ),
    ],
    bindQuote: [t({ proposalId: P }, [], undefined, true)],
    createMember: [t({ proposalId: E }, [], undefined, true)],
    upsertSchedules: [
      t({ proposalId: P, domain: 'ProposalLocation' }, [['isAtomic', 'true']], upsert, true),
      t({ proposalId: P, domain: 'ProposalLocation' }, [['isAtomic', 'false']], upsert, true),
      t(
        { proposalId: P, domain: 'ProposalVehicle' },
        [],
        { Inserts: [{ Fields: { VIN: 'FUZZ0000000000001', Year: 2020, Make: 'Ford' } }], Updates: [], Deletes: [] },
        true,
      ),
      t(
        { proposalId: E, domain: 'ProposalLocation' },
        [['isAtomic', 'true']],
        { Inserts: [], Updates: [{ ID: fx.endorsement.locationIds[0], Fields: { City: 'Eugene' } }], Deletes: [] },
        true,
      ),
    ],
    deleteSchedule: [
      t(
        { proposalId: P, domain: 'ProposalLocation', scheduleId: String(fx.quote.locationIds[2]) },
        [],
        undefined,
        true,
      ),
      t(
        { proposalId: E, domain: 'ProposalLocation', scheduleId: String(fx.endorsement.locationIds[0]) },
        [],
        undefined,
        true,
      ),
    ],
    reinstateSchedule: [
      t(
        { proposalId: E, domain: 'ProposalLocation', scheduleId: String(fx.endorsement.locationIds[1]) },
        [],
        undefined,
        true,
      ),
    ],
    authenticate: [
      t({}, [], { Account: 'fuzz-nobody', User: 'nobody', Password: 'not-a-password', ClientName: 'fuzz' }, true),
    ],
  };
  return Object.entries(byOperation).flatMap(([op, list]) => list.map((x) => ({ op, ...x })));
}

// ---------------------------------------------------------------------------------------------
// Value generators

const INJECTIONS = [
  "' OR '1'='1",
  '1; DROP TABLE Claim;--',
  '" OR ""="',
  '1) OR (1=1',
  "') OR 1=1 --",
  'ClaimNumber; DELETE FROM Claim',
  '*/ UNION SELECT PasswordHash FROM users --',
  "x' UNION SELECT Token, 1 FROM tokens --",
  '%27%20OR%201%3D1',
  '1 OR 1=1',
  "ClaimNumber:eq:x' OR 1=1--",
  'ClaimNumber:eq:1&&1=1',
  'ClaimID:gt:0) OR (1=1',
  'ClaimNumber == "x" || 1 == 1',
  'ClaimNumber == "x\\" || \\"1\\" == \\"1"',
  '(SELECT 1)',
  'randomblob(1000000000)',
  "load_extension('/tmp/x')",
  'sqlite_master',
  'ClaimNumber COLLATE NOCASE',
  'ClaimNumber as x, (SELECT 1) as y',
  'Location.Name) --',
  'ClaimNumber desc; --',
  'ClaimNumber desc, (CASE WHEN 1 THEN 1 END)',
  'ClaimID/**/',
  '"ClaimNumber"',
  '`ClaimNumber`',
  '[ClaimNumber]',
  't.ClaimNumber',
  'Location.Location.Name',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__proto__.polluted',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '\u0000',
  '\\',
  '"',
  "'",
  '`',
  '$(id)',
  '|| ls',
  '&&',
  '||',
  ':',
  '::',
  ':eq:',
  '%00',
  '%',
  '%%',
  '\r\nX-Injected: 1',
  '\n',
  '\t',
];

const UNICODE = [
  'Ｃｌａｉｍ',
  'Cláim',
  'Claim\u200b',
  'Claim\u00a0',
  '\u202eClaim',
  'İ',
  'ß',
  'Σ',
  '🙂',
  '👨‍👩‍👧‍👦',
  '\ufeff',
  '\ud800',
  '\udfff',
  'a\u0301',
  '١٢٣',
  '１２３',
  '\u2028',
  '\u0085',
  '￿',
];

const DOMAIN_NAMES = [
  'Claim',
  'Contact',
  'Location',
  'File',
  'Note',
  'Policy',
  'Task',
  'Incident',
  'Member',
  'Proposal',
  'ProposalLocation',
  'ProposalVehicle',
  'PolicyChange',
  'DataEntryEvent',
  'Custom.Inspection',
];
/** Names that are never a valid linkable child and never the parent with the sacrificial IDs' data. */
const BAD_DOMAINS = [
  'claim',
  'CLAIM',
  'Claims',
  'contact',
  'CONTACT',
  'file',
  'FILE',
  'Files',
  'custom.Inspection',
  'Custom.inspection',
  'Custom.',
  'Custom.Unknown',
  'Inspection',
  'Link',
  'Links',
  'Domains',
  'Query',
  'Unknown',
  'users',
  'tokens',
  'links',
  'sqlite_master',
  'Claim ',
  ' Claim',
  'Claim.Location',
];

const str = (maxLength = 40) => fc.string({ maxLength });
const anyUnicode = fc.oneof(
  fc.constantFrom(...UNICODE),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
);
const injection = fc.constantFrom(...INJECTIONS);
const hugeString = fc
  .tuple(fc.constantFrom(300, 2_000, 9_000, 60_000), fc.constantFrom('a', 'é', '🙂', "'", '%', '(', ','))
  .map(([n, c]) => c.repeat(n));
const weirdText = fc.oneof(
  { weight: 3, arbitrary: injection },
  { weight: 2, arbitrary: anyUnicode },
  { weight: 2, arbitrary: str() },
  { weight: 1, arbitrary: hugeString },
);

/** Integer-typed text that is certainly not an acceptable integer (always refused). */
const badIntText = fc.oneof(
  fc.constantFrom(
    'abc',
    '1.5',
    '1e3',
    '0x10',
    'NaN',
    'Infinity',
    '-Infinity',
    'null',
    'undefined',
    'true',
    '1 2',
    "1'",
    '1;',
    '1--',
    '99999999999999999999',
    '9'.repeat(40),
    '１',
    '١',
    '1_000',
    '1,000',
    '[1]',
    '{}',
    '1%00',
    '1 OR 1=1',
    ' 1',
    '1 ',
  ),
  fc
    .double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })
    .filter((d) => !Number.isInteger(d))
    .map(String),
  injection,
  anyUnicode.filter((s) => !/^\s*[-+]?\d+\s*$/.test(s)),
);
/** An integer that names no record (a valid integer, or refused). */
const unknownId = fc.oneof(
  fc.integer({ min: 1_000_000_000, max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: -1_000_000, max: 0 }),
);
const unknownIdText = fc.oneof(unknownId.map(String), fc.constantFrom('999999999999999', '-0', '0', '-1'));
/** Any id text for read-only operations. */
const anyIdText = fc.oneof(
  badIntText,
  unknownIdText,
  fc.integer({ min: 1, max: 50 }).map(String),
  fc.constantFrom('01', '+1', '007'),
);

/** A boolean query value that is certainly not one of the accepted words. */
const badBool = fc
  .oneof(
    fc.constantFrom(
      'maybe',
      '2',
      'TRUE',
      'FALSE',
      'yes',
      'no',
      'y',
      'n',
      't',
      'f',
      'on',
      'off',
      ' true',
      'true ',
      'tru',
      '-1',
      '10',
      '00',
      'null',
      '[]',
    ),
    injection,
    anyUnicode,
  )
  .filter((s) => !['true', 'True', 'Yes', 'Y', '1', 'false', 'False', 'No', 'N', '0'].includes(s));

const FIELDS = [
  'ClaimNumber',
  'ClaimantName',
  'ReserveAmount',
  'LossDate',
  'Status',
  'Location',
  'Location.Name',
  'Location.Nope',
  'Custom2Code',
  'Custom2Code.Code',
  'Custom2Code.Description',
  'Notes',
  'EntryDate',
  'ClaimID',
  'Policy.PolicyNumber',
  'Policy.Member.Name',
  'FirstName',
  'LastName',
  'ContactCode',
  'Email',
  'FileName',
  'Contents',
  'DownloadURL',
  'MimeType',
  'IsUnlinked',
  'ParentID',
  'ChildID',
  'LinkID',
  'ContactTypeID',
  'InspectionNumber',
  'Severity.Code',
  'Nope',
  'claimnumber',
  '',
  ' ',
  '__proto__',
  'constructor',
  'a.b.c',
  '1abc',
  'Claim Number',
];
const field = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: weirdText });
const OPS = [
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'contains',
  'startswith',
  'isnull',
  'notnull',
  'EQ',
  'like',
  'in',
  '=',
  '==',
  '',
  ' eq ',
];
const filterValue = fc.oneof(
  str(20),
  injection,
  anyUnicode,
  fc.constantFrom('', '1e999', '-0', '9007199254740993', '2024-13-45', 'true', 'null', '%', '_', '\\'),
  hugeString,
);
const filterArb = fc
  .array(
    fc.tuple(field, fc.constantFrom(...OPS), filterValue).map(([f, o, v]) => `${f}:${o}:${v}`),
    { minLength: 1, maxLength: 4 },
  )
  .chain((conds) => fc.constantFrom('&&', '&', '||', ' AND ', ',', '&&&&').map((sep) => conds.join(sep)));
const LINQ_TOKENS = [
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '&&',
  '||',
  '(',
  ')',
  '((',
  '))',
  '.Contains(',
  '.StartsWith(',
  '.EndsWith(',
  '"x"',
  '"',
  '"unterminated',
  "'x'",
  'null',
  'true',
  'false',
  '1',
  '-1',
  '1.5e3',
  '1e999',
  '!',
  ',',
  '=',
  '.',
  'Contains',
  'new',
  '=>',
  '\\"',
  '"\\q"',
];
const linqArb = fc.oneof(
  fc.array(fc.oneof(field, fc.constantFrom(...LINQ_TOKENS)), { minLength: 1, maxLength: 14 }).map((a) => a.join(' ')),
  fc
    .tuple(field, fc.constantFrom('==', '!=', '>', '<=', '.Contains', '.StartsWith'), filterValue)
    .map(([f, o, v]) => (o.startsWith('.') ? `${f}${o}("${v}")` : `${f} ${o} "${v}"`)),
  fc.integer({ min: 20, max: 400 }).map((n) => '('.repeat(n) + 'ClaimNumber == "x"' + ')'.repeat(n)),
  fc
    .tuple(fc.integer({ min: 90, max: 1_300 }), fc.constantFrom('City', 'VIN', 'Year', 'Notes'))
    .map(([n, f]) => Array(n).fill(`${f}==1`).join('||')),
  injection,
);
const alias = fc.oneof(
  fc.constantFrom('A', 'x_1', '__proto__', 'constructor', 'toString', '"x"', 'a b', 'a-b', '1a', '', 'ClaimNumber'),
  weirdText,
);
const columnsArb = fc.oneof(
  fc
    .array(
      fc.oneof(
        field,
        fc.tuple(field, alias).map(([f, a]) => `${f} as ${a}`),
        fc.tuple(field, alias).map(([f, a]) => `${f} AS ${a} as ${a}`),
      ),
      { minLength: 1, maxLength: 6 },
    )
    .map((a) => a.join(',')),
  fc
    .tuple(fc.integer({ min: 400, max: 2_600 }), fc.constantFrom('VIN', 'City', 'Year', 'Name'))
    .map(([n, f]) => Array(n).fill(f).join(',')),
  injection,
  hugeString,
);
const sortArb = fc.oneof(
  fc
    .array(
      fc
        .tuple(field, fc.constantFrom('', ' asc', ' desc', ' DESC', ' ascending', ' sideways', ' desc desc', ';'))
        .map(([f, d]) => f + d),
      { minLength: 1, maxLength: 5 },
    )
    .map((a) => a.join(',')),
  fc
    .tuple(fc.integer({ min: 90, max: 2_600 }), fc.constantFrom('VIN', 'City', 'Year', 'Name'))
    .map(([n, f]) => Array(n).fill(f).join(',')),
  injection,
);

/** A bad value for a query parameter, by its name and spec type; `certain` when it must be refused. */
function badQueryValue(
  p: ParamInfo,
  mutating: boolean,
): fc.Arbitrary<{ value: string; certain: boolean; what: string }> {
  const tag = (what: string, certain: boolean) => (value: string) => ({ value, certain, what: `${what}:${p.name}` });
  switch (p.name) {
    case 'columns':
      return columnsArb.map(tag('columns', false));
    case 'sort':
      return sortArb.map(tag('sort', false));
    case 'filter':
      return filterArb.map(tag('filter', false));
    case 'linqFilter':
      return linqArb.map(tag('linqFilter', false));
    case 'parentDomain':
    case 'childDomain':
      return fc.oneof(fc.constantFrom(...DOMAIN_NAMES, ...BAD_DOMAINS), weirdText).map(tag('domain', false));
    case 'parentRecordMatchField':
    case 'childRecordMatchField':
      return field.map(tag('matchField', false));
    case 'parentRecordKey':
    case 'childRecordKey':
    case 'relationship':
    case 'billingFrequencyCode':
      return fc
        .oneof(weirdText, fc.constantFrom('', 'ADJ', 'adj', 'Adjuster', 'XYZ', '1001', '1e3'))
        .map(tag(p.name, false));
  }
  if (p.kind === 'integer') {
    const extra = p.name === 'take' ? ['0', '-1', '-99999'] : p.name === 'skip' ? ['-1', '-99999'] : [];
    return fc.oneof(
      { weight: 4, arbitrary: badIntText.map(tag('wrong-type', true)) },
      { weight: 1, arbitrary: (extra.length ? fc.constantFrom(...extra) : badIntText).map(tag('out-of-range', true)) },
      { weight: 1, arbitrary: (mutating ? unknownIdText : anyIdText).map(tag('odd-integer', false)) },
    );
  }
  if (p.kind === 'boolean') return badBool.map(tag('wrong-type', true));
  if (p.enum)
    return fc
      .oneof(weirdText, fc.constantFrom(...p.enum.map((e) => e.toLowerCase()), '', ' B', 'BB'))
      .filter((v) => !p.enum!.includes(v))
      .map(tag('not-in-enum', true));
  return weirdText.map(tag('weird', false));
}

// ---------------------------------------------------------------------------------------------
// Body mutations (schema-driven)

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A JSON value of a kind other than `kinds` (wrong type), or any value when kinds is empty. */
function wrongType(kinds: Kind[]): fc.Arbitrary<Json> {
  const all: Array<[Kind, fc.Arbitrary<Json>]> = [
    ['string', fc.oneof(str(10), fc.constantFrom('1', '', 'true', 'null', '[]'))],
    ['integer', fc.oneof(fc.integer(), fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -0))],
    ['number', fc.double({ noNaN: true, noDefaultInfinity: true })],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(fc.oneof(fc.integer(), str(5)), { maxLength: 3 })],
    ['object', fc.dictionary(str(6), fc.oneof(fc.integer(), str(5)), { maxKeys: 3 })],
  ];
  const numeric = kinds.includes('integer') || kinds.includes('number');
  const candidates = all.filter(([k]) => !kinds.includes(k) && !(numeric && (k === 'integer' || k === 'number')));
  return fc.oneof(...candidates.map(([, a]) => a));
}

/** An extreme value of the right kind: huge, unicode or an injection. */
function extreme(kinds: Kind[], mutating: boolean): fc.Arbitrary<Json> {
  if (kinds.includes('integer') || kinds.includes('number')) {
    const ints = mutating ? unknownId : fc.oneof(unknownId, fc.integer({ min: 1, max: 50 }));
    return fc.oneof(
      ints,
      fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 1e21, 0.1, -0, 4.9e-324),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
  }
  if (kinds.includes('string')) return weirdText;
  return fc.oneof(weirdText, fc.integer());
}

/** The text is JSON whose root is an object (what the body-reading operations need). */
function parsesToObject(text: string): boolean {
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

function deepNest(n: number): string {
  return '['.repeat(n) + ']'.repeat(n);
}

interface BodyMutation {
  body: string | Uint8Array;
  what: string;
  /** certainly refused by an operation that reads its body */
  certain: boolean;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** Paths (key lists) of every property in a JSON value, with the schema that describes it. */
function propertyPaths(
  v: unknown,
  s: SchemaInfo | undefined,
  prefix: Array<string | number> = [],
): Array<{ path: Array<string | number>; schema?: SchemaInfo }> {
  const out: Array<{ path: Array<string | number>; schema?: SchemaInfo }> = [];
  if (Array.isArray(v))
    v.forEach((x, i) => {
      out.push({ path: [...prefix, i], schema: s?.items });
      out.push(...propertyPaths(x, s?.items, [...prefix, i]));
    });
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      const ps = s?.properties[k];
      out.push({ path: [...prefix, k], schema: ps });
      out.push(...propertyPaths(x, ps, [...prefix, k]));
    }
  return out;
}

function setAt(root: any, path: Array<string | number>, value: unknown): void {
  let cur = root;
  for (const k of path.slice(0, -1)) cur = cur[k];
  const last = path[path.length - 1]!;
  if (last === '__proto__')
    Object.defineProperty(cur, last, { value, enumerable: true, writable: true, configurable: true });
  else cur[last] = value;
}
function deleteAt(root: any, path: Array<string | number>): void {
  let cur = root;
  for (const k of path.slice(0, -1)) cur = cur[k];
  const last = path[path.length - 1]!;
  if (Array.isArray(cur)) cur.splice(Number(last), 1);
  else delete cur[last];
}

function bodyMutation(op: OpInfo, tpl: Template): fc.Arbitrary<BodyMutation> {
  const base = tpl.body ?? {};
  const schema = op.body;
  const paths = propertyPaths(base, schema);
  const json = (v: unknown, what: string, certain = false): BodyMutation => ({
    body: JSON.stringify(v),
    what,
    certain,
  });
  const text = JSON.stringify(base);
  const structural: Array<fc.Arbitrary<BodyMutation>> = [];
  if (paths.length) {
    // a declared property of the wrong type (the schema's type decides which types are wrong)
    structural.push(
      fc.constantFrom(...paths).chain(({ path, schema: s }) =>
        wrongType(s?.kinds ?? []).map((v) => {
          const b = clone(base);
          setAt(b, path, v);
          return json(b, `wrong-type:${path.join('.')}`, false);
        }),
      ),
    );
    // an extreme value of the right type
    structural.push(
      fc.constantFrom(...paths).chain(({ path, schema: s }) =>
        extreme(s?.kinds ?? [], tpl.mutating).map((v) => {
          const b = clone(base);
          setAt(b, path, v);
          return json(b, `extreme:${path.join('.')}`, false);
        }),
      ),
    );
    // a missing property (required ones first: the spec's `required`)
    structural.push(
      fc.constantFrom(...paths).map(({ path }) => {
        const b = clone(base);
        deleteAt(b, path);
        const parentSchema = path.length === 1 ? schema : undefined;
        const required = !!parentSchema?.required.includes(String(path[0]));
        return json(
          b,
          `missing:${path.join('.')}${required ? '(required)' : ''}`,
          required && op.id !== 'upsertSchedules',
        );
      }),
    );
  }
  // an extra property, at the root or inside an object
  structural.push(
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom(
            '__proto__',
            'constructor',
            'prototype',
            'Extra',
            'ParentRecordID',
            'IsDeleted',
            'ProposalID',
            'Token',
            'ID',
          ),
          str(12),
        ),
        fc.oneof(wrongType([]), weirdText),
        fc.constantFrom(
          ...[
            [],
            ...paths
              .filter((p) => p.schema?.kinds.includes('object') || typeof p.path[p.path.length - 1] === 'number')
              .map((p) => p.path),
          ],
        ),
      )
      .map(([k, v, at]) => {
        const b = clone(base);
        let cur: any = b;
        for (const seg of at) cur = cur?.[seg];
        if (cur && typeof cur === 'object' && !Array.isArray(cur)) setAt(cur, [k], v);
        return json(b, `extra:${[...at, k].join('.')}`, false);
      }),
  );
  // the root of another type
  structural.push(
    fc
      .constantFrom<Json>([], [base as Json], 'body', 42, true, null, {})
      .map((v) => json(v, 'root', v === null || typeof v !== 'object' || Array.isArray(v))),
  );
  // UpsertMulti: too many items, and schedule fields of every kind
  if (op.id === 'upsertSchedules') {
    structural.push(
      fc.integer({ min: 101, max: 400 }).map((n) =>
        json(
          {
            Inserts: Array.from({ length: n }, (_, i) => ({ Fields: { LocationName: `Fuzz ${i}` } })),
            Updates: [],
            Deletes: [],
          },
          'too-many-items',
          false,
        ),
      ),
    );
    structural.push(
      fc
        .dictionary(
          fc.oneof(
            fc.constantFrom(
              'LocationName',
              'VIN',
              'Year',
              'Address1',
              'City',
              'IsDeleted',
              'ProposalID',
              'ProposalLocationID',
              'Proposal',
              'Nope',
              '__proto__',
              '',
            ),
            str(8),
          ),
          fc.oneof(wrongType([]), weirdText, extreme(['integer'], true)),
          { maxKeys: 4 },
        )
        .map((fields) =>
          json(
            {
              Inserts: [{ Fields: fields }],
              Updates: [{ ID: tpl.body && (tpl.body as any).Updates?.[0]?.ID, Fields: fields }],
              Deletes: [],
            },
            'fields',
            false,
          ),
        ),
    );
  }
  // malformed JSON text
  const raw: Array<fc.Arbitrary<BodyMutation>> = [
    fc
      .integer({ min: 0, max: Math.max(0, text.length - 1) })
      .map((i) => ({ body: text.slice(0, i), what: 'truncated', certain: text.slice(0, i).trim() !== '' })),
    fc
      .tuple(
        fc.integer({ min: 0, max: text.length }),
        fc.constantFrom('{', '}', '[', ']', ',', ':', '"', "'", '\\', 'x', '\u0000', '/*', 'NaN', '01'),
      )
      .map(([i, c]) => {
        const b = text.slice(0, i) + c + text.slice(i);
        return { body: b, what: 'corrupted', certain: !parsesToObject(b) };
      }),
    fc
      .constantFrom(
        '',
        ' ',
        'null',
        'undefined',
        "{'ParentDomain': 'Claim'}",
        '{"a":1,}',
        '{"a":NaN}',
        '{"a":Infinity}',
        '{"a":1}{"b":2}',
        '{"a":1} trailing',
        '// comment\n{}',
        '{"a":"\\u12"}',
        '{"a":"\\x41"}',
        '\u0000',
        'true false',
        '[1,2',
        `{"a":${deepNest(5_000)}}`,
        deepNest(20_000),
        `{"a":"${'\\u0000'.repeat(1000)}"}`,
      )
      .map((b) => ({ body: b, what: 'malformed', certain: b.trim() !== '' && !parsesToObject(b) })),
    fc
      .constantFrom(
        Uint8Array.from([0xff, 0xfe, 0x7b, 0x7d]),
        Uint8Array.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]),
        Uint8Array.from([0xef, 0xbb, 0xbf, ...Buffer.from(text)]),
        Uint8Array.from([0xc0, 0x80]),
      )
      .map((b) => ({ body: b, what: 'bytes', certain: false })),
    fc
      .string({ maxLength: 60 })
      .map((b) => ({ body: b, what: 'random-text', certain: b.trim() !== '' && !parsesToObject(b) })),
  ];
  return fc.oneof({ weight: 3, arbitrary: fc.oneof(...structural) }, { weight: 2, arbitrary: fc.oneof(...raw) });
}

// ---------------------------------------------------------------------------------------------
// Requests

export interface GenRequest {
  op: string;
  method: string;
  /** path and query */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  mutations: string[];
  expect: { exact?: number[]; refuse?: boolean };
}

interface Draft {
  tpl: Template;
  op: OpInfo;
  method: string;
  pathParams: Record<string, string>;
  /** changes of the encoded path, applied in order after the parameters are filled in */
  pathTransforms: Array<(p: string) => string>;
  query: Array<[string, string]>;
  /** raw text put before the encoded query */
  rawQueryPrefix?: string;
  /** query parameters whose values are percent-encoded only where needed (`=`, `|`, `(`, `,` raw) */
  minimal: Set<string>;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  mutations: string[];
  /** what makes the request certainly invalid, by the thing mutated (a later mutation of the
   * same thing replaces the verdict) */
  certain: Map<string, boolean>;
  tokenBad: boolean;
  shapeChanged: boolean;
  urlTooLong: boolean;
  bodyTooLarge: boolean;
}

/** A mutation of a draft, or null when it does not apply to the template (no body, no parameter). */
type Mutator = (d: Draft) => fc.Arbitrary<(d: Draft) => void> | null;

/** Operations that read and check their JSON body. */
const READS_BODY = new Set(['upsertLink', 'removeLink', 'upsertSchedules', 'authenticate']);

function encodeSegment(s: string): string {
  // encodeURIComponent throws on lone surrogates: those go out as raw (invalid UTF-8) escapes
  let out = '';
  for (const ch of s) {
    try {
      out += encodeURIComponent(ch);
    } catch {
      out += '%ED%A0%80';
    }
  }
  return out;
}

function pathOf(d: Draft): string {
  let p = d.op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeSegment(d.pathParams[name] ?? ''));
  for (const f of d.pathTransforms) p = f(p);
  return p;
}

/** Percent-encoding of what a query value cannot hold raw only. */
function minimalEncode(s: string): string {
  return s.replace(/[^A-Za-z0-9._~!$'()*,;:@/?=|<>"-]/g, (c) => encodeSegment(c));
}

function urlOf(d: Draft): string {
  const encoded = d.query
    .map(([k, v]) => `${encodeSegment(k)}=${d.minimal.has(k) ? minimalEncode(v) : encodeSegment(v)}`)
    .join('&');
  const q = d.rawQueryPrefix !== undefined ? d.rawQueryPrefix + (encoded ? `&${encoded}` : '') : encoded;
  return pathOf(d) + (q ? `?${q}` : '');
}

export function requestArbitrary(fx: Fixture, ops = loadOps()): fc.Arbitrary<GenRequest> {
  const tpls = templates(fx);
  const tokenMut: Mutator = () =>
    fc
      .constantFrom<[string, Record<string, string | null>]>(
        ['none', { Token: null }],
        ['empty', { Token: '' }],
        ['unknown', { Token: 'not-a-token' }],
        ['expired', { Token: fx.expiredToken }],
        ['prefixed', { Token: `Bearer ${fx.token}` }],
        ['truncated', { Token: fx.token.slice(0, -1) }],
        ['doubled', { Token: `${fx.token}${fx.token}` }],
        ['authorization', { Token: null, Authorization: `Bearer ${fx.token}` }],
        ['query-token', { Token: null }],
        ['huge', { Token: 'x'.repeat(8_000) }],
        ['sql', { Token: "' OR '1'='1" }],
      )
      .map(([what, h]) => (d: Draft) => {
        for (const [k, v] of Object.entries(h)) {
          if (v === null) delete d.headers[k];
          else d.headers[k] = v;
        }
        if (what === 'query-token') d.query.push(['Token', fx.token]);
        d.tokenBad = true;
        d.mutations.push(`token:${what}`);
      });
  const pathMut: Mutator = (d) => {
    const ps = d.op.params.filter((p) => p.in === 'path');
    if (!ps.length) return null;
    return fc.constantFrom(...ps).chain((p) => {
      const values: fc.Arbitrary<{ v: string; certain: boolean }> =
        p.kind === 'integer'
          ? fc.oneof(
              badIntText.map((v) => ({ v, certain: true })),
              (d.tpl.mutating ? unknownIdText : anyIdText).map((v) => ({ v, certain: false })),
            )
          : fc
              .oneof(fc.constantFrom(...(d.tpl.mutating ? BAD_DOMAINS : [...DOMAIN_NAMES, ...BAD_DOMAINS])), weirdText)
              .map((v) => ({ v, certain: false }));
      return values.map(({ v, certain }) => (dd: Draft) => {
        dd.pathParams[p.name] = v;
        // an empty segment changes the route; a certainly-bad integer is refused either way
        dd.certain.set(`path:${p.name}`, certain && v.trim() !== '' && !/^[\s/]*$/.test(v));
        dd.mutations.push(`path:${p.name}`);
      });
    });
  };
  const queryMut: Mutator = (d) => {
    const qs = d.op.params.filter((p) => p.in === 'query');
    if (!qs.length) return null;
    return fc.constantFrom(...qs).chain((p) =>
      badQueryValue(p, d.tpl.mutating).map(({ value, certain, what }) => (dd: Draft) => {
        dd.query = dd.query.filter(([k]) => k !== p.name);
        dd.query.push([p.name, value]);
        dd.certain.set(`query:${p.name}`, certain);
        dd.mutations.push(`query:${what}`);
      }),
    );
  };
  const extraQueryMut: Mutator = (d) =>
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom(
            'Token',
            'token',
            '__proto__',
            'constructor',
            'debug',
            'isAtomic',
            'take',
            'filter',
            'columns',
            'X',
            '',
          ),
          str(10),
        ),
        weirdText,
        fc.boolean(),
      )
      .map(([k, v, dup]) => (dd: Draft) => {
        // a repeated declared parameter: the first value counts (Hono's c.req.query)
        if (dup && dd.query.length) dd.query.push([dd.query[0]![0], v]);
        else {
          // an undeclared name (a declared one gets a suffix)
          const name = d.op.params.some((p) => p.name === k) ? `${k}_x` : k;
          dd.query = dd.query.filter(([x]) => x !== name);
          dd.query.push([name, v]);
        }
        dd.mutations.push(dup ? 'query:repeated' : 'query:extra');
      });
  const rawQueryMut: Mutator = () =>
    fc
      .constantFrom(
        '%',
        '%%',
        '%ZZ',
        '&&&',
        '=',
        '==&=',
        'a=%E0%A4%A',
        'x=%FF',
        'y=%00',
        '?',
        'a[]=1&a[]=2',
        'a=1;b=2',
        '+++',
        '%2B',
      )
      .map((q) => (dd: Draft) => {
        dd.rawQueryPrefix = q;
        dd.mutations.push('query:raw');
      });
  const bodyMut: Mutator = (d) => {
    if (d.method === 'GET' || d.method === 'HEAD') return null;
    return bodyMutation(d.op, d.tpl).map((m) => (dd: Draft) => {
      dd.body = m.body;
      dd.certain.set('body', m.certain && READS_BODY.has(dd.op.id));
      dd.mutations.push(`body:${m.what}`);
    });
  };
  const contentTypeMut: Mutator = (d) =>
    fc
      .constantFrom<Record<string, string | null>>(
        ...(d.body !== undefined
          ? [
              { 'Content-Type': null },
              { 'Content-Type': 'text/plain' },
              { 'Content-Type': 'application/x-www-form-urlencoded' },
              { 'Content-Type': 'application/json; charset=utf-16' },
              { 'Content-Type': 'multipart/form-data; boundary=x' },
              { 'Content-Type': 'application/xml' },
              { 'Content-Encoding': 'gzip' },
            ]
          : []),
        { Accept: 'text/html' },
        { Accept: 'application/xml' },
        { 'X-HTTP-Method-Override': 'DELETE' },
        { 'X-Forwarded-For': "' OR 1=1 --" },
        { Cookie: 'session=x; Token=y' },
      )
      .map((h) => (dd: Draft) => {
        for (const [k, v] of Object.entries(h)) {
          if (v === null) delete dd.headers[k];
          else dd.headers[k] = v;
        }
        dd.mutations.push(`header:${Object.keys(h)[0]}`);
      });
  const methodMut: Mutator = (d) =>
    fc
      .constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD')
      .filter((m) => m !== d.method)
      .map((m) => (dd: Draft) => {
        dd.method = m;
        if (m === 'GET' || m === 'HEAD') {
          dd.body = undefined;
          dd.certain.delete('body');
        }
        dd.mutations.push(`method:${m}`);
      });
  const pathShapeMut: Mutator = () =>
    fc
      .constantFrom(
        (p: string) => p + '/',
        (p: string) => p.replace('/api/', '/api//'),
        (p: string) => p.replace('/api/', '/API/'),
        (p: string) => p.toLowerCase(),
        (p: string) => p + '/extra',
        (p: string) => p + '/..',
        (p: string) => p.replace('/api/', '/api/../api/'),
        (p: string) => p.replace('/api/', '/api/%2e%2e/'),
        (p: string) => p.replace(/\/([^/]+)$/, '/%2F$1'),
        (p: string) => p + '%00',
        (p: string) => p + ';jsessionid=1',
        (p: string) => p.replace('/api/', '/api/./'),
        (p: string) => p.replace(/^\//, '//'),
        () => '/',
        () => '/health',
        (p: string) => p.split('/').slice(0, -1).join('/') || '/',
      )
      .map((f) => (dd: Draft) => {
        dd.pathTransforms.push(f);
        dd.shapeChanged = true;
        dd.mutations.push('path:shape');
      });
  const longUrlMut: Mutator = () =>
    fc
      .tuple(fc.integer({ min: 1, max: 30_000 }), fc.constantFrom('query', 'path'))
      .map(([extra, where]) => (dd: Draft) => {
        // the padding alone is over the limit, whatever the other mutations do
        const pad = MAX_URL_CHARS + extra;
        if (where === 'query') dd.query.push(['pad', 'x'.repeat(pad)]);
        else {
          dd.pathTransforms.push((p) => p + '/' + 'p'.repeat(pad));
          dd.shapeChanged = true;
        }
        dd.urlTooLong = true;
        dd.mutations.push('url:too-long');
      });
  const bigBodyMut: Mutator = (d) => {
    if (!d.op.statuses.includes(413) || d.method === 'GET') return null;
    return fc.constantFrom(1, 1000, 5_000_000).map((extra) => (dd: Draft) => {
      dd.body = `{"pad":"${'x'.repeat(10 * 1024 * 1024 + extra)}"}`;
      dd.bodyTooLarge = true;
      dd.mutations.push('body:too-large');
    });
  };

  // A list parameter filled up to just under the URL limit with the shortest valid field of the
  // domain: the most conditions, columns, sort terms or nesting a client can send (SQLite's own
  // limits are 2000 result columns or ORDER BY terms and an expression depth of 1000).
  const fillMut: Mutator = (d) => {
    const qs = d.op.params.filter((p) => ['columns', 'sort', 'filter', 'linqFilter'].includes(p.name));
    if (!qs.length) return null;
    const domain =
      d.pathParams.domain ??
      (d.op.id === 'queryFiles' || d.op.id === 'getFile' ? 'File' : d.op.id === 'queryLinks' ? 'Link' : 'Claim');
    const def = DOMAINS.find((x) => x.name === domain);
    const names = def
      ? [def.key, ...def.fields.filter((f) => !f.computed?.onDemand).map((f) => f.name)]
      : ['LinkID', 'ChildID'];
    const shortest = [...names].sort((a, b) => a.length - b.length)[0]!;
    return fc
      .tuple(fc.constantFrom(...qs), fc.constant(shortest), fc.constantFrom('list', 'nest'))
      .map(([p, f, shape]) => (dd: Draft) => {
        dd.query = dd.query.filter(([k]) => k !== p.name);
        const budget = MAX_URL_CHARS - urlOf(dd).length - p.name.length - 3;
        const unit = {
          columns: `${f},`,
          sort: `${f} desc,`,
          filter: `${f}:eq:1&&`,
          linqFilter: shape === 'nest' ? '()' : `${f}==1||`,
        }[p.name]!;
        const n = Math.max(1, Math.floor(budget / minimalEncode(unit).length));
        let value: string;
        if (p.name === 'linqFilter' && shape === 'nest') value = '('.repeat(n) + `${f}==1` + ')'.repeat(n);
        else
          value = Array(n)
            .fill(unit.slice(0, unit.length - (p.name === 'columns' || p.name === 'sort' ? 1 : 2)))
            .join(unit.slice(-(p.name === 'columns' || p.name === 'sort' ? 1 : 2)));
        dd.query.push([p.name, value]);
        dd.minimal.add(p.name);
        dd.certain.delete(`query:${p.name}`);
        dd.mutations.push(`query:fill-${p.name}`);
      });
  };

  const MUTATORS: Array<{ weight: number; m: Mutator }> = [
    { weight: 2, m: fillMut },
    { weight: 2, m: tokenMut },
    { weight: 4, m: pathMut },
    { weight: 7, m: queryMut },
    { weight: 2, m: extraQueryMut },
    { weight: 1, m: rawQueryMut },
    { weight: 8, m: bodyMut },
    { weight: 1, m: contentTypeMut },
    { weight: 1, m: methodMut },
    { weight: 1, m: pathShapeMut },
    { weight: 1, m: longUrlMut },
  ];

  return fc
    .tuple(fc.constantFrom(...tpls), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 299 }))
    .chain(([tpl, n, rare]) => {
      const op = ops.get(tpl.op);
      if (!op) throw new Error(`no operation ${tpl.op} in the spec`);
      const start = (): Draft => ({
        tpl,
        op,
        method: op.method,
        pathParams: { ...tpl.pathParams },
        pathTransforms: [],
        shapeChanged: false,
        query: tpl.query.map(([k, v]) => [k, v] as [string, string]),
        headers: { Token: fx.token, ...(tpl.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: tpl.body !== undefined ? JSON.stringify(tpl.body) : undefined,
        mutations: [],
        minimal: new Set(),
        certain: new Map(),
        tokenBad: false,
        urlTooLong: false,
        bodyTooLarge: false,
      });
      // the mutators see the template (their choices depend on the operation and method)
      const probe = start();
      const weighted = MUTATORS.flatMap(({ weight, m }) => {
        const arbitrary = m(probe);
        return arbitrary ? [{ weight, arbitrary }] : [];
      });
      const muts = fc.array(fc.oneof(...weighted), { minLength: n, maxLength: n });
      // 1 in 300: an oversized body (10 MB and more) as well
      const big = rare === 0 ? bigBodyMut(probe) : null;
      const extra = big ? big.map((f) => [f]) : fc.constant([] as Array<(d: Draft) => void>);
      return fc.tuple(muts, extra).map(([fs, more]) => {
        const d = start();
        for (const f of [...fs, ...more]) f(d);
        if (d.mutations.length === 0) d.mutations.push('none');
        return finish(d);
      });
    });
}

function finish(d: Draft): GenRequest {
  const url = urlOf(d);
  // as app.request and fetch build it: origin + path (a leading `//` stays a path)
  let u: URL;
  try {
    u = new URL(`http://localhost${url}`);
  } catch {
    u = new URL('http://localhost/');
  }
  const pathname = u.pathname;
  const target = u.pathname.length + u.search.length;
  const expect: GenRequest['expect'] = {};
  const hasBody = d.body !== undefined && d.method !== 'GET' && d.method !== 'HEAD';
  const bodyBytes = hasBody ? (typeof d.body === 'string' ? Buffer.byteLength(d.body) : d.body!.byteLength) : 0;
  if (target > MAX_URL_CHARS) expect.exact = [414];
  else if (bodyBytes > 10 * 1024 * 1024) expect.exact = [413];
  else if (d.tokenBad && pathname.startsWith('/api/')) expect.exact = [401];
  else {
    const sameOp = d.method === d.op.method && !d.shapeChanged;
    if (sameOp && [...d.certain.values()].some(Boolean)) expect.refuse = true;
  }
  const headers = { ...d.headers };
  if (!hasBody) {
    delete headers['Content-Type'];
    delete headers['Content-Length'];
    delete headers['Content-Encoding'];
  }
  return {
    op: d.op.id,
    method: d.method,
    url,
    headers,
    body: hasBody ? d.body : undefined,
    mutations: d.mutations,
    expect,
  };
}
