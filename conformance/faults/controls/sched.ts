// Controls of schedules (SCHED): the answers of Reinstate, other words of the messages the suite
// checks for meaning, Warnings, and the error answer of an invalid schedule domain.
import type { Control } from '../fault.js';
import { bodyJson, cloneResponse, withResponseJson } from '../exchange.js';
import { operationOf } from '../operations.js';
import { noContent, NOT_SHOWN, onError, only, onSuccess, recode } from './util.js';
import { NOT_MODIFIABLE, results, scheduleMessages } from './schedule-results.js';

export const SCHED_CONTROLS: Control[] = [
  // Error answers: other statuses and bodies where the specification does not show them.
  {
    name: 'invalid-schedule-domain-400',
    area: 'SCHED',
    description: 'A domain that is not a schedule domain of the proposal is answered 400 instead of 404.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/ScheduleNotFound'],
    select: ['SCHED-', 'PROP-'],
    rewrite: recode(['InvalidScheduleDomain'], 400),
  },
  {
    name: 'reinstate-refused-200',
    area: 'SCHED',
    description: 'Reinstate of a record that is not soft-deleted answers 200 with IsSuccessful false instead of 409.',
    allowedBy:
      'Section 4.5: "POST .../Reinstate: restores a soft-deleted schedule record of an Endorsement proposal. Payload and response: not shown."',
    markers: [
      'paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1{scheduleId}~1Reinstate/post/responses/409',
    ],
    select: ['SCHED-'],
    rewrite: onError(
      (res, _req, route) => res.status === 409 && route.op === 'reinstateSchedule',
      (res) => cloneResponse(res, { status: 200 }),
    ),
  },
  // The answers of Reinstate, other words of the messages the suite checks for meaning, Warnings.
  {
    name: 'reinstate-answers-204',
    area: 'SCHED',
    description: 'A successful Reinstate answers 204 without a body.',
    allowedBy:
      'Section 4.5: "POST .../Reinstate: restores a soft-deleted schedule record of an Endorsement proposal. Payload and response: not shown."',
    markers: [
      'paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1{scheduleId}~1Reinstate/post/responses/200',
    ],
    select: ['SCHED-', 'AUTH-'],
    rewrite: onSuccess(['reinstateSchedule'], (res) => noContent(res)),
  },
  {
    name: 'location-name-other-words',
    area: 'SCHED',
    description:
      'A ProposalLocation without LocationName fails with "LocationName: a value must be provided." instead of "LocationName is required."',
    allowedBy: 'Section 4.5 rule 6: "fails with the message that LocationName is required" (the wording is not shown)',
    select: ['SCHED-', 'PROP-'],
    rewrite: scheduleMessages((m) =>
      /LocationName is required/i.test(m) ? 'LocationName: a value must be provided.' : m,
    ),
  },
  {
    name: 'schedule-messages-other-words',
    area: 'SCHED',
    description:
      'Successful schedule operations say "Schedule 17 was inserted." (updated, deleted, reinstated) instead of the reference wording.',
    allowedBy:
      'Section 2.5: "Message | Outcome text, for example that a schedule with the given ID was inserted, updated or deleted successfully" (the wording is not shown)',
    select: ['SCHED-'],
    rewrite: scheduleMessages((m) => {
      const x = /^(Inserted|Updated|Deleted|Reinstated) schedule with id (\d+) successfully\.(.*)$/i.exec(m);
      return x ? `Schedule ${x[2]} was ${x[1]!.toLowerCase()}.${x[3]}` : m;
    }),
  },
  {
    name: 'warnings-empty-list',
    area: 'SCHED',
    description:
      'Schedule operation results carry `Warnings: []` instead of null (except the refused DELETE on a non-modifiable proposal, where section 7 documents null).',
    allowedBy:
      'Section 2.5: "Warnings | null or list | Warnings; only null is seen" (section 7 documents `Warnings` null only for the schedule DELETE on a proposal that cannot be modified)',
    select: ['SCHED-', 'PROP-'],
    rewrite: only(['upsertSchedules', 'deleteSchedule', 'reinstateSchedule'], async (req, _ctx, next) => {
      const op = operationOf(req).op;
      const res = await next(req);
      if (op !== 'upsertSchedules' && op !== 'deleteSchedule' && op !== 'reinstateSchedule') return res;
      const body = bodyJson(res);
      const rs = results(body);
      if (rs.length === 0) return res;
      const documentedNull = (r: any) =>
        op === 'deleteSchedule' && r.IsSuccessful === false && NOT_MODIFIABLE.test(String(r.Message));
      for (const r of rs) if (r.Warnings === null && !documentedNull(r)) r.Warnings = [];
      return withResponseJson(res, body);
    }),
  },
];
