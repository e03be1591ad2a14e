// Domain catalogue, the in-memory store and column reading (spec 2, 4.1).
// Every lookup keyed by a name from a request goes through a Map, never a plain object.

/**
 * @typedef {{ type: 'key'|'text'|'number'|'bool'|'date'|'assoc'|'coded'|'computed',
 *   target?: string, via?: string, codes?: Map<string,string>,
 *   compute?: (rec: any, ctx: any) => unknown, inDefault?: boolean, singleDefault?: boolean }} FieldDef
 * @typedef {{ id: number, name: string, singular: string, plural: string, key: string,
 *   fields: Map<string, FieldDef>, display?: string, matchText?: string, nonMatch?: string,
 *   tagField?: string, schedule?: boolean, custom?: boolean }} DomainDef
 */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} slug
   * @param {string} detail
   */
  constructor(status, slug, detail) {
    super(detail);
    this.status = status;
    this.slug = slug;
  }
}

const CONTACT_TYPES = new Map([
  ['CT-ADJUSTER', 'Adjuster'],
  ['CT-BROKER', 'Broker'],
  ['CT-CLAIMANT', 'Claimant'],
  ['CT-DEFENSE-ATTORNEY', 'Defense Attorney'],
  ['CT-EXPERT-WITNESS', 'Expert Witness'],
]);
export const contactTypes = CONTACT_TYPES;

const LOSS_CAUSES = new Map([
  ['PD', 'Property damage'],
  ['BI', 'Bodily injury'],
  ['TH', 'Theft'],
]);
export const lossCauses = LOSS_CAUSES;

/**
 * @param {Array<[string, FieldDef['type'], Partial<FieldDef>?]>} list
 * @returns {Map<string, FieldDef>}
 */
function fields(list) {
  const m = new Map();
  for (const [name, type, extra] of list) m.set(name, { type, ...(extra ?? {}) });
  return m;
}

/** @type {Map<string, DomainDef>} */
export const DOMAINS = new Map();

/** @param {DomainDef} def */
function add(def) {
  DOMAINS.set(def.name, def);
}

