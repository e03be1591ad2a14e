// The envelopes of the answers that a requirement of their own describes (spec 4.2, 4.3): a read by
// ID answers {Record, Domain, Id} (REC-001, FILE-009), a listing answers {List: [...]} (QRY-001 for
// the two queries, FILE-007 for the attached files). A body whose envelope is broken (not an object,
// a member missing or of another type) breaks that requirement; the test of that requirement on
// each operation judges it, so the documented-shape check names it as the owner instead of counting
// it against GEN-002 as well. Anything inside the envelope (a field of a record) stays GEN-002's.
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
  const inEnvelope = (e: ErrorObject) =>
    (e.instancePath === '' && (e.keyword === 'type' || e.keyword === 'required')) ||
    (members.has(e.instancePath) && (e.keyword === 'type' || e.keyword === 'const'));
  return errors.every(inEnvelope) ? owner.requirement : undefined;
}
