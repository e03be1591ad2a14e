// What the interface shows after a step, compared with the model (oracle.ts): every schedule record
// of both proposals read by ID, each proposal's records listed whole (when the proposal state gives
// its filter), and every contact's links. A difference is blamed on the rule of the step just taken
// (blame.ts): the read-back is how that step is judged, and it covers the records the step did not
// name as well (what must not have changed anywhere else).
import { expect } from 'vitest';
import type { Ctx } from '../request.js';
import { readRecord, scheduleSet, type ProposalValues } from '../schedules.js';
import { judged } from './blame.js';
import { linkedParents, relationshipIndex, type LinkSlot } from './links-oracle.js';
import { LOC_FIELD_NAMES, adoptListed, expectedRead, type Model, type ScheduleRecord } from './oracle.js';
import type { SequenceTally } from './coverage.js';
import type { Users } from './users.js';

/** DomainID of Contact (spec 2.1). */
const CONTACT_DOMAIN_ID = 2;
const LINK_COLUMNS = 'ParentDomainID,ParentID,ChildDomainID,ChildID';

/** One proposal of the run, as its provider state gave it. */
interface RealProposal {
  proposalId: number;
  scheduleDomain: string;
  /** The schedule domain's key column, when the proposal state named it (a read by ID is checked on it). */
  scheduleKey?: string;
  values: ProposalValues;
}

interface LinkParent {
  domain: string;
  domainId: number;
  id: number;
  textMatchField: string;
  textMatchKey: string;
}

/** The real system of one run: the records the provider states made, and a log of the steps. */
export interface Real {
  t: Ctx;
  proposals: RealProposal[];
  parents: LinkParent[];
  contacts: number[];
  relationships: string[];
  /** A user of each class of grants on the parents' domain and Contact (users.ts). */
  users: Users;
  /** The steps of this sequence as drawn (coverage.ts). */
  tally: SequenceTally;
  /** The concrete steps of this run (IDs and values), for the report of a failing run. */
  log: string[];
}

const shown = (v: unknown) => JSON.stringify(v ?? null);

/**
 * Every record of the model read back by ID (GET /api/{domain}/{id}) and compared; a record in a
 * state the spec says nothing about (soft-deleted in core, deleted by a batch on an Endorsement)
 * must read as it did when first seen in that state. Then each proposal's listing.
 */
export async function checkSchedules(m: Model, r: Real, requirement: string): Promise<void> {
  // the reads at once (reads change nothing), judged in the model's order
  const reads = await Promise.all(
    m.records.map(async (rec) => ({
      rec,
      want: expectedRead(m, rec),
      got: await readRecord(r.t, r.proposals[rec.proposal], rec.id, LOC_FIELD_NAMES),
    })),
  );
  for (const { rec, want, got } of reads) {
    judged(requirement, () => {
      if (want === 'absent') expect(got, `record ${rec.id} (${rec.state}) cannot be read`).toBeNull();
      else if (want !== undefined)
        expect(got, `record ${rec.id} (${rec.state}) reads back with the model's values`).toEqual(want);
      else if (rec.seenRead === undefined) rec.seenRead = shown(got);
      else
        expect(
          shown(got),
          `record ${rec.id} (${rec.state}) reads as it did before this step, which did not restore it`,
        ).toBe(rec.seenRead);
    });
  }
  for (let p = 0; p < r.proposals.length; p++) await checkListing(m, r, p, requirement);
}

/**
 * The proposal's records listed by the domain query with the state's filter (optional values
 * scheduleFilter and scheduleKey; without them this check is left out): every active record with
 * its values, no permanently deleted one, a record in a state the spec leaves open listed as when
 * first seen, and nothing else (a record the model does not know is a copy or a stray insert,
 * unless it is an insert whose ID the answer left out).
 */
