// Model-based tests (spec 2.3, 2.5, 3, 4.4, 4.5): fast-check generates sequences of UpsertMulti
// (atomic, non-atomic and without isAtomic; valid items mixed with the documented invalid ones),
// schedule DELETE, Reinstate, Link/Upsert and Link/Remove (contacts to two parents, with and
// without a relationship; sent by the administrator or by users holding part of the permission
// table, support/model/users.ts), GET /api/Domains read by each of those users, and after every
// step a small oracle written from the spec (support/model/oracle.ts, users.ts) judges the answer
// and what the interface shows: every schedule record read back by ID, every contact's links read
// back through Link/Query.
//
// Bounded and reproducible: a few runs of a few steps each (in checks that run at once, check i
// seeded with the run's seed + i), generated from the run's seed
// (`conformance run --seed N`; the run prints the seed it used and keeps it in results.json). A
// failure reports the seed, the shrunk counterexample and its steps as sent, and fails only the
// requirement whose check broke (the others it covers end blocked by it: one bug, one red line).
import { conformance } from '../src/suite-api/dsl.js';
import { runModel } from './support/model/run.js';

/** What the core model judges; a failed check names one of these (support/model/blame.ts). */
const CORE = [
  'SCHED-002',
  'SCHED-003',
  'SCHED-004',
  'SCHED-005',
  'SCHED-007',
  'SCHED-008',
  'SCHED-010',
  'SCHED-011',
  'SCHED-012',
  'SCHED-013',
  'SCHED-014',
  'SCHED-015',
  'SCHED-016',
  'SCHED-017',
  'SCHED-019',
  'SCHED-021',
  'SCHED-022',
  'SCHED-023',
  'PROP-001',
  'LINK-009',
  'LINK-011',
  'LINK-013',
  'LINK-014',
  'LINK-015',
  'AUTH-004',
  'AUTH-005',
  'AUTH-006',
  'DOM-007',
  'DOM-008',
];
/** What the reference flavour adds. */
const REFERENCE = ['SCHED-024', 'SCHED-027', 'LINK-007', 'LINK-017', 'DOM-009'];

conformance(
  {
    id: 'model.schedules-and-links',
    title:
      'generated sequences of UpsertMulti, DELETE, Reinstate, Link/Upsert and Link/Remove (by users of several grants) and Domains agree with a model of the spec after every step',
    requirements: CORE,
    mutates: true,
    timeoutMs: 120_000,
  },
  async (t) => {
    // up to 22 steps (16 before the steps of users with partial grants and Domains, 6 of the 22
    // draws, came in): the schedule and administrator's link steps keep about as many draws per
    // sequence as they had, which the faults only a sequence shows need
    await runModel(t, { flavour: 'core', judges: CORE, numRuns: 8, shards: 4, maxCommands: 22, timeLimitMs: 60_000 });
  },
);

conformance(
  {
    id: 'model.ref-schedules-and-links',
    title:
      "reference: the same generated sequences agree with the model plus the reference's choices (batch deletes on an Endorsement are soft, soft-deleted records read as not found, the proposal's records listed by filter, Reinstate of a record that is not soft-deleted is 409, a Remove of no link answers IsSuccessful false, a domain is listed exactly when View is held)",
    requirements: REFERENCE,
    profile: 'implementation-defined',
    mutates: true,
    timeoutMs: 120_000,
  },
  async (t) => {
    await runModel(t, {
      flavour: 'reference',
      judges: REFERENCE,
      numRuns: 4,
      shards: 2,
      maxCommands: 19,
      timeLimitMs: 60_000,
    });
  },
);
