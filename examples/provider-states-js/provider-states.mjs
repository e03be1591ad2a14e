// Provider-state endpoint of the RFLPS conformance suite (written by `conformance init` from
// spec/provider-states.yaml of the suite's package; `conformance states` shows the params the tests
// send). Protocol (Pact v3): POST {"state", "params": {..., "setupId"}, "action": "setup" | "teardown"}.
// setup answers 200 with the state's values; teardown answers 200 {} and removes exactly what the
// setup with the same setupId created. An unknown state answers 400. Serve it on a test deployment
// only, never in production, and pass its URL with --provider-states-url (default
// <base-url>/_provider-states). Each stub answers 501 until you implement it; the tests that need
// that state then end as precondition-failed, naming it. Every setup answer declares the protocol
// version this endpoint implements (PROTOCOL); the suite asks for nothing newer. A fixture your
// design cannot build answers 501 with code FixtureCannotExist and the reason in detail: the tests
// that need it end not-applicable. The suite sends setups concurrently.
// Run it as written: node provider-states.mjs (Node 18+, no dependencies; PORT and HOST, default 3999 and 127.0.0.1).
// Filled in: DB_FILE=<the service's SQLite file> node provider-states.mjs (needs better-sqlite3).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';

/** The provider-state protocol version this endpoint implements (spec/provider-states.yaml). */
const PROTOCOL = '1.2.0';

class NotImplemented extends Error {
  constructor(state, params) {
    super(`provider state '${state}' is not implemented yet (params ${JSON.stringify(params)})`);
  }
}

// ---- filled in for the reference server's SQLite database (examples/provider-states-js/README.md)
// This endpoint writes straight into the service's own storage, as a vendor's would: the SQLite file
// the reference server runs on (DB_FILE). The tables and the domain numbers are the service's; a
// vendor knows its own. better-sqlite3 is the one dependency (the service uses it too).

class BadParams extends Error {}
/** A state this endpoint cannot bring about on a running service: 501 without FixtureCannotExist
 * (the tests that need it end precondition-failed, naming the reason). */
class Unavailable extends Error {}

let connection;
/** The service's database, opened on first use (DB_FILE; the service keeps it in WAL mode). */
function db() {
  if (!connection) {
    if (!process.env.DB_FILE) throw new Error('set DB_FILE to the SQLite file the service runs on');
    connection = new Database(process.env.DB_FILE);
    connection.pragma('busy_timeout = 5000'); // the service writes to the same file meanwhile
  }
  return connection;
}

const now = () => new Date().toISOString().slice(0, 23); // the service's timestamp format

/** The service's domains: its number for them, the key column, a text field that identifies a
 * record, and a field that is neither text nor numeric (none in Location and Member). */
const DOMAINS = {
  Claim: { id: 1, key: 'ClaimID', text: 'ClaimNumber', nonMatchable: 'LossDate' },
  Contact: { id: 2, key: 'ContactID', text: 'Email', nonMatchable: 'Name' },
  Location: { id: 3, key: 'LocationID', text: 'Name' },
  File: { id: 4, key: 'FileID', text: 'FileName' },
  Note: { id: 5, key: 'NoteID', text: 'Subject', nonMatchable: 'EntryDate' },
  Policy: { id: 6, key: 'PolicyID', text: 'PolicyNumber', nonMatchable: 'EffectiveDate' },
  Task: { id: 7, key: 'TaskID', text: 'Title', nonMatchable: 'DueDate' },
  Incident: { id: 11, key: 'IncidentID', text: 'IncidentNumber', nonMatchable: 'IncidentDate' },
  Member: { id: 20, key: 'MemberID', text: 'Name' },
  Proposal: { id: 21, key: 'ProposalID', text: 'ProposalNumber', nonMatchable: 'PendingExpiryChange' },
  'Custom.Inspection': { id: 1001, key: 'InspectionID', text: 'InspectionNumber', nonMatchable: 'Location' },
};
const FILE_DOMAIN_ID = DOMAINS.File.id;
/** Domains an administrator gets every permission on (the read-only ones included). */
const ALL_DOMAINS = [...Object.keys(DOMAINS), 'ProposalLocation', 'ProposalVehicle', 'PolicyChange', 'DataEntryEvent'];
const ADMIN = ['View', 'Edit', 'AttachContacts', 'DetachContacts', 'AttachFiles', 'ModifyFiles', 'Full'];
const PROPOSAL_TYPES = { Quote: 'N', Application: 'A', Endorsement: 'E', Renewal: 'R', Rewrite: 'W', Reissue: 'I' };