add({
  id: 1, name: 'Claim', singular: 'Claim', plural: 'Claims', key: 'ClaimID', display: 'ClaimNumber',
  matchText: 'ClaimNumber', nonMatch: 'LossDate', tagField: 'ExternalRef',
  fields: fields([
    ['ClaimID', 'key'], ['ClaimNumber', 'text'], ['ClaimantName', 'text'], ['Status', 'text'],
    ['Description', 'text'], ['Notes', 'text'], ['ReserveAmount', 'number'], ['PaidAmount', 'number'],
    ['LossDate', 'date'], ['ExternalRef', 'text'], ['LocationID', 'number'],
    ['Location', 'assoc', { target: 'Location', via: 'LocationID' }],
    ['LossCause', 'coded', { codes: LOSS_CAUSES }],
  ]),
});
add({
  id: 2, name: 'Contact', singular: 'Contact', plural: 'Contacts', key: 'ContactID', display: 'ContactName',
  matchText: 'Email', nonMatch: 'BirthDate', tagField: 'ExternalRef',
  fields: fields([
    ['ContactID', 'key'], ['ContactName', 'text'], ['Email', 'text'], ['ContactNumber', 'number'],
    ['BirthDate', 'date'], ['IsCompany', 'bool'], ['ExternalRef', 'text'],
  ]),
});
add({
  id: 3, name: 'Location', singular: 'Location', plural: 'Locations', key: 'LocationID', display: 'LocationName',
  matchText: 'LocationName', nonMatch: 'IsPrimary', tagField: 'ExternalRef',
  fields: fields([
    ['LocationID', 'key'], ['LocationName', 'text'], ['Address1', 'text'], ['City', 'text'],
    ['StateCode', 'text'], ['ZipCode', 'text'], ['IsPrimary', 'bool'], ['ExternalRef', 'text'],
  ]),
});
add({
  id: 4, name: 'File', singular: 'File', plural: 'Files', key: 'FileID', display: 'FileName',
  matchText: 'FileName', nonMatch: 'EntryDate',
  fields: fields([
    ['FileID', 'key'], ['FileName', 'text'], ['Description', 'text'],
    ['MimeType', 'computed', { compute: (r) => mimeOf(r.FileName) }],
    ['FileSize', 'computed', { compute: (r) => r._bytes.length }],
    ['EntryDate', 'date'], ['EntryUserID', 'number'], ['ModifiedDate', 'date'], ['ModifiedUserID', 'number'],
    ['DownloadedDate', 'date'], ['DownloadedUserID', 'number'], ['DocumentStatusID', 'number'],
    ['SourceType', 'text'],
    ['IsUnlinked', 'computed', { compute: (r, ctx) => !ctx.store.fileHasParent(r.FileID) }],
    ['UnlinkedAccessMode', 'text'], ['ExternalFileRepositoryID', 'number'], ['ExternalDirectURL', 'text'],
    ['Contents', 'computed', { compute: (r) => r._bytes.toString('base64'), inDefault: false, singleDefault: true }],
    ['DownloadURL', 'computed', { compute: downloadUrl, inDefault: false }],
  ]),
});
add({
  id: 5, name: 'Note', singular: 'Note', plural: 'Notes', key: 'NoteID', display: 'Subject',
  matchText: 'Subject', nonMatch: 'CreatedOn', tagField: 'ExternalRef',
  fields: fields([['NoteID', 'key'], ['Subject', 'text'], ['Body', 'text'], ['CreatedOn', 'date'], ['ExternalRef', 'text']]),
});
add({
  id: 6, name: 'Policy', singular: 'Policy', plural: 'Policies', key: 'PolicyID', display: 'PolicyNumber',
  matchText: 'PolicyNumber', nonMatch: 'EffectiveDate', tagField: 'ExternalRef',
  fields: fields([
    ['PolicyID', 'key'], ['PolicyNumber', 'text'], ['InsuredName', 'text'], ['EffectiveDate', 'date'],
    ['Premium', 'number'], ['MemberID', 'number'], ['ProposalID', 'number'], ['ExternalRef', 'text'],
  ]),
});
add({
  id: 7, name: 'Task', singular: 'Task', plural: 'Tasks', key: 'TaskID', display: 'TaskTitle',
  matchText: 'TaskTitle', nonMatch: 'DueDate', tagField: 'ExternalRef',
  fields: fields([['TaskID', 'key'], ['TaskTitle', 'text'], ['DueDate', 'date'], ['Priority', 'number'], ['ExternalRef', 'text']]),
});
add({
  id: 11, name: 'Incident', singular: 'Incident', plural: 'Incidents', key: 'IncidentID', display: 'IncidentNumber',
  matchText: 'IncidentNumber', nonMatch: 'OccurredOn', tagField: 'ExternalRef',
  fields: fields([
    ['IncidentID', 'key'], ['IncidentNumber', 'text'], ['Summary', 'text'], ['OccurredOn', 'date'],
    ['ExternalRef', 'text'], ['LocationID', 'number'], ['Location', 'assoc', { target: 'Location', via: 'LocationID' }],
  ]),
});
add({
  id: 41, name: 'Member', singular: 'Member', plural: 'Members', key: 'MemberID', display: 'MemberName',
  matchText: 'MemberNumber', nonMatch: 'JoinedOn', tagField: 'ExternalRef',
  fields: fields([['MemberID', 'key'], ['MemberName', 'text'], ['MemberNumber', 'text'], ['JoinedOn', 'date'], ['ExternalRef', 'text']]),
});
add({
  id: 42, name: 'Proposal', singular: 'Proposal', plural: 'Proposals', key: 'ProposalID', display: 'ProposalNumber',
  matchText: 'ProposalNumber', nonMatch: 'EffectiveDate', tagField: 'ExternalRef',
  fields: fields([
    ['ProposalID', 'key'], ['ProposalNumber', 'text'], ['ProposalType', 'text'], ['StatusCode', 'text'],
    ['MemberID', 'number'], ['ApplicantName', 'text'], ['RatingStatus', 'text'], ['EffectiveDate', 'date'],
    ['ProposalSetBound', 'bool'], ['PendingExpiryChange', 'bool'], ['ExternalRef', 'text'],
  ]),
});
add({
  id: 43, name: 'ProposalLocation', singular: 'Proposal Location', plural: 'Proposal Locations', key: 'ProposalLocationID',
  display: 'LocationName', matchText: 'LocationName', nonMatch: 'IsDeleted', schedule: true,
  fields: fields([
    ['ProposalLocationID', 'key'], ['ProposalID', 'number'], ['LocationName', 'text'], ['Address1', 'text'],
    ['City', 'text'], ['StateCode', 'text'], ['ZipCode', 'text'], ['IsDeleted', 'bool'],
  ]),
});
add({
  id: 44, name: 'ProposalVehicle', singular: 'Proposal Vehicle', plural: 'Proposal Vehicles', key: 'ProposalVehicleID',
  display: 'VehicleName', matchText: 'VIN', nonMatch: 'IsDeleted', schedule: true,
  fields: fields([
    ['ProposalVehicleID', 'key'], ['ProposalID', 'number'], ['VehicleName', 'text'], ['VIN', 'text'],
    ['Make', 'text'], ['ModelYear', 'number'], ['IsDeleted', 'bool'],
  ]),
});
add({
  id: 5001, name: 'Custom.SiteSurvey', singular: 'Site Survey', plural: 'Site Surveys', key: 'SiteSurveyID',
  display: 'SurveyNumber', matchText: 'SurveyNumber', nonMatch: 'SurveyDate', tagField: 'ExternalRef', custom: true,
  fields: fields([
    ['SiteSurveyID', 'key'], ['SurveyNumber', 'text'], ['Surveyor', 'text'], ['Findings', 'text'],
    ['Score', 'number'], ['SurveyDate', 'date'], ['ExternalRef', 'text'], ['LocationID', 'number'],
    ['Location', 'assoc', { target: 'Location', via: 'LocationID' }],
  ]),
});

