// The provider-state endpoint (spec/provider-states.yaml, protocol 1.2.0). Test builds only.
import { randomBytes } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { CUSTOM_DOMAIN, DOMAINS, contactTypes, localStamp, mimeOf } from './domains.mjs';

export const PROTOCOL = '1.2.0';
const PERMISSIONS = new Set(['View', 'Edit', 'AttachContacts', 'DetachContacts', 'AttachFiles', 'ModifyFiles', 'RestrictDownload', 'Full']);
const TYPES = new Set(['Endorsement', 'Quote', 'Application', 'Renewal', 'Rewrite', 'Reissue']);
const SYSTEM_USER = 1000000;

export class BadParams extends Error {}
export class CannotExist extends Error {}

/** @param {import('./domains.mjs').Store} store */
export function issueToken(store, userId, tag, expired = false) {
  const token = randomBytes(24).toString('base64url');
  const now = Date.now();
  store.tokens.set(token, { userId, tag, expiresAt: expired ? now - 60_000 : now + 8 * 3600_000 });
  return token;
}

const pad = (n, w = 4) => String(n).padStart(w, '0');

/**
 * @param {import('./domains.mjs').Store} store
 * @returns {Map<string, { setup: (p: any) => any }>}
 */
export function states(store) {
  /** @type {Map<string, { setup: (p: any) => any }>} */
  const m = new Map();

  m.set('a user', {
    setup(p) {
      let grants = null;
      if (p.grants !== undefined) {
        if (p.grants === null || typeof p.grants !== 'object' || Array.isArray(p.grants)) throw new BadParams('grants must be an object');
        grants = new Map();
        for (const [d, list] of Object.entries(p.grants)) {
          if (!Array.isArray(list) || list.some((x) => !PERMISSIONS.has(x))) throw new BadParams(`grants.${d}: unknown permission`);
          grants.set(d, new Set(list));
        }
      }
      const userId = store.nextId('user');
      store.users.set(userId, { userId, grants, tag: p.setupId, name: `conformance-${p.setupId}` });
      return { token: issueToken(store, userId, p.setupId), userId };
    },
  });

  m.set('an expired token', {
    setup(p) {
      const userId = store.nextId('user');
      store.users.set(userId, { userId, grants: null, tag: p.setupId, name: `expired-${p.setupId}` });
      return { token: issueToken(store, userId, p.setupId, true) };
    },
  });

  const makeLocation = (tag, name, city) =>
    store.insert('Location', { LocationName: name, Address1: '12 Harbour Road', City: city, StateCode: 'WA', ZipCode: '98402', IsPrimary: true, ExternalRef: tag }, tag);

  m.set('a record with associations', {
    setup(p) {
      const domain = p.domain ?? 'Claim';
      if (domain !== 'Claim') throw new BadParams(`a record with associations: domain ${domain} is not supported (Claim only)`);
      const loc = makeLocation(p.setupId, `Pier Warehouse ${p.setupId}`, 'Tacoma');
      const rec = store.insert('Claim', {
        ClaimNumber: `CLM-${p.setupId}`, ClaimantName: 'Ada Lovelace', Status: 'Open', ReserveAmount: 2750.25,
        Notes: null, LocationID: loc.LocationID, LossCause: 'PD', ExternalRef: p.setupId, LossDate: '2026-03-14',
      }, p.setupId);
      return {
        domain: 'Claim', id: rec.ClaimID, keyField: 'ClaimID', textField: 'ClaimNumber', textValue: rec.ClaimNumber,
        numberField: 'ReserveAmount', numberValue: 2750.25, nullField: 'Notes', associationField: 'Location',
        associationKeyField: 'LocationID', associatedDomain: 'Location', associatedId: loc.LocationID,
        associatedDisplay: loc.LocationName, associatedProperty: 'City', associatedPropertyValue: 'Tacoma',
        codedField: 'LossCause', codedCode: 'PD', codedDescription: 'Property damage',
      };
    },
  });

  m.set('a record with a missing association', {
    setup(p) {
      const domain = p.domain ?? 'Claim';
      if (domain !== 'Claim') throw new BadParams(`a record with a missing association: domain ${domain} is not supported (Claim only)`);
      const loc = makeLocation(p.setupId, `Gone ${p.setupId}`, 'Nowhere');
      const rec = store.insert('Claim', { ClaimNumber: `CLM-${p.setupId}`, LocationID: loc.LocationID, ExternalRef: p.setupId }, p.setupId);
      store.remove('Location', loc.LocationID);
      return { domain: 'Claim', id: rec.ClaimID, associationField: 'Location', associationKeyField: 'LocationID' };
    },
  });

  m.set('records', { setup: (p) => recordsState(store, p) });

  const newFile = (tag, { fileName, description = '', contentsBase64, kind = 'internal', sourceType = 'U', touched = false }) => {
    const bytes = Buffer.from(String(contentsBase64 ?? ''), 'base64');
    const now = new Date();
    const vals = {
      FileName: fileName, Description: description, EntryDate: localStamp(now), EntryUserID: SYSTEM_USER,
      ModifiedDate: null, ModifiedUserID: null, DownloadedDate: null, DownloadedUserID: null, DocumentStatusID: 1,
      SourceType: sourceType, UnlinkedAccessMode: 'OwnerOnly', ExternalFileRepositoryID: null, ExternalDirectURL: null,
      _bytes: bytes,
    };
    if (kind === 'externalDirectURL') vals.ExternalDirectURL = `https://files.example.test/${encodeURIComponent(fileName)}`;
    if (kind === 'externalRepository') vals.ExternalFileRepositoryID = 7;
    if (touched) {
      const later = new Date(now.getTime() + 1500);
      vals.ModifiedDate = localStamp(later);
      vals.ModifiedUserID = SYSTEM_USER;
      vals.DownloadedDate = localStamp(new Date(now.getTime() + 3000));
      vals.DownloadedUserID = SYSTEM_USER;
    }
    return store.insert('File', vals, tag);
  };
  const link = (tag, parentDomain, parentId, childDomain, childId, relationship = null) => {
    const id = store.nextId('link');
    store.links.set(id, { id, parentDomain, parentId, childDomain, childId, relationship, tag });
  };

  m.set('a file', {
    setup(p) {
      if (!['internal', 'externalDirectURL', 'externalRepository'].includes(p.kind)) throw new BadParams('kind is internal, externalDirectURL or externalRepository');
      if (typeof p.fileName !== 'string') throw new BadParams('fileName is required');
      const f = newFile(p.setupId, p);
      const out = { fileId: f.FileID, fileName: f.FileName, mimeType: mimeOf(f.FileName), fileSize: f._bytes.length };
      if (p.touched) out.touched = true;
      if (p.linked) {
        const domain = p.parentDomain ?? 'Incident';
        if (!DOMAINS.has(domain)) throw new BadParams(`unknown parentDomain ${domain}`);
        if (domain === 'File' || domain === 'Contact') throw new CannotExist(`${domain} records are link children here, never parents of files.`);
        const parent = parentRecord(store, domain, p.setupId);
        link(p.setupId, domain, parent, 'File', f.FileID);
        out.parentDomain = domain;
        out.parentId = parent;
      }
      return out;
    },
  });

  m.set('a record with files', {
    setup(p) {
      const domain = p.domain ?? 'Claim';
      if (!DOMAINS.has(domain) || domain === 'File') throw new BadParams(`domain ${domain} cannot hold files`);
      if (!Array.isArray(p.files)) throw new BadParams('files must be an array');
      let id;
      if (p.twinDomain !== undefined) {
        if (!DOMAINS.has(p.twinDomain) || p.twinDomain === domain || p.twinDomain === 'File') throw new BadParams(`twinDomain ${p.twinDomain} is not usable`);
        id = store.sharedId([domain, p.twinDomain]);
        parentRecord(store, domain, p.setupId, id);
        parentRecord(store, p.twinDomain, p.setupId, id);
      } else {
        id = parentRecord(store, domain, p.setupId);
      }
      const fileIds = p.files.map((spec) => {
        const f = newFile(p.setupId, spec);
        link(p.setupId, domain, id, 'File', f.FileID);
        return f.FileID;
      });
      const out = { domain, id, fileIds };
      if (p.twinDomain !== undefined) {
        out.twinDomain = p.twinDomain;
        out.twinFileIds = (p.twinFiles ?? []).map((spec) => {
          const f = newFile(p.setupId, spec);
          link(p.setupId, p.twinDomain, id, 'File', f.FileID);
          return f.FileID;
        });
      }
      return out;
    },
  });

  m.set('a contact', {
    setup(p) {
      const number = 7000000 + (store.nextId('contactNumber') - 1000000);
      const c = store.insert('Contact', {
        ContactName: `Grace Hopper ${p.setupId}`, Email: `${p.setupId}@contacts.example.test`, ContactNumber: number,
        BirthDate: '1906-12-09', IsCompany: false, ExternalRef: p.setupId,
      }, p.setupId);
      return {
        contactId: c.ContactID, textMatchField: 'Email', textMatchKey: c.Email, numericMatchField: 'ContactNumber',
        numericMatchKey: number, nonMatchableField: 'BirthDate',
      };
    },
  });

  m.set('a link parent', {
    setup(p) {
      const domain = p.customDomain === true ? CUSTOM_DOMAIN : (p.domain ?? 'Claim');
      const def = DOMAINS.get(domain);
      if (!def) throw new BadParams(`unknown domain ${domain}`);
      if (domain === 'File' || domain === 'Contact') throw new BadParams(`${domain} is a link child domain here`);
      let id;
      if (p.twinDomain !== undefined) {
        const twin = DOMAINS.get(p.twinDomain);
        if (!twin || p.twinDomain === domain) throw new BadParams(`twinDomain ${p.twinDomain} is not usable`);
        id = store.sharedId([domain, p.twinDomain]);
        parentRecord(store, domain, p.setupId, id);
        parentRecord(store, p.twinDomain, p.setupId, id);
      } else {
        id = parentRecord(store, domain, p.setupId);
      }
      const rec = store.get(domain, id);
      const out = {
        domain, domainId: def.id, id, textMatchField: def.matchText, textMatchKey: rec[def.matchText], nonMatchableField: def.nonMatch,
      };
      if (p.twinDomain !== undefined) {
        out.twinDomain = p.twinDomain;
        out.twinDomainId = DOMAINS.get(p.twinDomain)?.id;
      }
      if (p.customDomain === true) out.customDomain = true;
      return out;
    },
  });

  m.set('contact relationships', { setup: () => ({ relationships: [...contactTypes.keys()] }) });

  m.set('a proposal', { setup: (p) => proposalState(store, p) });

  /** @type {Map<string, boolean>} previous values by setupId */
  const previous = new Map();
  m.set('a setting', {
    setup(p) {
      if (p.name !== 'Service.EnableEnhancedSessionIDSecurity') throw new BadParams(`unknown setting ${p.name}`);
      if (typeof p.value !== 'boolean') throw new BadParams('value must be a boolean');
      previous.set(p.setupId, /** @type {boolean} */ (store.settings.get(p.name)));
      store.settings.set(p.name, p.value);
      return {};
    },
    teardown(p) {
      if (previous.has(p.setupId)) {
        store.settings.set(p.name, /** @type {boolean} */ (previous.get(p.setupId)));
        previous.delete(p.setupId);
      }
    },
  });
  return m;
}

