// Link/Query by child (`childDomain` and `childRecordID`) lists the links of that child and no
// other (LINK-011, judged by its own test). Nearly every link test reads its links back this way, as
// a step: an answer with rows of another child (the filter ignored) blocks the test by LINK-011
// instead of failing its own requirements on foreign rows (one cause, one red line). In a test of
// LINK-011 and others, the same check fails LINK-011 alone (judgedAlone).
import { expect } from 'vitest';
import { judgedAlone } from './request.js';

/** The spec's DomainID of the two child domains a link can have (section 2.3). */
export const CHILD_DOMAIN_IDS = { Contact: 2, File: 4 } as const;

/**
 * Every row that carries the child's columns names the queried child. A row without them (columns
 * not asked) is left to the test.
 */
export function needsRowsOfChild(
  rows: ReadonlyArray<Record<string, unknown>>,
  childDomain: string | undefined,
  childId: number | undefined,
): void {
  if (childId === undefined || childDomain === undefined) return;
  const domainId = (CHILD_DOMAIN_IDS as Record<string, number>)[childDomain];
  judgedAlone('LINK-011', `Link/Query by ${childDomain} ${childId} lists only the links of that child`, () => {
    const foreign = rows.filter(
      (r) =>
        (typeof r.ChildID === 'number' && r.ChildID !== childId) ||
        (domainId !== undefined && typeof r.ChildDomainID === 'number' && r.ChildDomainID !== domainId),
    );
    expect(foreign, `rows of another child than ${childDomain} ${childId}`).toEqual([]);
  });
}
