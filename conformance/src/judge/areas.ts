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
];

/** Requirement ID prefixes done. */
export const JUDGED_AREAS: readonly string[] = ['BIND-', 'FILE-', 'COL-', 'SCHED-'];

/** Traffic rules that still hold a predicate of their own for a requirement of a judged area, and why. */
export const NOT_YET_JUDGED: ReadonlyArray<{ rule: string; requirements: readonly string[]; why: string }> = [
  {
    rule: 'write_then_read',
    requirements: ['SCHED-007', 'SCHED-008', 'SCHED-029'],
    why: 'a sequence (a batch, then a read of the record); no judge reads a write and its read-back yet',
  },
  {
    rule: 'failed_write_changes_nothing',
    requirements: ['SCHED-014', 'SCHED-011'],
    why: 'a sequence (a read, a failed batch, the read again)',
  },
  {
    rule: 'proposal_records_follow_writes',
    requirements: ['SCHED-008', 'SCHED-011', 'SCHED-014', 'SCHED-029', 'SCHED-022'],
    why: "a sequence (a proposal's records listed, the writes between, listed again)",
  },
  { rule: 'reinstated_is_readable', requirements: ['SCHED-021'], why: 'a sequence (Reinstate, then a read)' },
  {
    rule: 'permanent_delete_is_gone',
    requirements: ['SCHED-022'],
    why: "a sequence (a provider state's proposal type, the DELETE, a read)",
  },
  {
    rule: 'not_modifiable_refuses_writes',
    requirements: ['SCHED-018'],
    why: "a provider state's non-modifiable proposal against a write answered; shared with PROP-002..005: the proposal area",
  },
  {
    rule: 'foreign_record_refused',
    requirements: ['SCHED-010'],
    why: "a provider state's records of another proposal against a write naming them",
  },
];
