// The areas whose requirements are decided by one judge, and the traffic rules of those areas not
// yet made the judges' adapters. conformance/test/judges.test.ts holds both sides to it: every
// requirement of a judged area that a traffic rule decides is decided by a judge of JUDGES, the
// suite asserts that judge's finding on it (`expectFinding`), and every traffic rule naming it is
// an adapter of that judge (traffic/rule.ts `judgedRule`) or listed in NOT_YET_JUDGED. The next
// area adds its judge module here, its prefix to JUDGED_AREAS, and shrinks NOT_YET_JUDGED.
import { BIND_STATUS_JUDGE } from './bind.js';
import { COLUMN_KEYS_JUDGE } from './col.js';
import { FILE_LISTING_JUDGE, FILE_QUERY_ROW_JUDGE, FILE_RECORD_JUDGE } from './file.js';
import type { JudgeEntry } from './finding.js';
import { PAGES_JUDGE } from './pages.js';
import { SUPPRESSION_JUDGE, TOTAL_COUNT_JUDGE } from './query.js';
import { SINGLE_READ_JUDGE } from './rec.js';
import { SCHED_JUDGES } from './sched.js';
import { SCHED_FOREIGN_RECORD_JUDGE, SCHED_READ_BACK_JUDGE } from './sched-sequence.js';

export const JUDGES: readonly JudgeEntry[] = [
  BIND_STATUS_JUDGE,
  FILE_RECORD_JUDGE,
  FILE_QUERY_ROW_JUDGE,
  FILE_LISTING_JUDGE,
  COLUMN_KEYS_JUDGE,
  SINGLE_READ_JUDGE,
  PAGES_JUDGE,
  SUPPRESSION_JUDGE,
  TOTAL_COUNT_JUDGE,
  ...SCHED_JUDGES,
  SCHED_READ_BACK_JUDGE,
  SCHED_FOREIGN_RECORD_JUDGE,
];

/** Requirement ID prefixes done. */
export const JUDGED_AREAS: readonly string[] = ['BIND-', 'FILE-', 'COL-', 'SCHED-'];

/** Traffic rules that still hold a predicate of their own for a requirement of a judged area, and why. */
export const NOT_YET_JUDGED: ReadonlyArray<{ rule: string; requirements: readonly string[]; why: string }> = [];
