// Rules that exchanges in recorded order decide (a write then a read, two pages, CreateMember
// twice, a removed link then queried, a failed atomic batch then a read). Every rule judges only
// pairs the recording orders (the later exchange began after the earlier one had its answer) and
// skips a pair when another recorded write to the same record may have come between: a rule never
// blames a correct implementation for a write it did not see. What no recording can show (a writer
// outside the recording) is the limit documented in conformance/README.md.
// The rules live by area in sequence-<area>.ts; this module lists them in the order they run.
import type { NotJudgeable, SequenceRule } from './rule.js';
import { QUERY_SEQUENCE_RULES } from './sequence-queries.js';
import {
  failedWriteChangesNothing,
  foreignRecordRefused,
  notModifiableRefusesWrites,
  permanentDeleteIsGone,
  proposalRecordsFollowWrites,
  reinstatedIsReadable,
  writeThenRead,
} from './sequence-schedules.js';
import { pagesAreSlices, pagesJoin, stateFilterSelects } from './sequence-pages.js';
import {
  contentsAgainstFileSize,
  contentsWithToken,
  linkedFileIsNotUnlinked,
  stateFilesAsSetUp,
  stateParentListsItsFiles,
} from './sequence-files.js';
import { linkThenQuery, upsertDoesNotDuplicate } from './sequence-links.js';
import { boundStaysBound, createMemberTwice } from './sequence-proposals.js';

export const SEQUENCE_RULES: readonly SequenceRule[] = [
  ...QUERY_SEQUENCE_RULES,
  contentsAgainstFileSize,
  writeThenRead,
  failedWriteChangesNothing,
  pagesJoin,
  pagesAreSlices,
  createMemberTwice,
  linkThenQuery,
  boundStaysBound,
  reinstatedIsReadable,
  contentsWithToken,
  notModifiableRefusesWrites,
  permanentDeleteIsGone,
  proposalRecordsFollowWrites,
  stateFilterSelects,
  foreignRecordRefused,
  stateFilesAsSetUp,
  stateParentListsItsFiles,
  upsertDoesNotDuplicate,
  linkedFileIsNotUnlinked,
];

/** Requirements of authentication and permissions no recording decides. */
export const AUTH_NOT_JUDGEABLE: readonly NotJudgeable[] = [
  {
    requirements: ['AUTH-001', 'AUTH-002'],
    reason:
      'needs to know which tokens the service issued, and exports often strip credentials (a request recorded without a token may have carried one), so a recording does not show what the caller sent',
  },
  {
    requirements: ['AUTH-004', 'AUTH-005', 'AUTH-006', 'AUTH-007'],
    reason:
      "depends on the caller's permissions on the parent and child domains, which a recording does not show (only a provider state that sets up the user does)",
  },
];