/**
 * A record of any domain that can be a parent, with a unique text match value.
 * @param {import('./domains.mjs').Store} store
 */
function parentRecord(store, domain, tag, id) {
  const def = /** @type {import('./domains.mjs').DomainDef} */ (DOMAINS.get(domain));
  const vals = {};
  const text = def.matchText;
  if (text) vals[text] = `${def.key.replace(/ID$/, '').toUpperCase()}-${tag}-${id ?? 'x'}`;
  if (def.tagField) vals[def.tagField] = tag;
  if (domain === 'Proposal') Object.assign(vals, { ProposalType: 'Quote', StatusCode: 'P', RatingStatus: 'Q', ApplicantName: 'Link Parent Ltd', MemberID: null, ProposalSetBound: false, PendingExpiryChange: false, _bind: { status: 'NotBound' } });
  const rec = store.insert(domain, vals, tag, id);
  if (text) rec[text] = `${def.key.replace(/ID$/, '').toUpperCase()}-${tag}-${rec[def.key]}`;
  return rec[def.key];
}

/** The `records` state. */
function recordsState(store, p) {
  const domain = p.domain ?? 'Claim';
  const n = Number(p.count);
  if (!Number.isInteger(n) || n < 1 || n > 150) throw new BadParams('count must be 1..150');
  const ranks = p.sortRanks ?? Array.from({ length: n }, (_, i) => i);
  if (!Array.isArray(ranks) || ranks.length !== n || [...ranks].sort((a, b) => a - b).some((r, i) => r !== i)) throw new BadParams('sortRanks must be a permutation of 0..count-1');
  const sparse = p.sparseAt === undefined ? 0 : Number(p.sparseAt);
  if (!(Number.isInteger(sparse) && sparse >= 0 && sparse < n)) throw new BadParams('sparseAt is out of range');
  if (p.numbers !== undefined && (!Array.isArray(p.numbers) || p.numbers.length !== n)) throw new BadParams('numbers must have count values');
  if (p.texts !== undefined && (!Array.isArray(p.texts) || p.texts.length !== n)) throw new BadParams('texts must have count values');
  const tag = p.setupId;
  const ids = [];
  /** @type {Record<string, unknown>} */
  const out = { domain };
  const lambda = (key) => (id) => `r.${key} == ${id}`;
  if (domain === 'Claim') {
    for (let i = 0; i < n; i++) {
      const rec = store.insert('Claim', {
        ClaimNumber: `CN-${tag}-${pad(ranks[i])}`, ClaimantName: `Claimant ${i}`, Status: null, Notes: null,
        ReserveAmount: i === sparse ? 100 : null, PaidAmount: p.numbers ? p.numbers[i] : null,
        Description: p.texts ? p.texts[i] : null, ExternalRef: `rs-${tag}`, LossDate: '2026-01-15',
      }, tag);
      ids.push(rec.ClaimID);
    }
    const groups = n >= 6 ? 3 : n >= 4 ? 2 : 0;
    if (groups) {
      ids.forEach((id, i) => { store.get('Claim', id).Status = `grp${(i % groups) + 1}`; });
      out.groupField = 'Status';
    }
    Object.assign(out, { filter: `ExternalRef eq 'rs-${tag}'`, sortField: 'ClaimNumber', allNullField: 'Notes', sometimesNullField: 'ReserveAmount' });
    if (p.numbers) Object.assign(out, { numberField: 'PaidAmount', numbers: p.numbers });
    if (p.texts) {
      const q = (s) => `'${s.replace(/'/g, "''")}'`;
      Object.assign(out, {
        textField: 'Description', texts: p.texts,
        textFilters: p.texts.map((t) => (t === null ? null : `ExternalRef eq 'rs-${tag}' and Description eq ${q(t)}`)),
      });
    }
    if (n >= 3) out.linqFilter = `r => ${ids.filter((_, i) => i % 2 === 1 && i < n - 1).map(lambda('ClaimID')).join(' || ')}`;
  } else if (domain === CUSTOM_DOMAIN) {
    if (p.numbers || p.texts) throw new BadParams('numbers and texts are supported on Claim records only');
    for (let i = 0; i < n; i++) {
      const rec = store.insert(domain, {
        SurveyNumber: `SV-${tag}-${pad(ranks[i])}`, Surveyor: `Surveyor ${i}`, Findings: null, Score: i === sparse ? 7 : null,
        ExternalRef: `rs-${tag}`, SurveyDate: '2026-02-01',
      }, tag);
      ids.push(rec.SiteSurveyID);
    }
    Object.assign(out, { filter: `ExternalRef eq 'rs-${tag}'`, sortField: 'SurveyNumber', allNullField: 'Findings', sometimesNullField: 'Score' });
    if (n >= 3) out.linqFilter = `r => ${ids.filter((_, i) => i % 2 === 1 && i < n - 1).map(lambda('SiteSurveyID')).join(' || ')}`;
  } else if (domain === 'File') {
    if (p.numbers || p.texts) throw new BadParams('numbers and texts are supported on Claim records only');
    const now = new Date();
    for (let i = 0; i < n; i++) {
      const rec = store.insert('File', {
        FileName: `rf-${tag}-${i}.txt`, Description: `FD-${tag}-${pad(ranks[i])}`, EntryDate: localStamp(now), EntryUserID: SYSTEM_USER,
        ModifiedDate: i === sparse ? localStamp(new Date(now.getTime() + 1000)) : null, ModifiedUserID: null,
        DownloadedDate: null, DownloadedUserID: null, DocumentStatusID: 1, SourceType: 'U', UnlinkedAccessMode: 'OwnerOnly',
        ExternalFileRepositoryID: null, ExternalDirectURL: null, _bytes: Buffer.from(`records file ${i}`),
      }, tag);
      ids.push(rec.FileID);
    }
    Object.assign(out, { filter: `Description sw 'FD-${tag}-'`, sortField: 'Description', allNullField: 'DownloadedDate', sometimesNullField: 'ModifiedDate' });
    if (n >= 3) out.linqFilter = `r => ${ids.filter((_, i) => i % 2 === 1 && i < n - 1).map(lambda('FileID')).join(' || ')}`;
  } else {
    throw new BadParams(`records: domain ${domain} is not supported (Claim, File and ${CUSTOM_DOMAIN} are)`);
  }
  out.ids = ids;
  if (p.sortRanks !== undefined) out.sortRanks = p.sortRanks;
  if (p.sparseAt !== undefined) out.sparseAt = p.sparseAt;
  return out;
}

