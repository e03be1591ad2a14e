// The reference data dictionary (docs/architecture.md section 3). It drives the SQLite tables and
// indexes (db.ts), the column language (columns/), the filters and the provider states.

export interface FieldDef {
  name: string;
  type: 'integer' | 'text' | 'number' | 'date' | 'timestamp' | 'boolean' | 'association' | 'coded';
  /** association: domain name; coded: code list name */
  target?: string;
  required?: boolean;
  /** Not stored: computed by the server. `sql` is an SQL expression over the table alias `$t`
   * (usable in columns, filter and sort); `onDemand` fields are computed in code only when asked
   * for and are left out of the default column set. */
  computed?: { sql?: string; onDemand?: boolean };
}

export interface DomainDef {
  id: number;
  name: string;
  singular: string;
  plural: string;
  /** the SQL table name: the domain name, always double-quoted in SQL ("Custom.Inspection") */
  table: string;
  /** primary key column, e.g. ClaimID */
  key: string;
  fields: FieldDef[];
  displayField?: string;
  schedule?: boolean;
  readOnly?: boolean;
  /** Extra SQLite indexes (column lists) for the filters and sorts a query commonly uses; the
   * reference columns of association and coded fields are always indexed (db.ts). A column may end
   * in ' DESC'. Every index ends in the key (SQLite appends the rowid, ascending), so an index
   * (X DESC) gives the order `X desc` with the documented tie-break (key ascending) in one pass. */
  indexes?: string[][];
}

/** An association field X is stored in the integer column XID; a coded field X in XID into table
 * "codes" (CodeID, List, Code, Description). */
export interface Dictionary {
  get(name: string): DomainDef | undefined /* case-sensitive */;
  all(): DomainDef[];
}

const t = (name: string): FieldDef => ({ name, type: 'text' });
const n = (name: string): FieldDef => ({ name, type: 'number' });
const i = (name: string): FieldDef => ({ name, type: 'integer' });
const d = (name: string): FieldDef => ({ name, type: 'date' });
const ts = (name: string): FieldDef => ({ name, type: 'timestamp' });
const b = (name: string): FieldDef => ({ name, type: 'boolean' });
const assoc = (name: string, target: string): FieldDef => ({ name, type: 'association', target });
const coded = (name: string, list: string): FieldDef => ({ name, type: 'coded', target: list });

function dom(
  id: number,
  name: string,
  singular: string,
  plural: string,
  fields: FieldDef[],
  extra: Partial<DomainDef> = {},
): DomainDef {
  const key = (name.startsWith('Custom.') ? name.slice('Custom.'.length) : name) + 'ID';
  return { id, name, singular, plural, table: name, key, fields, ...extra };
}

// REQ: LINK-004 — the linkable child domains are fixed and no operation lists them.
export const LINKABLE_CHILD_DOMAINS = ['Contact', 'File'] as const;