export const CUSTOM_DOMAIN = 'Custom.SiteSurvey';
export const LINKABLE = new Set(['Contact', 'File']);

/** @param {unknown} name */
export function mimeOf(name) {
  const s = String(name ?? '');
  const dot = s.lastIndexOf('.');
  return dot > 0 && dot < s.length - 1 ? s.slice(dot).toLowerCase() : '';
}

/**
 * @param {any} r
 * @param {any} ctx
 */
function downloadUrl(r, ctx) {
  if (!ctx.store.settings.get('Service.EnableEnhancedSessionIDSecurity')) {
    throw new ApiError(500, 'server-error', 'Object reference not set to an instance of an object.');
  }
  if (r.ExternalFileRepositoryID != null || r.ExternalDirectURL != null) return '';
  const u = ctx.user;
  if (u && ctx.store.hasPerm(u, 'File', 'RestrictDownload') && !ctx.store.hasPerm(u, 'File', 'Full')) return '';
  return `WebApp/Documents/Download?fileKey=${r.FileID}&name=${encodeURIComponent(r.FileName)}`;
}

/** UTC timestamp with milliseconds and no zone designator (spec 2.2 EntryDate). */
export function localStamp(d = new Date()) {
  return d.toISOString().replace('Z', '');
}

export class Store {
  constructor() {
    /** @type {Map<string, Map<number, any>>} */
    this.records = new Map();
    for (const name of DOMAINS.keys()) this.records.set(name, new Map());
    /** @type {Map<string, number>} */
    this.seq = new Map();
    /** @type {Map<number, any>} */
    this.links = new Map();
    /** @type {Map<string, any>} token -> session */
    this.tokens = new Map();
    /** @type {Map<number, any>} */
    this.users = new Map();
    /** @type {Map<string, boolean>} */
    this.settings = new Map([['Service.EnableEnhancedSessionIDSecurity', true]]);
    /** @type {any[]} */
    this.events = [];
    /** @type {any[]} */
    this.policyChanges = [];
  }

