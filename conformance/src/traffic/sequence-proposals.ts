// Sequence rules of binding and members (spec 2.4, 2.6): Bound stays bound, a second CreateMember
// is refused.
import { BIND_STATUS_JUDGE, BIND_STATUSES, judgeBindStatus } from '../judge/bind.js';
import { after, isObject, type TrafficExchange } from './exchange.js';
import { judgedSequence, show, type SequenceRule } from './rule.js';
import { op } from './sequence-records.js';

/** BIND-003: a bound proposal stays bound: each read of it is judged against the one before (judge/bind.ts). */
export const boundStaysBound = judgedSequence([BIND_STATUS_JUDGE], {
  name: 'bound_stays_bound',
  requirements: ['BIND-003'],
  description:
    'after BindStatus answered Bound for a proposal, the next BindStatus of it (no other call naming that proposal between) answers the same Bound status again: no stated transition leaves Bound',
  *findings(xs) {
    const last = new Map<string, TrafficExchange>();
    for (const x of xs) {
      const pid = x.operation?.pathParams.proposalId;
      if (pid === undefined) continue;
      const prev = last.get(pid);
      // another call on the proposal, or an answer without a documented status, comes between
      const st = isObject(x.json) ? x.json.Status : undefined;
      if (op(x) !== 'getBindStatus' || x.status !== 200 || !BIND_STATUSES.includes(st as string)) last.delete(pid);
      else last.set(pid, x);
      if (prev && last.get(pid) === x && after(prev, x))
        yield [judgeBindStatus({ ...x.operation!, status: 200, body: x.json }, undefined, prev.json), [prev, x]];
    }
  },
});

/** MEM-003, MEM-005: a second CreateMember after a successful one is refused with 500 and a JSON string. */
export const createMemberTwice: SequenceRule = {
  name: 'create_member_twice',
  requirements: ['MEM-003', 'MEM-005'],
  description:
    'after a successful CreateMember on a proposal, a later CreateMember on it is refused: HTTP 500 with a JSON string body saying a member is already assigned',
  judge(xs, _ctx, emit) {
    const calls = xs.filter((x) => op(x) === 'createMember');
    for (const first of calls) {
      if (first.status !== 200 || (first.json as { IsSuccessful?: unknown })?.IsSuccessful !== true) continue;
      const pid = first.operation!.pathParams.proposalId;
      const second = calls.find((x) => x.operation!.pathParams.proposalId === pid && after(first, x));
      // a second call whose answer is not in the recording shows nothing
      if (!second || second.bodyMissing) continue;
      const refused = !(
        second.status >= 200 &&
        second.status < 300 &&
        (second.json as { IsSuccessful?: unknown })?.IsSuccessful !== false
      );
      emit(
        ['MEM-003'],
        refused,
        refused
          ? `second CreateMember on proposal ${pid} refused`
          : `second CreateMember on proposal ${pid} answered ${second.status} ${show(second.json)}`,
        [first, second],
      );
      if (!refused) continue;
      const body = second.json;
      const good =
        second.status === 500 &&
        typeof body === 'string' &&
        /member/i.test(body) &&
        /already|assigned|exists|existing|has a/i.test(body);
      emit(['MEM-005'], good, `second CreateMember: HTTP ${second.status}, body ${show(body ?? second.responseBody)}`, [
        first,
        second,
      ]);
    }
  },
};
