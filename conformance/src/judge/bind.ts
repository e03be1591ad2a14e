// BIND-001..006: one answer of GET /api/Quotes/Proposals/{proposalId}/BindStatus (spec 2.4). The
// suite reads every binding outcome through it (conformance/suite/support/binding.ts) and the traffic
// rule bind_status_pattern judges each recorded one (traffic/rules-proposals.ts).
import type { components } from '../../../spec/generated/openapi.js';
import { type DecodedExchange, type Finding, type JudgeEntry, isObject, show } from './finding.js';

export type BindStatus = components['schemas']['BindStatus'];

export const BIND_STATUSES: readonly string[] = ['Bound', 'NotBound', 'Error'];
const DETAIL_FIELDS = ['PolicyID', 'MemberID', 'PolicyNumber', 'MemberName', 'BoundDateUTC'] as const;
/** ISO 8601 date-time in UTC: `Z` or a zero offset. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]00:?00)$/;

/** The live side's clock: BoundDateUTC is the time of binding, within the run's --clock-tolerance. */
export interface BindClock {
  nowMs: number;
  toleranceMs: number;
}

export const BIND_STATUS_JUDGE: JudgeEntry = {
  name: 'judgeBindStatus',
  requirements: ['BIND-001', 'BIND-002', 'BIND-003', 'BIND-004', 'BIND-005', 'BIND-006'],
};

const NULLABLE: ReadonlyArray<[string, 'string' | 'integer']> = [
  ['ErrorMessage', 'string'],
  ['PolicyID', 'integer'],
  ['MemberID', 'integer'],
  ['PolicyNumber', 'string'],
  ['MemberName', 'string'],
  ['BoundDateUTC', 'string'],
];

/** BIND-001: the bind status object, every field present with its documented type; undefined when it is. */
function shapeFault(s: unknown, proposalId: number): string | undefined {
  if (!isObject(s)) return `not a bind status object: ${show(s)}`;
  if (s.ProposalID !== proposalId) return `ProposalID ${show(s.ProposalID)} for proposal ${proposalId}`;
  if (!BIND_STATUSES.includes(s.Status as string)) return `Status ${show(s.Status)}`;
  for (const [k, type] of NULLABLE) {
    if (!(k in s)) return `field ${k} is absent`;
    const v = s[k];
    if (!(v === null || (type === 'integer' ? Number.isInteger(v) : typeof v === 'string')))
      return `${k} is ${type === 'integer' ? 'an integer' : 'a string'} or null, not ${show(v)}`;
  }
  return undefined;
}

const filled = (v: unknown) => typeof v === 'string' && v.trim() !== '';
const positive = (v: unknown) => Number.isInteger(v) && (v as number) > 0;

/** BIND-005: BoundDateUTC is ISO 8601 in UTC (and, with the live clock, the time of binding). */
function timestampFault(v: unknown, clock?: BindClock): string | undefined {
  if (typeof v !== 'string') return `BoundDateUTC ${show(v)} is not a string`;
  if (!ISO_UTC.test(v)) return `BoundDateUTC ${show(v)} is not ISO 8601 in UTC`;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return `BoundDateUTC ${show(v)} does not parse`;
  if (clock && !(Math.abs(ms - clock.nowMs) < clock.toleranceMs))
    return `BoundDateUTC ${v} is not the time of binding (UTC): ${Math.abs(ms - clock.nowMs)} ms from now, tolerance ${clock.toleranceMs} ms`;
  return undefined;
}

const finding = (requirement: string, fault: string | undefined, good: string): Finding => ({
  requirement,
  ok: fault === undefined,
  detail: fault ?? good,
});

/** BIND-003 across two reads: no stated transition leaves Bound, nor changes what the binding made. */
function staysBoundFault(earlier: Record<string, unknown>, s: Record<string, unknown>): string | undefined {
  if (s.Status !== 'Bound') return `Bound, then ${show(s.Status)} on the next read with no call between`;
  const k = [...DETAIL_FIELDS, 'ErrorMessage'].find((k) => s[k] !== earlier[k]);
  return k && `Bound with ${k} ${show(earlier[k])}, then ${show(s[k])} on the next read with no call between`;
}

/**
 * BIND-006 (HTTP 200), BIND-001 (the object), and by its Status: NotBound every detail null
 * (BIND-002); Bound the details filled and ErrorMessage null (BIND-003), BoundDateUTC in UTC
 * (BIND-005); Error a non-empty ErrorMessage and null details (BIND-004). Given the status read
 * `earlier` (no call on the proposal between), a Bound one, the answer is judged as what follows
 * it: the same Bound status (BIND-003; its own details were judged as it was read).
 */
export function judgeBindStatus(
  x: Pick<DecodedExchange, 'pathParams' | 'status' | 'body'>,
  clock?: BindClock,
  earlier?: unknown,
): Finding[] {
  const proposalId = Number(x.pathParams.proposalId);
  const out = [
    finding('BIND-006', x.status === 200 ? undefined : `HTTP ${x.status}, not 200`, 'HTTP 200'),
    finding('BIND-001', shapeFault(x.body, proposalId), `bind status object of proposal ${proposalId}`),
  ];
  const s = x.body;
  if (!isObject(s)) return out;
  const nullDetails = DETAIL_FIELDS.every((k) => s[k] === null);
  if (isObject(earlier) && earlier.Status === 'Bound')
    out.push(finding('BIND-003', staysBoundFault(earlier, s), 'Bound, then the same Bound status again'));
  else if (s.Status === 'NotBound')
    out.push(
      finding(
        'BIND-002',
        s.ErrorMessage === null && nullDetails ? undefined : `NotBound with ${show(s)}`,
        'NotBound, every detail null',
      ),
    );
  else if (s.Status === 'Bound') {
    const fault =
      s.ErrorMessage !== null
        ? `ErrorMessage ${show(s.ErrorMessage)}`
        : !positive(s.PolicyID)
          ? `PolicyID ${show(s.PolicyID)}`
          : !positive(s.MemberID)
            ? `MemberID ${show(s.MemberID)}`
            : !filled(s.PolicyNumber)
              ? `PolicyNumber ${show(s.PolicyNumber)}`
              : !filled(s.MemberName)
                ? `MemberName ${show(s.MemberName)}`
                : undefined;
    out.push(finding('BIND-003', fault && `Bound with ${fault}`, 'Bound, details filled, ErrorMessage null'));
    out.push(finding('BIND-005', timestampFault(s.BoundDateUTC, clock), `BoundDateUTC ${show(s.BoundDateUTC)}`));
  } else if (s.Status === 'Error')
    out.push(
      finding(
        'BIND-004',
        filled(s.ErrorMessage) && nullDetails ? undefined : `Error with ${show(s)}`,
        'Error with a reason, details null',
      ),
    );
  return out;
}
