// The meaning checks of the proposal and schedule suite files (spec/requirements.yaml `meaning:` of
// SCHED-016/017/018/023 and MEM-005): every wording that carries the meaning passes, texts that do
// not carry it fail.
import { describe, expect, it } from 'vitest';
import { ALREADY, MEMBER } from '../suite/support/binding.js';
import { CANNOT_MODIFY, REQUIRED, fieldPattern, idPattern } from '../src/judge/sched.js';

const cannotModify = (text: string, id: number) => idPattern(id).test(text) && CANNOT_MODIFY.test(text);
const required = (text: string, field: string) => fieldPattern(field).test(text) && REQUIRED.test(text);

describe('"the proposal with the given ID cannot be modified" (SCHED-018)', () => {
  it.each([
    'Proposal 12 is read-only; no changes were made.',
    'Proposal 12 is locked and cannot be changed.',
    'Cannot modify Proposal with ID# 12.',
    'Proposal with ID# 12 cannot be modified because its status is B.',
    "Proposal 12 can't be edited.",
    'Proposal 12 is not modifiable.',
    'Changes to proposal 12 are not allowed.',
    'Proposal #12 is frozen',
  ])('passes: %s', (text) => expect(cannotModify(text, 12)).toBe(true));

  it.each([
    ['Proposal 123 cannot be modified.', 'another ID that contains the digits'],
    ['Proposal 12 was updated.', 'no refusal'],
    ['The proposal cannot be modified.', 'no ID'],
    ['Proposal 12 is bound.', 'a reason without a refusal'],
  ])('fails: %s (%s)', (text) => expect(cannotModify(text, 12)).toBe(false));
});

describe('"LocationName is required" (SCHED-016, SCHED-017, SCHED-023)', () => {
  it.each([
    'LocationName is required.',
    'Location name is mandatory.',
    'location_name: missing',
    'Please provide a Location Name.',
    'LocationName must not be empty',
    'The field LocationName cannot be blank.',
  ])('passes: %s', (text) => expect(required(text, 'LocationName')).toBe(true));

  it.each([
    ['City is required.', 'another field'],
    ['LocationName is too long.', 'not a missing value'],
    ['Name is required.', 'a part of the field name only'],
  ])('fails: %s (%s)', (text) => expect(required(text, 'LocationName')).toBe(false));
});

describe('"a MemberID is already assigned to the proposal record" (MEM-005)', () => {
  const assigned = (text: string) => MEMBER.test(text) && ALREADY.test(text);
  it.each([
    'MemberID is already assigned to the Proposal record.',
    'Proposal 5 already has a member (ID 77).',
    'A member exists for this proposal.',
    'The proposal has a member.',
  ])('passes: %s', (text) => expect(assigned(text)).toBe(true));

  it.each([
    ['Proposal 5 was not found.', 'another failure'],
    ['Member validation failed: the applicant name is empty.', 'a validation failure'],
  ])('fails: %s (%s)', (text) => expect(assigned(text)).toBe(false));
});