// REQ: DOM-004
// REQ: DOM-005
// REQ: DOM-006
export const DOMAINS: DomainDef[] = [
  dom(
    1,
    'Claim',
    'Claim',
    'Claims',
    [
      t('ClaimNumber'),
      t('ClaimantName'),
      d('LossDate'),
      n('ReserveAmount'),
      t('Status'),
      assoc('Location', 'Location'),
      assoc('Policy', 'Policy'),
      coded('Custom2Code', 'ClaimCategory'),
      t('Notes'),
      ts('EntryDate'),
      // a stored boolean: the boolean operator class of the provider state 'records' (protocol 1.3.0)
      b('IsLitigated'),
    ],
    {
      displayField: 'ClaimNumber',
      // filter by Status sorted by LossDate (and sort by LossDate alone) without a full scan and sort,
      // in both directions: with ties broken by ClaimID ascending, `LossDate desc` is not the
      // reverse of the ascending index, and SQLite sorted every run of equal dates (a deep page on
      // 1M rows ~4x slower). See docs/benchmarks.md for the measured effect.
      indexes: [['Status', 'LossDate'], ['Status', 'LossDate DESC'], ['LossDate'], ['LossDate DESC']],
    },
  ),
  dom(
    2,
    'Contact',
    'Contact',
    'Contacts',
    [
      t('FirstName'),
      t('LastName'),
      t('Email'),
      t('Phone'),
      n('ContactCode'),
      {
        name: 'Name',
        type: 'text',
        computed: { sql: `trim(coalesce($t."FirstName", '') || ' ' || coalesce($t."LastName", ''))` },
      },
    ],
    { displayField: 'Name' },
  ),
  dom(3, 'Location', 'Location', 'Locations', [t('Name'), t('Address1'), t('City'), t('StateCode'), t('ZipCode')], {
    displayField: 'Name',
  }),
  // The file columns of spec 2.2 (MimeType = the FileName's extension, IsUnlinked derived from links).
  // REQ: FILE-001
  // REQ: FILE-002
  // REQ: FILE-003
  // REQ: FILE-004
  // REQ: FILE-005
  // REQ: FILE-006
  // REQ: FILE-019
  // REQ: FILE-025 — ModifiedDate and DownloadedDate are timestamps (the EntryDate format).
  dom(
    4,
    'File',
    'File',
    'Files',
    [
      t('FileName'),
      t('Description'),
      { name: 'MimeType', type: 'text', computed: { sql: `rflps_ext($t."FileName")` } },
      i('FileSize'),
      ts('EntryDate'),
      i('EntryUserID'),
      ts('ModifiedDate'),
      i('ModifiedUserID'),
      ts('DownloadedDate'),
      i('DownloadedUserID'),
      i('DocumentStatusID'),
      t('SourceType'),
      {
        name: 'IsUnlinked',
        type: 'boolean',
        computed: {
          sql: `(NOT EXISTS (SELECT 1 FROM links lk WHERE lk."ChildDomainID" = 4 AND lk."ChildID" = $t."FileID"))`,
        },
      },
      i('UnlinkedAccessMode'),
      { name: 'Contents', type: 'text', computed: { onDemand: true } },
      { name: 'DownloadURL', type: 'text', computed: { onDemand: true } },
      i('ExternalFileRepositoryID'),
      t('ExternalDirectURL'),
    ],
    { displayField: 'FileName' },
  ),
  dom(5, 'Note', 'Note', 'Notes', [t('Subject'), t('Body'), ts('EntryDate')], { displayField: 'Subject' }),
  dom(
    6,
    'Policy',
    'Policy',
    'Policies',
    [t('PolicyNumber'), d('EffectiveDate'), d('ExpirationDate'), n('Premium'), assoc('Member', 'Member')],
    { displayField: 'PolicyNumber' },
  ),
  dom(7, 'Task', 'Task', 'Tasks', [t('Title'), d('DueDate'), t('Status'), assoc('Claim', 'Claim')], {
    displayField: 'Title',
  }),
  dom(
    11,
    'Incident',
    'Incident',
    'Incidents',
    [t('IncidentNumber'), t('Description'), d('IncidentDate'), assoc('Location', 'Location')],
    { displayField: 'IncidentNumber' },
  ),
  dom(20, 'Member', 'Member', 'Members', [t('Name'), t('Address1'), t('City'), t('StateCode'), t('ZipCode')], {
    displayField: 'Name',
  }),
  dom(
    21,
    'Proposal',
    'Proposal',
    'Proposals',
    [
      t('ProposalNumber'),
      t('ProposalType'),
      t('StatusCode'),
      t('ApplicantName'),
      t('ApplicantAddress1'),
      t('ApplicantCity'),
      t('ApplicantStateCode'),
      t('ApplicantZipCode'),
      i('MemberID'),
      t('RatingStatus'),
      i('ProposalSetID'),
      b('PendingExpiryChange'),
    ],
    { displayField: 'ProposalNumber' },
  ),
  dom(
    22,
    'ProposalLocation',
    'Proposal Location',
    'Proposal Locations',
    [
      i('ProposalID'),
      { ...t('LocationName'), required: true },
      t('Address1'),
      t('City'),
      t('StateCode'),
      t('ZipCode'),
      b('IsDeleted'),
    ],
    { displayField: 'LocationName', schedule: true },
  ),
  dom(
    23,
    'ProposalVehicle',
    'Proposal Vehicle',
    'Proposal Vehicles',
    [i('ProposalID'), { ...t('VIN'), required: true }, t('Make'), t('Model'), n('Year'), b('IsDeleted')],
    { displayField: 'VIN', schedule: true },
  ),
  dom(
    24,
    'PolicyChange',
    'Policy Change',
    'Policy Changes',
    [i('ProposalID'), t('ScheduleDomain'), i('ScheduleID'), t('ChangeType'), ts('EntryDate')],
    { readOnly: true },
  ),
  dom(
    25,
    'DataEntryEvent',
    'Data Entry Event',
    'Data Entry Events',
    [t('EventName'), t('Domain'), i('RecordID'), i('ProposalID'), ts('EntryDate')],
    { readOnly: true },
  ),
  dom(
    1001,
    'Custom.Inspection',
    'Inspection',
    'Inspections',
    [t('InspectionNumber'), t('InspectorName'), assoc('Location', 'Location'), coded('Severity', 'InspectionSeverity')],
    { displayField: 'InspectionNumber' },
  ),
];

/** Code lists (table "codes"). */
export const CODE_LISTS: Record<string, Array<[code: string, description: string]>> = {
  ContactType: [
    ['ADJ', 'Adjuster'],
    ['BRK', 'Broker'],
    ['CLM', 'Claimant'],
    ['DEF', 'Defense Attorney'],
    ['EXP', 'Expert Witness'],
  ],
  ClaimCategory: [
    ['WC', 'Workers Comp'],
    ['AU', 'Auto'],
    ['PR', 'Property'],
  ],
  InspectionSeverity: [
    ['L', 'Low'],
    ['M', 'Medium'],
    ['H', 'High'],
  ],
};

export function createDictionary(domains: DomainDef[] = DOMAINS): Dictionary {
  const byName = new Map(domains.map((x) => [x.name, x] as const));
  return {
    get: (name) => byName.get(name), // case-sensitive (REQ: DOM-001)
    all: () => [...domains],
  };
}

/** The stored column of a field: X for plain fields, XID for association and coded fields,
 * undefined for computed ones. */
export function storageColumn(f: FieldDef): string | undefined {
  if (f.computed) return undefined;
  return f.type === 'association' || f.type === 'coded' ? f.name + 'ID' : f.name;
}

export type ColumnType = FieldDef['type'];

/** Natively stored columns of a domain, key first, with the type of their values. Association and
 * coded fields appear as their integer reference column. */
export function nativeColumns(def: DomainDef): Array<{ name: string; type: ColumnType }> {
  const out: Array<{ name: string; type: ColumnType }> = [{ name: def.key, type: 'integer' }];
  for (const f of def.fields) {
    const col = storageColumn(f);
    if (col === undefined) continue;
    out.push({ name: col, type: f.type === 'association' || f.type === 'coded' ? 'integer' : f.type });
  }
  return out;
}

/** Quote an SQL identifier (names come from the dictionary, never from the request). */
export function q(ident: string): string {
  return '"' + ident.replace(/"/g, '""') + '"';
}
