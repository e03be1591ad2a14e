// The areas whose requirements are decided by one judge, and the traffic rules of those areas not
// yet made the judges' adapters. conformance/test/judges.test.ts holds both sides to it: every
// requirement of a judged area that a traffic rule decides is decided by a judge of JUDGES, the
// suite asserts that judge's finding on it (`expectFinding`), and every traffic rule naming it is
// an adapter of that judge (traffic/rule.ts `judgedRule`) or listed in NOT_YET_JUDGED. The next
// area adds its judge module here, its prefix to JUDGED_AREAS, and shrinks NOT_YET_JUDGED.
import { BIND_STATUS_JUDGE } from './bind.js';
import { COLUMN_KEYS_JUDGE } from './col.js';
import { FILE_QUERY_ROW_JUDGE, FILE_RECORD_JUDGE } from './file.js';
import type { JudgeEntry } from './finding.js';
import { SCHED_JUDGES } from './sched.js';
import { SCHED_FOREIGN_RECORD_JUDGE, SCHED_READ_BACK_JUDGE } from './sched-sequence.js';

export const JUDGES: readonly JudgeEntry[] = [
  BIND_STATUS_JUDGE,
  FILE_RECORD_JUDGE,
  FILE_QUERY_ROW_JUDGE,
  COLUMN_KEYS_JUDGE,
  ...SCHED_JUDGES,
  SCHED_READ_BACK_JUDGE,
  SCHED_FOREIGN_RECORD_JUDGE,
];

/** Requirement ID prefixes done. */
export const JUDGED_AREAS: readonly string[] = ['BIND-', 'FILE-', 'COL-', 'SCHED-'];

/** Traffic rules that still hold a predicate of their own for a requirement of a judged area, and why. */
export const NOT_YET_JUDGED: ReadonlyArray<{ rule: string; requirements: readonly string[]; why: string }> = [
  {
    rule: 'bound_stays_bound',
    requirements: ['BIND-003'],
    why: 'a sequence (Bound, then the next read); no judge reads a sequence of bind statuses yet',
  },
  {
    rule: 'contents_against_file_size',
    requirements: ['FILE-010', 'FILE-002'],
    why: 'a sequence (Contents against the FileSize of another answer); judgeFileRecord takes the size as knowledge next',
  },
  {
    rule: 'state_files_as_set_up',
    requirements: ['FILE-002', 'FILE-006'],
    why: "a provider state's files against what is read; judgeFileRecord takes them as knowledge next",
  },
  {
    rule: 'linked_file_is_not_unlinked',
    requirements: ['FILE-006'],
    why: 'a sequence (Link/Upsert, then a read of the file)',
  },
  {
    rule: 'state_parent_lists_its_files',
    requirements: ['FILE-007'],
    why: 'a sequence shared with LINK-021: the link area',
  },
  { rule: 'pages_join_without_overlap', requirements: ['FILE-022'], why: 'shared with QRY-006: the query area' },
  {
    rule: 'pages_are_slices_of_the_whole',
    requirements: ['FILE-022'],
    why: 'shared with QRY-006, QRY-007: the query area',
  },
  { rule: 'empty_column_suppression', requirements: ['FILE-023'], why: 'shared with QRY-011, QRY-012: the query area' },
  { rule: 'total_count', requirements: ['FILE-024'], why: 'shared with QRY-014, QRY-015: the query area' },
  { rule: 'single_read_envelope', requirements: ['FILE-009'], why: 'shared with REC-001: the records area' },
];
