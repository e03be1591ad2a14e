// Proposals: types and modifiability (spec 2.7, 3, 4.5): PROP-*.
//
// A proposal is not modifiable when its status is B, R or 0, its proposal set is bound, or it has a
// pending expiry-date-change endorsement. Each condition is checked for UpsertMulti and for the
// single DELETE. The spec does not show the HTTP status of either refusal, so core tests judge the
// body and the records afterwards (the whole set of the proposal's records, read through the
// state's filter); the reference's 409 is checked in the implementation-defined profile.
import { expect } from 'vitest';
import { conformance } from '../src/suite-api/dsl.js';
import { isRefusal } from '../src/suite-api/meaning.js';
import {
  asObject,
  deleteSchedule,
  expect2xx,
  expectBatchShape,
  expectResultShape,
  givenProposal,
  readRecord,
  reinstate,
  resultsOf,
  scheduleSet,
  tag,
  upsertMulti,
  type ProposalValues,
} from './support/schedules.js';
import type { ProposalParams } from './support/states.js';
import { type Ctx, judgedAlone } from './support/request.js';
import { type ScheduleResult, CANNOT_MODIFY, KINDS, judgeRecordIds, judgeSingleDelete } from '../src/judge/sched.js';
import { expectFinding } from '../src/suite-api/findings.js';

const NO_SUCH_PROPOSAL = 987_654_321;

// ---------------------------------------------------------------------------------------------
// Non-modifiable proposals (PROP-002..005)

interface Condition {
  name: string;
  params: ProposalParams;
  requirement: string;
  /** The cause of non-modifiability, a class of PROP-002, PROP-005 and SCHED-018 (spec/requirements.yaml). */
  cause: 'status-B' | 'status-R' | 'status-0' | 'bound-set' | 'pending-expiry-change';
}

// Each condition on a different non-Endorsement type, so that a wrongly applied delete would be
// permanent and visible; and the Endorsement, whose DELETE follows the other (soft) path, so the
// precondition is checked on that path too.
const CONDITIONS: Condition[] = [
  { name: 'status-b', params: { type: 'Quote', status: 'B' }, requirement: 'PROP-002', cause: 'status-B' },
  { name: 'status-r', params: { type: 'Application', status: 'R' }, requirement: 'PROP-002', cause: 'status-R' },
  { name: 'status-0', params: { type: 'Renewal', status: '0' }, requirement: 'PROP-002', cause: 'status-0' },
  { name: 'bound-set', params: { type: 'Rewrite', boundSet: true }, requirement: 'PROP-003', cause: 'bound-set' },
  {
    name: 'pending-expiry-change',
    params: { type: 'Reissue', pendingExpiryChange: true },
    requirement: 'PROP-004',
    cause: 'pending-expiry-change',
  },
  {
    name: 'endorsement-status-b',
    params: { type: 'Endorsement', status: 'B' },
    requirement: 'PROP-002',
    cause: 'status-B',
  },
];

/** The classes a condition's test exercises: the cause, and the DELETE path of its type. */
function conditionClasses(c: Condition, requirement: string): string[] {
  const path = c.params.type === 'Endorsement' ? 'endorsement' : 'non-endorsement';
  return [
    `${requirement}:${c.cause}`,
    `${requirement}:${path}`,
    ...(c.requirement === 'PROP-002' ? [`PROP-002:${c.cause}`] : []),
  ];
}

/**
 * A DELETE accepted on a proposal set up not modifiable: whether the condition makes the proposal
 * not modifiable at all is the UpsertMulti test's (its requirement and PROP-005). An UpsertMulti
 * that changes nothing (one update of no fields) refused there as "cannot be modified" shows the
 * condition holds and only the DELETE skips it: SCHED-018's statement ("Same modifiability
 * preconditions as UpsertMulti"), judged as its failure alone. Otherwise the test fails both.
 */
async function needsConditionHonoured(t: Ctx, p: ProposalValues, deleted: ScheduleResult): Promise<void> {
  const probe = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
    Updates: [{ ID: p.locationIds[0]!, Fields: {} }],
  });
  const results = resultsOf(probe.body);
  const refused =
    results.length > 0 && results.every((r) => r.IsSuccessful === false && CANNOT_MODIFY.test(String(r.Message)));
  if (!refused) return;
  judgedAlone('SCHED-018', 'a DELETE on a proposal that UpsertMulti refuses as not modifiable fails', () =>
    expect(deleted.IsSuccessful, `the DELETE fails: ${JSON.stringify(deleted)}`).toBe(false),
  );
}