const q = (ident) => '"' + ident.replace(/"/g, '""') + '"';

// ---- what each setup created, by state and setupId, so that teardown removes exactly that
const created = new Map();
const keyOf = (state, setupId) => `${state}\u0000${setupId}`;
function remember(state, setupId, table, keyColumn, id) {
  const k = keyOf(state, setupId);
  if (!created.has(k)) created.set(k, []);
  created.get(k).push({ table, keyColumn, id });
}
function removeCreated(state, setupId) {
  const rows = created.get(keyOf(state, setupId)) ?? [];
  created.delete(keyOf(state, setupId));
  const d = db();
  d.transaction(() => {
    for (const { table, keyColumn, id } of rows.reverse()) {
      d.prepare(`DELETE FROM ${q(table)} WHERE ${q(keyColumn)} = ?`).run(id);
      const domain = DOMAINS[table];
      // the links that hang off a removed record (tests may have added some) go with it
      if (domain) {
        d.prepare(
          'DELETE FROM links WHERE (ParentDomainID = ? AND ParentID = ?) OR (ChildDomainID = ? AND ChildID = ?)',
        ).run(domain.id, id, domain.id, id);
      }
    }
  })();
}

/** Insert a row; returns its ID. `id` forces the key (twins of equal IDs). */
function insert(table, values, id) {
  const cols = Object.keys(values);
  const keyColumn = DOMAINS[table]?.key;
  if (id !== undefined) cols.unshift(keyColumn);
  const args = id !== undefined ? [id, ...Object.values(values)] : Object.values(values);
  const sql = cols.length
    ? `INSERT INTO ${q(table)} (${cols.map(q).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`
    : `INSERT INTO ${q(table)} DEFAULT VALUES`;
  return Number(
    db()
      .prepare(sql)
      .run(...args).lastInsertRowid,
  );
}

function domainOf(name, what) {
  const d = typeof name === 'string' && Object.hasOwn(DOMAINS, name) ? DOMAINS[name] : undefined;
  if (!d || name === 'File') throw new BadParams(`${what}: domain ${JSON.stringify(name)} is not supported`);
  return d;
}

/** A record of `domain` identified by its text field, remembered for teardown. */
function insertRecord(state, setupId, domainName, text, id) {
  const d = domainOf(domainName, state);
  const rowId = insert(domainName, { [d.text]: text }, id);
  remember(state, setupId, domainName, d.key, rowId);
  return rowId;
}

/** The next ID free in both tables: a parent and its twin of another domain get it. */
function commonFreeId(a, b) {
  let top = 0;
  for (const name of [a, b]) {
    const seq = db().prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(name) ?? 0;
    const max =
      db()
        .prepare(`SELECT max(${q(DOMAINS[name].key)}) FROM ${q(name)}`)
        .pluck()
        .get() ?? 0;
    top = Math.max(top, seq, max);
  }
  return top + 1;
}

function twinOf(domainName, twinDomain, what) {
  if (twinDomain === undefined) return undefined;
  domainOf(twinDomain, what);
  if (twinDomain === domainName) throw new BadParams(`${what}: twinDomain must differ from the domain`);
  return twinDomain;
}

/** A file row and its bytes, remembered for teardown; linked to a parent when given. */
function insertFile(state, setupId, f, parent) {
  const bytes = Buffer.from(String(f.contentsBase64 ?? ''), 'base64');
  const stamp = now();
  const id = insert('File', {
    FileName: f.fileName,
    Description: f.description ?? '',
    FileSize: bytes.length,
    EntryDate: stamp,
    EntryUserID: 1,
    ModifiedDate: f.touched ? stamp : null,
    ModifiedUserID: f.touched ? 1 : null,
    DownloadedDate: f.touched ? stamp : null,
    DownloadedUserID: f.touched ? 1 : null,
    SourceType: f.sourceType ?? 'U',
    UnlinkedAccessMode: 0,
    ExternalFileRepositoryID: f.kind === 'externalRepository' ? 1 : null,
    ExternalDirectURL:
      f.kind === 'externalDirectURL' ? `https://files.example.test/${setupId}/${encodeURIComponent(f.fileName)}` : null,
  });
  db().prepare('INSERT INTO file_contents (FileID, Contents) VALUES (?, ?)').run(id, bytes);
  remember(state, setupId, 'File', 'FileID', id);
  if (parent) {
    db()
      .prepare(
        'INSERT INTO links (ParentDomainID, ParentID, ChildDomainID, ChildID, ContactTypeID, EntryDate) VALUES (?, ?, ?, ?, NULL, ?)',
      )
      .run(DOMAINS[parent.domain].id, parent.id, FILE_DOMAIN_ID, id, stamp);
  }
  return id;
}

const extension = (name) => (name.lastIndexOf('.') > 0 ? name.slice(name.lastIndexOf('.')) : '');

function newUser(state, setupId, grants, expires) {
  const d = db();
  const userId = Number(
    d.prepare('INSERT INTO users (Account, Name) VALUES (?, ?)').run('conformance', `cf-${setupId}`).lastInsertRowid,
  );
  remember(state, setupId, 'users', 'UserID', userId);
  const grant = d.prepare('INSERT OR IGNORE INTO grants (UserID, Domain, Permission) VALUES (?, ?, ?)');
  for (const [domain, list] of Object.entries(grants)) for (const p of list) grant.run(userId, domain, p);
  const token = randomBytes(24).toString('base64url');
  d.prepare('INSERT INTO tokens (Token, UserID, ClientName, Expires) VALUES (?, ?, ?, ?)').run(
    token,
    userId,
    'conformance',
    expires.toISOString(),
  );
  return { userId, token };
}

function removeUsers(state, setupId) {
  for (const { id } of created.get(keyOf(state, setupId)) ?? []) {
    db().prepare('DELETE FROM grants WHERE UserID = ?').run(id);
    db().prepare('DELETE FROM tokens WHERE UserID = ?').run(id);
  }
  removeCreated(state, setupId);
}

/** The domains `records` serves, and which of their fields play which part. */
const RECORDS = {
  Claim: {
    sortField: 'ClaimNumber',
    allNullField: 'Notes',
    sometimesNullField: 'LossDate',
    sometimesValue: '2024-03-15',
    otherwise: null,
    fixed: () => ({}),
  },
  // a file's Description is a string on every file (spec 2.2): DocumentStatusID is the sparse one
  File: {
    sortField: 'FileName',
    allNullField: 'ExternalDirectURL',
    sometimesNullField: 'DocumentStatusID',
    sometimesValue: 1,
    otherwise: null,
    fixed: () => ({
      Description: '',
      FileSize: 0,
      EntryDate: now(),
      EntryUserID: 1,
      SourceType: 'U',
      UnlinkedAccessMode: 0,
    }),
  },
  // Location is an association, stored in LocationID
  'Custom.Inspection': {
    sortField: 'InspectionNumber',
    allNullField: 'Location',
    allNullColumn: 'LocationID',
    sometimesNullField: 'InspectorName',
    sometimesValue: 'Inspector One',
    otherwise: null,
    fixed: () => ({}),
  },
};

function checkList(name, list, n) {
  if (list !== undefined && (!Array.isArray(list) || list.length !== n))
    throw new BadParams(`records: ${name} must have count entries`);
}

/** One handler per state: setup(params) answers the values, teardown(params) removes what setup made. */
export const states = {
  'a user': {
    async setup({ setupId, grants }) {
      const perms = grants ?? Object.fromEntries(ALL_DOMAINS.map((d) => [d, ADMIN]));
      return db().transaction(() => newUser('a user', setupId, perms, new Date(Date.now() + 24 * 3600_000)))();
    },
    async teardown({ setupId }) {
      removeUsers('a user', setupId);
    },
  },

  'an expired token': {
    async setup({ setupId }) {
      const { token } = db().transaction(() =>
        newUser('an expired token', setupId, {}, new Date(Date.now() - 3600_000)),
      )();
      return { token };
    },
    async teardown({ setupId }) {
      removeUsers('an expired token', setupId);
    },
  },

  // a Claim: ClaimNumber (text), ReserveAmount (number), Notes (null), Location (association, shown
  // by the Location's Name) and Custom2Code (coded, list ClaimCategory)
  'a record with associations': {
    async setup({ setupId, domain = 'Claim' }) {
      if (domain !== 'Claim')
        throw new BadParams(`a record with associations: domain ${JSON.stringify(domain)} is not supported`);
      const d = db();
      return d.transaction(() => {
        const locationName = `Site ${setupId}`;
        const locationId = insert('Location', { Name: locationName, City: 'Springfield' });
        remember('a record with associations', setupId, 'Location', 'LocationID', locationId);
        const code = d
          .prepare("SELECT CodeID, Code, Description FROM codes WHERE List = 'ClaimCategory' ORDER BY CodeID")
          .get();
        const textValue = `CA-${setupId}`;
        const id = insert('Claim', {
          ClaimNumber: textValue,
          ReserveAmount: 1234.5,
          Notes: null,
          LocationID: locationId,
          Custom2CodeID: code.CodeID,
        });
        remember('a record with associations', setupId, 'Claim', 'ClaimID', id);
        return {
          domain,
          id,
          keyField: 'ClaimID',
          textField: 'ClaimNumber',
          textValue,
          numberField: 'ReserveAmount',
          numberValue: 1234.5,
          nullField: 'Notes',
          associationField: 'Location',
          associationKeyField: 'LocationID',
          associatedDomain: 'Location',
          associatedId: locationId,
          associatedDisplay: locationName,
          associatedProperty: 'City',
          associatedPropertyValue: 'Springfield',
          codedField: 'Custom2Code',
          codedCode: code.Code,
          codedDescription: code.Description,
        };
      })();
    },
    async teardown({ setupId }) {
      removeCreated('a record with associations', setupId);
    },
  },

  // a Claim whose LocationID names a Location deleted at once
  'a record with a missing association': {
    async setup({ setupId, domain = 'Claim' }) {
      if (domain !== 'Claim')
        throw new BadParams(`a record with a missing association: domain ${JSON.stringify(domain)} is not supported`);
      const d = db();
      return d.transaction(() => {
        const gone = insert('Location', { Name: `Gone ${setupId}` });
        d.prepare('DELETE FROM "Location" WHERE LocationID = ?').run(gone);
        const id = insert('Claim', { ClaimNumber: `CM-${setupId}`, LocationID: gone });
        remember('a record with a missing association', setupId, 'Claim', 'ClaimID', id);
        return { domain, id, associationField: 'Location', associationKeyField: 'LocationID' };
      })();
    },
    async teardown({ setupId }) {
      removeCreated('a record with a missing association', setupId);
    },
  },

  // Per domain (RECORDS): sortField sorts them and selects them by its prefix, allNullField stays
  // null, sometimesNullField is set on one; on Claim Status groups, ReserveAmount holds `numbers`
  // and ClaimantName `texts`. Other domains are refused (allowed: their tests are not-applicable).
  // `operatorFilters` (protocol 1.3.0, optional) is not stated: this endpoint declares 1.2.0, so the
  // suite never asks for it and the operator-class test is not-applicable (README.md says how to opt in).
  records: {
    async setup({ setupId, domain = 'Claim', count, sortRanks, sparseAt, numbers, texts }) {
      const shape = typeof domain === 'string' && Object.hasOwn(RECORDS, domain) ? RECORDS[domain] : undefined;
      if (!shape) throw new BadParams(`records: domain ${JSON.stringify(domain)} is not supported`);
      const n = Number(count);
      if (!Number.isInteger(n) || n < 1) throw new BadParams('records: count must be a whole number from 1');
      const ranks = sortRanks ?? Array.from({ length: n }, (_, i) => i);
      if (!Array.isArray(ranks) || ranks.length !== n || [...ranks].sort((a, b) => a - b).some((r, i) => r !== i))
        throw new BadParams('records: sortRanks must be a permutation of 0 .. count-1');
      const sparse = sparseAt === undefined ? 0 : Number(sparseAt);
      if (!(Number.isInteger(sparse) && sparse >= 0 && sparse < n))
        throw new BadParams('records: sparseAt is out of range');
      checkList('numbers', numbers, n);
      checkList('texts', texts, n);
      const claim = domain === 'Claim';
      if (!claim && (numbers !== undefined || texts !== undefined))
        throw new BadParams('records: numbers and texts are supported on Claim only');
      const prefix = `RC-${setupId}-`;
      const key = DOMAINS[domain].key;
      const ids = db().transaction(() =>
        ranks.map((rank, i) => {
          const values = {
            ...shape.fixed(),
            [shape.sortField]: prefix + String(rank).padStart(4, '0'),
            [shape.allNullColumn ?? shape.allNullField]: null,
            [shape.sometimesNullField]: i === sparse ? shape.sometimesValue : shape.otherwise,
            ...(claim
              ? {
                  ClaimantName: texts ? texts[i] : `cf-${setupId}`,
                  Status: `G${rank % 3}`,
                  ReserveAmount: numbers ? numbers[i] : null,
                }
              : {}),
          };
          const id = insert(domain, values);
          if (domain === 'File')
            db().prepare('INSERT INTO file_contents (FileID, Contents) VALUES (?, ?)').run(id, Buffer.alloc(0));
          remember('records', setupId, domain, key, id);
          return id;
        }),
      )();
      // the filter of this service: Field:op:value joined by && (a value's trailing spaces are trimmed)
      const filter = `${shape.sortField}:startswith:${prefix}`;
      const textFilter = (t) =>
        t === null || t.includes('&&') || t !== t.trimEnd() ? null : `${filter}&&ClaimantName:eq:${t}`;
      return {
        domain,
        ids,
        filter,
        ...(n >= 3
          ? {
              linqFilter: ids
                .filter((_, i) => i % 2 === 1 && i < n - 1)
                .map((id) => `${key} == ${id}`)
                .join(' || '),
            }
          : {}),
        sortField: shape.sortField,
        ...(claim && n >= 6 ? { groupField: 'Status' } : {}),
        allNullField: shape.allNullField,
        sometimesNullField: shape.sometimesNullField,
        ...(sortRanks !== undefined ? { sortRanks } : {}),
        ...(sparseAt !== undefined ? { sparseAt } : {}),
        ...(numbers !== undefined ? { numberField: 'ReserveAmount', numbers } : {}),
        ...(texts !== undefined ? { textField: 'ClaimantName', texts, textFilters: texts.map(textFilter) } : {}),
      };
    },
    async teardown({ setupId }) {
      removeCreated('records', setupId);
    },
  },

  'a file': {
    async setup({
      setupId,
      kind,
      linked,
      fileName,
      description,
      contentsBase64,
      sourceType = 'U',
      touched = false,
      parentDomain,
    }) {
      if (!['internal', 'externalDirectURL', 'externalRepository'].includes(kind))
        throw new BadParams(`a file: kind ${JSON.stringify(kind)} is not supported`);
      if (typeof fileName !== 'string' || typeof contentsBase64 !== 'string')
        throw new BadParams('a file: fileName and contentsBase64 are required');
      if (parentDomain !== undefined && !linked) throw new BadParams('a file: parentDomain needs linked: true');
      const parentName = parentDomain ?? 'Claim';
      return db().transaction(() => {
        const parent = linked
          ? { domain: parentName, id: insertRecord('a file', setupId, parentName, `FP-${setupId}`) }
          : undefined;
        const fileId = insertFile(
          'a file',
          setupId,
          { kind, fileName, description, contentsBase64, sourceType, touched },
          parent,
        );
        return {
          fileId,
          fileName,
          mimeType: extension(fileName),
          fileSize: Buffer.from(contentsBase64, 'base64').length,
          ...(parent ? { parentDomain: parent.domain, parentId: parent.id } : {}),
          ...(touched ? { touched: true } : {}),
        };
      })();
    },
    async teardown({ setupId }) {
      removeCreated('a file', setupId);
    },
  },

  'a record with files': {
    async setup({ setupId, domain = 'Claim', files, twinDomain, twinFiles = [] }) {
      if (!Array.isArray(files)) throw new BadParams('a record with files: files must be a list');
      domainOf(domain, 'a record with files');
      const twin = twinOf(domain, twinDomain, 'a record with files');
      return db()
        .transaction(() => {
          const forced = twin ? commonFreeId(domain, twin) : undefined;
          const id = insertRecord('a record with files', setupId, domain, `RF-${setupId}`, forced);
          const fileIds = files.map((f) =>
            insertFile('a record with files', setupId, { kind: 'internal', ...f }, { domain, id }),
          );
          if (!twin) return { domain, id, fileIds };
          insertRecord('a record with files', setupId, twin, `RT-${setupId}`, id);
          const twinFileIds = twinFiles.map((f) =>
            insertFile('a record with files', setupId, { kind: 'internal', ...f }, { domain: twin, id }),
          );
          return { domain, id, fileIds, twinDomain: twin, twinFileIds };
        })
        .immediate();
    },
    async teardown({ setupId }) {
      removeCreated('a record with files', setupId);
    },
  },

  'a contact': {
    async setup({ setupId }) {
      return db().transaction(() => {
        const contactId = insert('Contact', {
          FirstName: 'Conformance',
          LastName: setupId,
          Email: `${setupId}@example.test`,
        });
        const numericMatchKey = 700000 + contactId;
        db().prepare('UPDATE "Contact" SET ContactCode = ? WHERE ContactID = ?').run(numericMatchKey, contactId);
        remember('a contact', setupId, 'Contact', 'ContactID', contactId);
        return {
          contactId,
          textMatchField: 'Email',
          textMatchKey: `${setupId}@example.test`,
          numericMatchField: 'ContactCode',
          numericMatchKey,
          nonMatchableField: 'Name', // computed from FirstName and LastName: not a match field
        };
      })();
    },
    async teardown({ setupId }) {
      removeCreated('a contact', setupId);
    },
  },

  'a link parent': {
    async setup({ setupId, domain = 'Claim', twinDomain, customDomain = false }) {
      const name = customDomain ? 'Custom.Inspection' : domain;
      const d = domainOf(name, 'a link parent');
      const twin = twinOf(name, twinDomain, 'a link parent');
      const textMatchKey = `LP-${setupId}`;
      return db()
        .transaction(() => {
          const forced = twin ? commonFreeId(name, twin) : undefined;
          const id = insertRecord('a link parent', setupId, name, textMatchKey, forced);
          if (twin) insertRecord('a link parent', setupId, twin, `LT-${setupId}`, id);
          return {
            domain: name,
            domainId: d.id,
            id,
            textMatchField: d.text,
            textMatchKey,
            // Location and Member have text fields only: no field to answer (the tests that read it are precondition-failed)
            ...(d.nonMatchable ? { nonMatchableField: d.nonMatchable } : {}),
            ...(twin ? { twinDomain: twin, twinDomainId: DOMAINS[twin].id } : {}),
            ...(customDomain ? { customDomain: true } : {}),
          };
        })
        .immediate();
    },
    async teardown({ setupId }) {
      removeCreated('a link parent', setupId);
    },
  },

  'contact relationships': {
    async setup() {
      return {
        relationships: db().prepare("SELECT Code FROM codes WHERE List = 'ContactType' ORDER BY CodeID").pluck().all(),
      };
    },
    async teardown() {
      // nothing created
    },
  },

  'a proposal': {
    async setup({
      setupId,
      type,
      status = 'open',
      boundSet = false,
      pendingExpiryChange = false,
      hasMember = false,
      rated = false,
      applicantValid = true,
      locations = 0,
    }) {
      if (!Object.hasOwn(PROPOSAL_TYPES, type))
        throw new BadParams(`a proposal: type ${JSON.stringify(type)} is not supported`);
      if (!['open', 'B', 'R', '0'].includes(status))
        throw new BadParams(`a proposal: status ${JSON.stringify(status)} is not supported`);
      const state = 'a proposal';
      return db().transaction(() => {
        const applicantName = applicantValid ? `Applicant ${setupId}` : '';
        const applicant = applicantValid
          ? {
              ApplicantName: applicantName,
              ApplicantAddress1: '1 Main St',
              ApplicantCity: 'Springfield',
              ApplicantStateCode: 'IL',
              ApplicantZipCode: '62701',
            }
          : { ApplicantName: '' };
        let memberId = null;
        if (hasMember) {
          memberId = insert('Member', { Name: applicantName || `Member ${setupId}` });
          remember(state, setupId, 'Member', 'MemberID', memberId);
        }
        let setId = null;
        if (boundSet) {
          setId = Number(
            db().prepare('INSERT INTO proposal_sets (Name, IsBound) VALUES (?, 1)').run(`set ${setupId}`)
              .lastInsertRowid,
          );
          remember(state, setupId, 'proposal_sets', 'ProposalSetID', setId);
        }
        const proposalId = insert('Proposal', {
          ProposalNumber: `P-${setupId}`,
          ProposalType: PROPOSAL_TYPES[type],
          StatusCode: status === 'open' ? 'Q' : status,
          ...applicant,
          MemberID: memberId,
          RatingStatus: rated ? 'C' : null,
          ProposalSetID: setId,
          PendingExpiryChange: pendingExpiryChange ? 1 : 0,
        });
        remember(state, setupId, 'Proposal', 'ProposalID', proposalId);
        const locationIds = Array.from({ length: Number(locations) }, (_, i) =>
          insert('ProposalLocation', {
            ProposalID: proposalId,
            LocationName: `Location ${i + 1} of ${setupId}`,
            City: 'Springfield',
            IsDeleted: 0,
          }),
        );
        return {
          proposalId,
          type,
          scheduleDomain: 'ProposalLocation',
          requiredField: 'LocationName',
          otherScheduleDomain: 'ProposalVehicle',
          locationIds,
          scheduleFilter: `ProposalID:eq:${proposalId}`,
          scheduleKey: 'ProposalLocationID',
          applicantName,
          memberId,
        };
      })();
    },
    async teardown({ setupId }) {
      // What the tests made of the proposal through the API goes with it: its schedule records,
      // policy changes and data-entry events, its bind status and jobs, and the member (CreateMember)
      // and policy (binding) it got. The database holds nothing of this fixture afterwards.
      const d = db();
      d.transaction(() => {
        for (const { table, id } of created.get(keyOf('a proposal', setupId)) ?? []) {
          if (table !== 'Proposal') continue;
          const memberId = d.prepare('SELECT MemberID FROM "Proposal" WHERE ProposalID = ?').pluck().get(id);
          const bound = d.prepare('SELECT PolicyID, MemberID FROM bind_status WHERE ProposalID = ?').get(id);
          for (const m of new Set([memberId, bound?.MemberID].filter((x) => x != null)))
            d.prepare('DELETE FROM "Member" WHERE MemberID = ?').run(m);
          if (bound?.PolicyID != null) d.prepare('DELETE FROM "Policy" WHERE PolicyID = ?').run(bound.PolicyID);
          for (const t of [
            'ProposalLocation',
            'ProposalVehicle',
            'PolicyChange',
            'DataEntryEvent',
            'bind_status',
            'bind_jobs',
          ])
            d.prepare(`DELETE FROM ${q(t)} WHERE ProposalID = ?`).run(id);
        }
      })();
      removeCreated('a proposal', setupId);
    },
  },

  // The service reads its settings when it starts: a value written into the table now would not
  // reach the running service. So this endpoint can bring about only the value the service runs
  // with; any other answers 501 (the tests that need it end precondition-failed, never faked).
  'a setting': {
    async setup({ name, value }) {
      if (name !== 'Service.EnableEnhancedSessionIDSecurity' || typeof value !== 'boolean')
        throw new BadParams('a setting: only Service.EnableEnhancedSessionIDSecurity with a boolean value');
      const stored = db().prepare('SELECT Value FROM settings WHERE Name = ?').pluck().get(name);
      const current = stored === undefined ? true : JSON.parse(stored); // the service's default: on
      if (current === value) return {};
      throw new Unavailable(
        `a setting: ${name} is ${current} in the running service, which reads its settings only when it starts; this endpoint cannot change it to ${value}`,
      );
    },
    async teardown() {
      // nothing changed
    },
  },
};

const problem = (status, title, detail) => ({ type: 'about:blank', title, status, detail });

/** The answer to one protocol call: [status, body]. */
export async function answer(call) {
  const handler = typeof call?.state === 'string' && Object.hasOwn(states, call.state) ? states[call.state] : undefined;
  if (!handler) return [400, problem(400, 'Unknown state', `unknown provider state ${JSON.stringify(call?.state)}`)];
  const params = call.params ?? {};
  try {
    if (call.action === 'teardown') {
      await handler.teardown(params);
      return [200, {}];
    }
    return [200, { protocol: PROTOCOL, ...(await handler.setup(params)) }];
  } catch (e) {
    if (e instanceof NotImplemented) return [501, problem(501, 'Not Implemented', e.message)];
    if (e instanceof BadParams) return [400, problem(400, 'Bad Request', e.message)];
    if (e instanceof Unavailable) return [501, problem(501, 'Not Implemented', e.message)];
    return [500, problem(500, 'State setup failed', e instanceof Error ? e.message : String(e))];
  }
}

export const server = http.createServer((req, res) => {
  const send = ([status, body]) => {
    res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (new URL(req.url ?? '/', 'http://x').pathname !== '/_provider-states')
    return send([404, problem(404, 'Not Found', 'the endpoint is POST /_provider-states')]);
  if (req.method !== 'POST')
    return send([405, problem(405, 'Method Not Allowed', 'the endpoint is POST /_provider-states')]);
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    let call;
    try {
      call = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send([400, problem(400, 'Bad Request', 'the body is not JSON')]);
    }
    const [status, body] = await answer(call);
    // LOG=1: one line per call, to see what the suite asked for
    if (process.env.LOG) console.log(`${call?.action} ${JSON.stringify(call?.state)} -> ${status}`);
    send([status, body]);
  });
});

// run as a program (not when imported): listen and say where
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const host = process.env.HOST || '127.0.0.1';
  server.listen(Number(process.env.PORT ?? 3999), host, () => {
    console.log(`listening on http://${host}:${server.address().port}/_provider-states`);
  });
}
