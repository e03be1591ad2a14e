// QRY-006, QRY-007 and FILE-022: where the pages of a sorted query start (spec 4.2; File/Query takes
// the start offset, 4.3). The suite asserts these findings on the pages it reads
// (conformance/suite/support/records-query.ts expectPages) and the traffic rules
// pages_are_slices_of_the_whole and pages_join_without_overlap emit them for recorded pages
// (traffic/sequence-pages.ts). A record of a page is given as a key that tells it apart (its ID,
// its sort value, its whole row); what the caller knows of the whole ordered set comes in as `known`.
import { type Finding, type JudgeEntry, show } from './finding.js';

export const PAGES_JUDGE: JudgeEntry = { name: 'judgePages', requirements: ['QRY-006', 'QRY-007', 'FILE-022'] };

/** A page of a sorted query: the start offset sent (undefined: none), the take (capped at 100), its records' keys. */
export interface Page {
  skip: number | undefined;
  take: number;
  keys: readonly unknown[];
}

/** What the caller knows beyond the pages. */
export interface PagesKnowledge {
  /** The whole ordered set (answered at once, or the truth of the caller's fixture). */
  whole?: readonly unknown[];
  /** The sort's verdict on the last record of a page and the first of the next, when it breaks the order. */
  seamBroken?: string;
}

/** The rule where a page of `operationId` starts: the file query's (FILE-022), the start offset's (QRY-006), the default one's (QRY-007). */
const ruleOf = (operationId: string, p: Page) =>
  operationId === 'queryFiles' ? 'FILE-022' : p.skip === undefined ? 'QRY-007' : 'QRY-006';

const at = (p: Page) => `start offset ${p.skip ?? 0}${p.skip === undefined ? ' (none given)' : ''}`;

/**
 * Given the whole ordered set, each page is its slice from the start offset (none: from the first
 * record), as many as take. Without it, two pages, the second starting where the first, full,
 * ended: they share no record, and join in order (`seamBroken` fails them).
 */
export function judgePages(operationId: string, pages: readonly Page[], known: PagesKnowledge = {}): Finding[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const { whole } = known;
  if (whole)
    return pages.map((p) => {
      const from = p.skip ?? 0;
      const want = whole.slice(from, from + p.take);
      const ok = p.keys.length === want.length && p.keys.every((k, i) => same(k, want[i]));
      const detail = ok
        ? `the page at ${at(p)} is records ${from + 1}..${from + p.keys.length} of the whole ordered set`
        : `the page at ${at(p)} holds ${show(p.keys)}, not records ${from + 1}..${from + want.length} of the whole ordered set of ${whole.length} (${show(want)})`;
      return { requirement: ruleOf(operationId, p), ok, detail };
    });
  const [p1, p2] = pages as [Page, Page];
  const requirement = ruleOf(operationId, p2);
  const where = `${at(p1)} and ${at(p2)}`;
  const dup = p2.keys.find((k) => p1.keys.some((j) => same(j, k)));
  if (dup !== undefined) return [{ requirement, ok: false, detail: `${show(dup)} is on both pages (${where})` }];
  if (known.seamBroken)
    return [
      {
        requirement,
        ok: false,
        detail: `pages at ${where} do not join into one ordered set: the last record of the first page and the first of the second are out of order (${known.seamBroken})`,
      },
    ];
  return [{ requirement, ok: true, detail: `pages at ${where} share no record` }];
}