for (const c of CONDITIONS) {
  conformance(
    {
      id: `proposals.non-modifiable-${c.name}-upsertmulti`,
      title: `UpsertMulti on a proposal that is not modifiable (${c.name}) reports no success and changes nothing`,
      requirements: [c.requirement, 'PROP-005'],
      classes: [...conditionClasses(c, 'PROP-005'), 'PROP-005:non-atomic', 'PROP-005:atomic'],
      mutates: true,
    },
    async (t) => {
      const p = await t.given('a proposal', { ...c.params, locations: 3 });
      const [l0, l1, l2] = p.locationIds;
      const before = await scheduleSet(t, p);
      expect(before.size, 'the schedule records are listed').toBe(3);
      const x = tag();

      for (const isAtomic of [false, true]) {
        const r = await upsertMulti(
          t,
          p.proposalId,
          p.scheduleDomain,
          {
            Inserts: [
              { Fields: { LocationName: `Never A ${x}`, City: 'Nowhere' } },
              { Fields: { LocationName: `Never B ${x}` } },
            ],
            Updates: [
              { ID: l2, Fields: { LocationName: `Changed ${x}` } },
              { ID: l0, Fields: { City: `Changed ${x}` } },
            ],
            Deletes: [{ ID: l1 }],
          },
          isAtomic,
        );
        // Where items are answered, each is a failure (RecordID 0 for inserts and deletes) with a
        // message; the status of the refusal is not shown.
        if (typeof r.body === 'object' && r.body !== null && KINDS.every((k) => k in (r.body as object))) {
          const body = r.body;
          expectBatchShape(body);
          for (const k of KINDS) {
            for (const item of body[k]) {
              expect(item.IsSuccessful, `isAtomic=${isAtomic}: ${k} item reports no success`).toBe(false);
              // RecordID 0 of a failed insert or delete is SCHED-002's rule: a step here
              if (k !== 'Updates')
                judgedAlone('SCHED-002', `${k}: a failed insert or delete reports RecordID 0`, () =>
                  expectFinding(judgeRecordIds([{ kind: k, result: item }]), 'SCHED-002', k),
                );
            }
          }
        } else {
          expect(
            resultsOf(r.body).filter((it) => it.IsSuccessful === true),
            `isAtomic=${isAtomic}: no item reports success (${r.status} ${JSON.stringify(r.body)})`,
          ).toEqual([]);
        }
        // Nothing changed: no insert, update or delete happened.
        expect(asObject(await scheduleSet(t, p)), `isAtomic=${isAtomic}: the records are unchanged`).toEqual(
          asObject(before),
        );
      }
    },
  );

  conformance(
    {
      id: `proposals.non-modifiable-${c.name}-delete`,
      title: `DELETE on a proposal that is not modifiable (${c.name}) fails with the documented result and keeps the record`,
      requirements: [c.requirement, 'SCHED-018'],
      classes: conditionClasses(c, 'SCHED-018'),
      mutates: true,
    },
    async (t) => {
      const p = await t.given('a proposal', { ...c.params, locations: 2 });
      const [, l1] = p.locationIds;
      const before = await scheduleSet(t, p);
      const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l1);
      const body = d.body;
      expectResultShape(body, `DELETE result (${d.status})`);
      if (body.IsSuccessful !== false) await needsConditionHonoured(t, p, body);
      expect(body.IsSuccessful, 'the DELETE fails').toBe(false);
      // the fields of the failure result are SCHED-018's statement: judged as its failure alone
      // and so is the meaning of section 7: the proposal's ID and a refusal to change, in any wording
      judgedAlone('SCHED-018', 'the failure result of a DELETE on a non-modifiable proposal', () =>
        expectFinding(judgeSingleDelete(p.proposalId, body, { notModifiable: true }), 'SCHED-018'),
      );
      expect(asObject(await scheduleSet(t, p)), 'the records stay as they were').toEqual(asObject(before));
    },
  );
}

conformance(
  {
    id: 'proposals.open-proposal-is-modifiable',
    title: 'a proposal without any non-modifiable condition accepts schedule changes (control for PROP-002..005)',
    requirements: ['PROP-002', 'PROP-003', 'PROP-004'],
    mutates: true,
  },
  async (t) => {
    // Same types as the non-modifiable cases, without the condition: the refusal above is due to
    // the condition, not to the type.
    for (const c of CONDITIONS) {
      const p = await givenProposal(t, { type: c.params.type, locations: 1 });
      const [l0] = p.locationIds;
      const x = tag();
      const r = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
        Updates: [{ ID: l0, Fields: { LocationName: `Open ${x}` } }],
      });
      expect2xx(r.status);
      const body = r.body;
      expectBatchShape(body);
      expect(body.Updates[0]?.IsSuccessful, `${c.params.type}: ${JSON.stringify(body)}`).toBe(true);
      expect((await readRecord(t, p, l0))?.LocationName).toBe(`Open ${x}`);
    }
  },
);

// ---------------------------------------------------------------------------------------------
// The six proposal types (PROP-001)

