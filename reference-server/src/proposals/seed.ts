// The demo proposals of `--seed demo`.
import type { Deps } from '../deps.js';
import { isoDate, utcTimestamp } from '../time.js';
import {
  insertLocation,
  insertMember,
  insertProposal,
  insertProposalSet,
  insertVehicle,
  type NewProposal,
} from './create.js';
import { BOUND_STATUS, OPEN_STATUS, PROPOSAL_TYPES, type ProposalTypeCode } from './model.js';
import { migrate } from './tables.js';

const DEMO_PREFIX = 'DEMO-';

/** Seeds a few proposals of every type and status, with locations and vehicles (`--seed demo`).
 * Idempotent: does nothing when demo proposals already exist. Returns the created proposal IDs. */
export function seedProposals(deps: Deps): number[] {
  const db = deps.db;
  migrate(db);
  const existing = db.prepare(`SELECT 1 FROM "Proposal" WHERE "ProposalNumber" LIKE ? LIMIT 1`).get(`${DEMO_PREFIX}%`);
  if (existing) return [];
  const now = deps.clock();
  const ids: number[] = [];
  const cities = [
    ['Springfield', 'IL', '62701'],
    ['Madison', 'WI', '53703'],
    ['Columbus', 'OH', '43215'],
    ['Austin', 'TX', '78701'],
    ['Denver', 'CO', '80202'],
    ['Portland', 'OR', '97204'],
  ];
  let n = 0;
  const make = (type: ProposalTypeCode, status: string, opts: Partial<NewProposal> = {}, withMember = false) => {
    n += 1;
    const [city, st, zip] = cities[n % cities.length];
    const name = `Demo Applicant ${n}`;
    const memberId = withMember
      ? insertMember(db, { name, address1: `${100 + n} Main St`, city, stateCode: st, zipCode: zip })
      : null;
    const id = insertProposal(db, {
      type,
      status,
      number: `${DEMO_PREFIX}${String(n).padStart(4, '0')}`,
      applicantName: name,
      applicantAddress1: `${100 + n} Main St`,
      applicantCity: city,
      applicantStateCode: st,
      applicantZipCode: zip,
      memberId,
      ratingStatus: 'C',
      ...opts,
    });
    for (let i = 1; i <= 2; i++) {
      insertLocation(db, id, {
        name: `Demo Location ${n}.${i}`,
        address1: `${i * 10} Market St`,
        city,
        stateCode: st,
        zipCode: zip,
      });
    }
    insertVehicle(db, id, {
      vin: `1HGCM82633A${String(100000 + n).slice(-6)}`,
      make: 'Honda',
      model: 'Accord',
      year: 2018 + (n % 6),
    });
    ids.push(id);
    return { id, memberId, name };
  };
  const tx = db.transaction(() => {
    // every type, open
    for (const code of Object.values(PROPOSAL_TYPES)) make(code, OPEN_STATUS);
    // an unrated one and one with a member, ready to bind
    make('N', OPEN_STATUS, { ratingStatus: null });
    make('N', OPEN_STATUS, {}, true);
    // rejected and cancelled
    make('A', 'R');
    make('R', '0');
    // a bound set and a pending expiry change
    const setId = insertProposalSet(db, 'Demo bound set', true);
    make('W', OPEN_STATUS, { proposalSetId: setId });
    make('E', OPEN_STATUS, { pendingExpiryChange: true });
    // a bound proposal with its policy and bind status
    const b = make('I', BOUND_STATUS, {}, true);
    const pol = db
      .prepare(
        `INSERT INTO "Policy" ("PolicyNumber", "EffectiveDate", "ExpirationDate", "MemberID") VALUES (?, ?, ?, ?)`,
      )
      .run(null, isoDate(now), isoDate(new Date(now.getTime() + 365 * 86400000)), b.memberId);
    const policyId = Number(pol.lastInsertRowid);
    const policyNumber = `POL-${String(policyId).padStart(6, '0')}`;
    db.prepare(`UPDATE "Policy" SET "PolicyNumber" = ? WHERE "PolicyID" = ?`).run(policyNumber, policyId);
    db.prepare(
      `INSERT INTO bind_status (ProposalID, Status, ErrorMessage, PolicyID, MemberID, PolicyNumber, MemberName, BoundDateUTC, UpdatedDateUTC)
       VALUES (?, 'Bound', NULL, ?, ?, ?, ?, ?, ?)`,
    ).run(b.id, policyId, b.memberId, policyNumber, b.name, utcTimestamp(now), utcTimestamp(now));
  });
  tx();
  return ids;
}