  /** @param {string} series */
  nextId(series) {
    const n = (this.seq.get(series) ?? 1000000) + 1;
    this.seq.set(series, n);
    return n;
  }

  /** IDs of domains a and b allocated together, so both can hold a record with it. */
  /** @param {string[]} names */
  sharedId(names) {
    const n = Math.max(...names.map((s) => (this.seq.get(s) ?? 1000000) + 1));
    for (const s of names) this.seq.set(s, n);
    return n;
  }

  /**
   * @param {string} domain
   * @param {Record<string, unknown>} values
   * @param {string|null} tag
   * @param {number} [id]
   */
  insert(domain, values, tag, id) {
    const def = /** @type {DomainDef} */ (DOMAINS.get(domain));
    const rid = id ?? this.nextId(domain);
    const rec = Object.create(null);
    for (const [name, f] of def.fields) {
      if (f.type === 'computed' || f.type === 'assoc') continue;
      rec[name] = null;
    }
    for (const [k, v] of Object.entries(values)) rec[k] = v;
    rec[def.key] = rid;
    rec._tag = tag;
    /** @type {Map<number, any>} */ (this.records.get(domain)).set(rid, rec);
    return rec;
  }

  /**
   * @param {string} domain
   * @param {number} id
   */
  get(domain, id) {
    return this.records.get(domain)?.get(id);
  }

  /**
   * @param {string} domain
   * @param {number} id
   */
  remove(domain, id) {
    const def = DOMAINS.get(domain);
    this.records.get(domain)?.delete(id);
    if (!def) return;
    for (const [lid, l] of this.links) {
      if ((l.parentDomain === domain && l.parentId === id) || (l.childDomain === domain && l.childId === id)) {
        this.links.delete(lid);
      }
    }
  }

  /** @param {number} fileId */
  fileHasParent(fileId) {
    for (const l of this.links.values()) if (l.childDomain === 'File' && l.childId === fileId) return true;
    return false;
  }

  /**
   * @param {any} user
   * @param {string} domain
   * @param {string} perm
   */
  hasPerm(user, domain, perm) {
    if (user.grants === null) return perm !== 'RestrictDownload';
    const g = user.grants.get(domain);
    return Boolean(g && g.has(perm));
  }

  /**
   * A domain is accessible when the user holds any permission on it but RestrictDownload.
   * @param {any} user
   * @param {string} domain
   */
  canAccess(user, domain) {
    if (user.grants === null) return true;
    const g = user.grants.get(domain);
    if (!g) return false;
    for (const p of g) if (p !== 'RestrictDownload') return true;
    return false;
  }

  /** @param {string} tag */
  teardown(tag) {
    for (const [domain, map] of this.records) {
      for (const [id, rec] of map) {
        if (rec._tag === tag) {
          if (rec._timer) clearTimeout(rec._timer);
          this.remove(domain, id);
        }
      }
    }
    for (const [lid, l] of this.links) if (l.tag === tag) this.links.delete(lid);
    for (const [tok, s] of this.tokens) if (s.tag === tag) this.tokens.delete(tok);
    for (const [uid, u] of this.users) if (u.tag === tag) this.users.delete(uid);
  }
}

/**
 * A parsed column request.
 * @typedef {{ name: string, key: string, base: string, prop: string|null }} Column
 */

/**
 * Parse and check the `columns` parameter against a domain.
 * @param {DomainDef} def
 * @param {string|null} raw
 * @param {{ single?: boolean, noContents?: boolean }} opts
 * @returns {Column[]}
 */
