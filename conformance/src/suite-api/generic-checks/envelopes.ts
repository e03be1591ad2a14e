// The envelopes of the answers that a requirement of their own describes (spec 4.2, 4.3): a read by
// ID answers {Record, Domain, Id} (REC-001, FILE-009), a listing answers {List: [...]} (QRY-001 for
// the two queries, FILE-007 for the attached files). A body whose envelope is broken (not an object,
// a member missing or of another type) breaks that requirement; the test of that requirement on
// each operation judges it, so the documented-shape check names it as the owner instead of counting
// it against GEN-002 as well. So does a query page longer than the limit of section 8 (`maxItems`
// of the two query lists): QRY-004's. Anything inside the envelope (a field of a record) stays
// GEN-002's.
import type { ErrorObject } from 'ajv';

const OWNERS: Record<string, { requirement: string; members: string[] }> = {
  getRecord: { requirement: 'REC-001', members: ['Record', 'Domain', 'Id'] },
  getFile: { requirement: 'FILE-009', members: ['Record', 'Domain', 'Id'] },
  queryRecords: { requirement: 'QRY-001', members: ['List'] },
  queryFiles: { requirement: 'QRY-001', members: ['List'] },
  listAttachedFiles: { requirement: 'FILE-007', members: ['List'] },
};

/**
 * The requirement that owns every one of `errors` (schema errors of a 2xx body of `operationId`),
 * or undefined when one of them lies outside the envelope (or is not a missing or mistyped member:
 * an extra member breaks no envelope rule).
 */
export function envelopeOwner(operationId: string, errors: ErrorObject[] | null | undefined): string | undefined {
  const owner = OWNERS[operationId];
  if (!owner || !errors || errors.length === 0) return undefined;
  const members = new Set(owner.members.map((m) => `/${m}`));
  const ownerOf = (e: ErrorObject): string | undefined => {
    if (e.instancePath === '' && (e.keyword === 'type' || e.keyword === 'required')) return owner.requirement;
    if (members.has(e.instancePath) && (e.keyword === 'type' || e.keyword === 'const')) return owner.requirement;
    // a page longer than 100 records breaks the limit of section 8, which QRY-004 judges on every query
    if (e.instancePath === '/List' && e.keyword === 'maxItems' && LIMITED.has(operationId)) return 'QRY-004';
    return undefined;
  };
  const owners = new Set(errors.map(ownerOf));
  return owners.size === 1 ? [...owners][0] : undefined;
}

/** The listings whose `List` carries `maxItems: 100` (x-requirements QRY-004). */
const LIMITED = new Set(['queryRecords', 'queryFiles']);