async function checkListing(m: Model, r: Real, p: number, requirement: string): Promise<void> {
  const prop = r.proposals[p];
  if (!prop.values.scheduleFilter || !prop.values.scheduleKey) return;
  const set = await scheduleSet(r.t, prop.values);
  const mine = new Map(m.records.filter((x) => x.proposal === p).map((x) => [x.id, x]));
  const other = new Set(m.records.filter((x) => x.proposal !== p).map((x) => x.id));
  for (const [id, fields] of set) {
    if (mine.has(id) || other.has(id)) continue;
    const adopted = adoptListed(m, p, id, fields);
    judged(requirement, () =>
      expect(
        adopted,
        `proposal ${prop.proposalId} lists record ${id} ${shown(fields)}, which no step created (a copy or a stray record)`,
      ).toBeDefined(),
    );
    mine.set(id, adopted!);
  }
  judged('SCHED-027', () => {
    if (m.flavour === 'reference')
      expect(m.untracked, 'the reference answers every insert of a successful atomic batch').toBe(0);
  });
  for (const rec of mine.values()) judgeListed(m, rec, set.get(rec.id), prop.proposalId, requirement);
  // another proposal's record in this listing: moved by the step (its read-back says so) or a filter
  // that does not restrict (scheduleSet blocks the test by QRY-009 then)
  for (const id of other)
    if (set.has(id))
      judged(requirement, () =>
        expect(id, `proposal ${prop.proposalId} lists record ${id} of the other proposal`).toBe(-1),
      );
}

function judgeListed(m: Model, rec: ScheduleRecord, got: unknown, proposalId: number, requirement: string) {
  const where = `proposal ${proposalId}'s listing: record ${rec.id} (${rec.state})`;
  judged(requirement, () => {
    if (rec.state === 'active') expect(got, `${where} is listed with the model's values`).toEqual(rec.fields);
    else if (rec.state === 'deleted' || (m.flavour === 'reference' && rec.state === 'soft-deleted'))
      expect(got, `${where} is not listed`).toBeUndefined();
    else if (rec.seenListed === undefined) rec.seenListed = shown(got);
    else expect(shown(got), `${where} is listed as before this step, which did not restore it`).toBe(rec.seenListed);
  });
}

/**
 * The links of every contact (Link/Query by child, LINK-011), compared with the model; a difference
 * is blamed on `requirement`, the rule of the link step just taken, except one in the link the step
 * named when `named` gives that link its own rule (a Remove by match field: the named link still
 * there is the removal's failure, LINK-015; another link gone is the match's, LINK-009).
 */
export async function checkLinks(
  m: Model,
  r: Real,
  requirement: string,
  named?: { slot: LinkSlot; requirement: string },
): Promise<void> {
  const relCol = r.t.bindings.linkColumns.relationship;
  const columns = m.flavour === 'reference' ? `${LINK_COLUMNS},${relCol}` : LINK_COLUMNS;
  // every contact's links read at once (reads change nothing), judged contact by contact
  const answers = await Promise.all(
    r.contacts.map((cid) =>
      r.t.api.GET('/api/Link/Query', {
        params: { query: { childDomain: 'Contact', childRecordID: cid, columns } },
      }),
    ),
  );
  for (let c = 0; c < r.contacts.length; c++) {
    const cid = r.contacts[c];
    const res = answers[c]!;
    judged('LINK-011', () => expect(res.response.status, `Link/Query of contact ${cid}`).toBe(200));
    const rows = res.data?.List ?? [];
    const parents = linkedParents(m.links, c, r.parents.length);
    for (const row of rows)
      judged('LINK-011', () =>
        expect(row, `a link row of contact ${cid} names it as the child`).toMatchObject({
          ChildDomainID: CONTACT_DOMAIN_ID,
          ChildID: cid,
        }),
      );
    const got = rows.map((x) => `${x.ParentDomainID}/${x.ParentID}`).sort();
    const want = parents.map((p) => `${r.parents[p].domainId}/${r.parents[p].id}`).sort();
    const np = named && named.slot.contact === c ? r.parents[named.slot.parent] : undefined;
    const namedKey = np ? `${np.domainId}/${np.id}` : undefined;
    judged(requirement, () =>
      expect(
        got.filter((k) => k !== namedKey),
        `contact ${cid} is linked exactly once to each parent the model links it to, and nothing else`,
      ).toEqual(want.filter((k) => k !== namedKey)),
    );
    if (named && namedKey)
      judged(named.requirement, () =>
        expect(
          got.filter((k) => k === namedKey),
          `contact ${cid}'s link to ${np!.domain} ${np!.id}, which the step named, is as the model has it`,
        ).toEqual(want.filter((k) => k === namedKey)),
      );
    if (m.flavour === 'reference') {
      for (const p of parents) {
        const row = rows.find((x) => x.ParentDomainID === r.parents[p].domainId && x.ParentID === r.parents[p].id)!;
        const rel = relationshipIndex({ parent: p, contact: c });
        judged('LINK-007', () => {
          if (rel === undefined) expect(row[relCol], `link ${p}:${c} has no relationship`).toBeNull();
          else expect(Number.isInteger(row[relCol]), `link ${p}:${c} stores its relationship`).toBe(true);
        });
      }
    }
  }
}