export function parseColumns(def, raw, opts = {}) {
  /** @type {Column[]} */
  const out = [];
  if (raw === null || raw.trim() === '') {
    for (const [name, f] of def.fields) {
      if (f.type === 'assoc' || f.type === 'coded') continue;
      const inDefault = opts.single ? (f.singleDefault ?? f.inDefault ?? true) : (f.inDefault ?? true);
      if (!inDefault) continue;
      if (name === 'Contents' && opts.noContents) continue;
      out.push({ name, key: name, base: name, prop: null });
    }
    return out;
  }
  const seen = new Set();
  for (const part of raw.split(',')) {
    const item = part.trim();
    if (item === '') throw new ApiError(422, 'invalid-columns', 'An empty column name is in `columns`.');
    const m = /^(\S+)\s+as\s+(\S+)$/i.exec(item);
    const name = m ? m[1] : item;
    const key = m ? m[2] : item;
    if (/\s/.test(name)) throw new ApiError(422, 'invalid-columns', `Column "${item}" cannot be read.`);
    const dot = name.indexOf('.');
    const base = dot < 0 ? name : name.slice(0, dot);
    const prop = dot < 0 ? null : name.slice(dot + 1);
    checkColumn(def, base, prop, name);
    if (name === 'Contents' && opts.noContents) {
      throw new ApiError(422, 'contents-not-here', 'Contents is returned by single-record reads and the attached-files listing only.');
    }
    if (seen.has(key)) throw new ApiError(422, 'invalid-columns', `The answer key "${key}" is requested twice.`);
    seen.add(key);
    out.push({ name, key, base, prop });
  }
  return out;
}

/**
 * @param {DomainDef} def
 * @param {string} base
 * @param {string|null} prop
 * @param {string} name
 */
function checkColumn(def, base, prop, name) {
  const f = def.fields.get(base);
  if (!f) throw new ApiError(422, 'unknown-column', `${def.name} has no column "${name}".`);
  if (prop === null) return;
  if (f.type === 'assoc') {
    const target = /** @type {DomainDef} */ (DOMAINS.get(/** @type {string} */ (f.target)));
    const tf = target.fields.get(prop);
    if (!tf || tf.type === 'assoc' || tf.type === 'computed') {
      throw new ApiError(422, 'unknown-column', `${target.name} has no property "${prop}" (column "${name}").`);
    }
    return;
  }
  if (f.type === 'coded') {
    if (prop !== 'Code' && prop !== 'Description') {
      throw new ApiError(422, 'unknown-column', `A coded field has the properties Code and Description, not "${prop}".`);
    }
    return;
  }
  throw new ApiError(422, 'unknown-column', `"${base}" is neither an association nor a coded field (column "${name}").`);
}

/**
 * Value of a column on a record.
 * @param {DomainDef} def
 * @param {any} rec
 * @param {string} base
 * @param {string|null} prop
 * @param {any} ctx
 */
export function readColumn(def, rec, base, prop, ctx) {
  const f = /** @type {FieldDef} */ (def.fields.get(base));
  if (f.type === 'computed') return /** @type {NonNullable<FieldDef['compute']>} */ (f.compute)(rec, ctx);
  if (f.type === 'assoc') {
    const ref = rec[/** @type {string} */ (f.via)];
    const target = /** @type {DomainDef} */ (DOMAINS.get(/** @type {string} */ (f.target)));
    const other = typeof ref === 'number' ? ctx.store.get(target.name, ref) : undefined;
    if (prop === null) {
      if (!ctx.resolve || !other) return null;
      return other[/** @type {string} */ (target.display)] ?? null;
    }
    if (!other) return null;
    return readColumn(target, other, prop, null, ctx);
  }
  if (f.type === 'coded') {
    const code = rec[base];
    if (prop === null || code == null) return null;
    if (prop === 'Code') return code;
    return /** @type {Map<string,string>} */ (f.codes).get(code) ?? null;
  }
  const v = Object.hasOwn(rec, base) ? rec[base] : null;
  return v === undefined ? null : v;
}

/**
 * @param {DomainDef} def
 * @param {any} rec
 * @param {Column[]} cols
 * @param {any} ctx
 */
export function project(def, rec, cols, ctx) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const c of cols) {
    Object.defineProperty(out, c.key, {
      value: readColumn(def, rec, c.base, c.prop, ctx),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