for (const type of ['Endorsement', 'Quote', 'Application', 'Renewal', 'Rewrite', 'Reissue'] as const) {
  conformance(
    {
      id: `proposals.type-${type.toLowerCase()}`,
      title: `a ${type} proposal takes schedule changes, and its schedule DELETE is ${type === 'Endorsement' ? 'soft (reinstatable)' : 'permanent'}`,
      requirements: ['PROP-001'],
      classes: [`PROP-001:${type}`],
      mutates: true,
    },
    async (t) => {
      const p = await givenProposal(t, { type, locations: 2 });
      expect(p.type).toBe(type);
      const [, l1] = p.locationIds;
      const x = tag();
      const ins = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
        Inserts: [{ Fields: { LocationName: `Typed ${x}` } }],
      });
      expect2xx(ins.status);
      expectBatchShape(ins.body);
      expect(ins.body.Inserts[0]?.IsSuccessful, JSON.stringify(ins.body)).toBe(true);

      const before = await readRecord(t, p, l1);
      const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l1);
      expect(d.body).toMatchObject({ IsSuccessful: true, RecordID: l1, OrderNumber: null });
      const r = await reinstate(t, p.proposalId, p.scheduleDomain, l1);
      if (type === 'Endorsement') {
        // the delete was soft: Reinstate takes the record back (a permanent delete leaves it nothing)
        expect(isRefusal(r.res), `Reinstate after a soft delete (${r.status} ${JSON.stringify(r.body)})`).toBe(false);
        // that the reinstated record is active again with its values is SCHED-021's statement
        await t.needs('SCHED-021', 'the reinstated record is back with its values', async () =>
          expect(await readRecord(t, p, l1), 'the record is back with its values').toEqual(before),
        );
      } else {
        // Reinstate's answer is not shown; when it is a result, it reports no success.
        for (const res of resultsOf(r.body))
          expect(res.IsSuccessful, `Reinstate after a permanent delete: ${JSON.stringify(res)}`).toBe(false);
        expect(await readRecord(t, p, l1), 'the record is gone').toBeNull();
      }
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Implementation-defined

conformance(
  {
    id: 'proposals.ref-status-q-then-b',
    title: 'reference: an open proposal has status Q; BindQuote sets B, after which schedules answer 409',
    requirements: ['PROP-006'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: true, locations: 1 });
    const [l0] = p.locationIds;
    const status = async () => {
      const r = await t.raw(`/api/Proposal/${p.proposalId}?columns=StatusCode`);
      expect(r.status).toBe(200);
      return (r.json as { Record?: { StatusCode?: unknown } } | undefined)?.Record?.StatusCode;
    };
    expect(await status()).toBe('Q');
    const bind = await t.api.POST('/api/Quotes/Proposals/{proposalId}/BindQuote', {
      params: { path: { proposalId: p.proposalId } },
    });
    expect(bind.response.status).toBe(200);
    expect(await status()).toBe('B');
    const u = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Updates: [{ ID: l0, Fields: { LocationName: 'After bind' } }],
    });
    expect(u.status).toBe(409);
    const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0);
    expect(d.status).toBe(409);
    expect(await readRecord(t, p, l0)).not.toBeNull();
  },
);

conformance(
  {
    id: 'proposals.ref-missing-proposal-404',
    title: 'reference: every proposal operation answers 404 RecordNotFound for a proposal ID that does not exist',
    requirements: ['PROP-007'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', locations: 1 });
    const domain = p.scheduleDomain;
    const id = NO_SUCH_PROPOSAL;
    const [l0] = p.locationIds;
    const calls: Array<[string, () => Promise<{ status: number; body: unknown }>]> = [
      [
        'getBindStatus',
        async () =>
          toRes(
            await t.api.GET('/api/Quotes/Proposals/{proposalId}/BindStatus', {
              params: { path: { proposalId: id } },
            }),
          ),
      ],
      [
        'queueBindQuote',
        async () =>
          toRes(
            await t.api.POST('/api/Quotes/Proposals/{proposalId}/QueueBindQuote', {
              params: { path: { proposalId: id } },
            }),
          ),
      ],
      [
        'bindQuote',
        async () =>
          toRes(
            await t.api.POST('/api/Quotes/Proposals/{proposalId}/BindQuote', {
              params: { path: { proposalId: id } },
            }),
          ),
      ],
      [
        'createMember',
        async () =>
          toRes(
            await t.api.POST('/api/Quotes/Proposals/{proposalId}/CreateMember', {
              params: { path: { proposalId: id } },
            }),
          ),
      ],
      ['upsertSchedules', async () => upsertMulti(t, id, domain, { Inserts: [{ Fields: { LocationName: 'x' } }] })],
      ['deleteSchedule', async () => deleteSchedule(t, id, domain, l0)],
      ['reinstateSchedule', async () => reinstate(t, id, domain, l0)],
    ];
    for (const [op, call] of calls) {
      const r = await call();
      expect(r.status, `${op} on proposal ${id}`).toBe(404);
      expect(r.body, `${op}: problem code`).toMatchObject({ code: 'RecordNotFound' });
    }
    expect(await readRecord(t, p, l0), 'a schedule record of another proposal was not touched').not.toBeNull();
  },
);

function toRes(res: { response: Response; data?: unknown; error?: unknown }) {
  return { status: res.response.status, body: (res.data ?? res.error) as unknown };
}