/** The `a proposal` state. */
function proposalState(store, p) {
  if (!TYPES.has(p.type)) throw new BadParams(`type must be one of ${[...TYPES].join(', ')}`);
  const status = p.status ?? 'open';
  if (!['open', 'B', 'R', '0'].includes(status)) throw new BadParams('status is open, B, R or 0');
  const tag = p.setupId;
  const locations = p.locations ?? 0;
  if (!Number.isInteger(locations) || locations < 0 || locations > 100) throw new BadParams('locations must be 0..100');
  const applicantValid = p.applicantValid !== false;
  const applicantName = applicantValid ? `Harbour Freight Co ${tag}` : '';
  let memberId = null;
  if (p.hasMember) {
    const m = store.insert('Member', { MemberName: applicantName || `Member ${tag}`, MemberNumber: '', JoinedOn: '2025-05-01', ExternalRef: tag }, tag);
    m.MemberNumber = `MBR-${m.MemberID}`;
    memberId = m.MemberID;
  }
  const prop = store.insert('Proposal', {
    ProposalNumber: '', ProposalType: p.type, StatusCode: status === 'open' ? 'P' : status, MemberID: memberId,
    ApplicantName: applicantName, RatingStatus: p.rated ? 'C' : 'Q', EffectiveDate: '2027-01-01',
    ProposalSetBound: p.boundSet === true, PendingExpiryChange: p.pendingExpiryChange === true, ExternalRef: tag,
    _bind: { status: 'NotBound' }, _applicantValid: applicantValid, _timer: null,
  }, tag);
  prop.ProposalNumber = `PRP-${prop.ProposalID}`;
  if (status === 'B' && memberId !== null) {
    const member = store.get('Member', memberId);
    const pol = store.insert('Policy', { PolicyNumber: '', InsuredName: member.MemberName, MemberID: memberId, ProposalID: prop.ProposalID, ExternalRef: tag }, tag);
    pol.PolicyNumber = `POL-2026-${pol.PolicyID}`;
    prop._bind = { status: 'Bound', policyId: pol.PolicyID, memberId, policyNumber: pol.PolicyNumber, memberName: member.MemberName, boundAt: new Date().toISOString() };
  }
  const locationIds = [];
  for (let i = 0; i < locations; i++) {
    const l = store.insert('ProposalLocation', {
      ProposalID: prop.ProposalID, LocationName: `Site ${i + 1} of ${prop.ProposalNumber}`, Address1: `${i + 1} Dock Street`,
      City: 'Tacoma', StateCode: 'WA', ZipCode: '98402', IsDeleted: false,
    }, tag);
    locationIds.push(l.ProposalLocationID);
  }
  return {
    proposalId: prop.ProposalID, type: p.type, scheduleDomain: 'ProposalLocation', requiredField: 'LocationName',
    otherScheduleDomain: 'ProposalVehicle', locationIds, scheduleFilter: `ProposalID eq ${prop.ProposalID}`,
    scheduleKey: 'ProposalLocationID', applicantName, memberId,
  };
}
