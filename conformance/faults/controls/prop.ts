// Controls of proposals and modifiability (PROP): the refusal of a change to a proposal that cannot
// be modified, with another status or in other words.
import type { Control } from '../fault.js';
import { cloneResponse } from '../exchange.js';
import { onError } from './util.js';
import { NOT_MODIFIABLE, scheduleMessages } from './schedule-results.js';

export const PROP_CONTROLS: Control[] = [
  // Error answers: other statuses and bodies where the specification does not show them.
  {
    name: 'not-modifiable-200',
    area: 'PROP',
    description:
      'Changes refused because the proposal cannot be modified are answered 200 (the result bodies say IsSuccessful false).',
    allowedBy:
      'Section 7: "Schedule DELETE on a proposal that cannot be modified | Result object with IsSuccessful false, RecordID 0, OrderNumber null, Message ... HTTP status: not shown"',
    markers: [
      'paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1UpsertMulti/post/responses/409',
      'paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1{scheduleId}/delete/responses/409',
    ],
    select: ['PROP-', 'SCHED-', 'AUTH-'],
    rewrite: onError(
      (res, _req, route) => res.status === 409 && (route.op === 'upsertSchedules' || route.op === 'deleteSchedule'),
      (res) => cloneResponse(res, { status: 200 }),
    ),
  },
  {
    name: 'not-modifiable-422',
    area: 'PROP',
    description:
      'Changes refused because the proposal cannot be modified are answered 422 with the same result bodies.',
    allowedBy: 'Section 7: "... Warnings null. HTTP status: not shown"',
    markers: ['paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1{scheduleId}/delete/responses/409'],
    select: ['PROP-', 'SCHED-'],
    rewrite: onError(
      (res, _req, route) => res.status === 409 && (route.op === 'upsertSchedules' || route.op === 'deleteSchedule'),
      (res) => cloneResponse(res, { status: 422 }),
    ),
  },
  // Other words of the messages the suite checks for meaning.
  {
    name: 'not-modifiable-says-locked',
    area: 'PROP',
    description: 'A change refused on a non-modifiable proposal says "Proposal 12 is locked and cannot be changed."',
    allowedBy:
      'Section 7: "`Message` saying that the proposal with the given ID cannot be modified" (the wording is not shown)',
    select: ['PROP-', 'SCHED-'],
    rewrite: scheduleMessages((m, pid) =>
      NOT_MODIFIABLE.test(m) ? `Proposal ${Number(pid)} is locked and cannot be changed.` : m,
    ),
  },
  {
    name: 'not-modifiable-says-read-only',
    area: 'PROP',
    description: 'A change refused on a non-modifiable proposal says "Proposal 12 is read-only; no changes were made."',
    allowedBy:
      'Section 7: "`Message` saying that the proposal with the given ID cannot be modified" (the wording is not shown)',
    select: ['PROP-', 'SCHED-'],
    rewrite: scheduleMessages((m, pid) =>
      NOT_MODIFIABLE.test(m) ? `Proposal ${Number(pid)} is read-only; no changes were made.` : m,
    ),
  },
];
