// What a traffic rule is: a named function for requirements of spec/requirements.yaml, judged on
// recorded exchanges only (no state endpoint, no request of its own). A rule emits a judgement when
// the exchanges decide a requirement; when they do not (a parameter missing, a body not recorded),
// it says nothing, so a requirement is "not observed" rather than passed on no evidence.
import type { Finding, JudgeEntry } from '../judge/finding.js';
import type { Bindings } from '../model/bindings.js';
import type { TrafficExchange } from './exchange.js';
import type { StateLedger } from './states.js';

export interface Judgement {
  rule: string;
  requirements: string[];
  ok: boolean;
  /** What was seen; for a failure, what was expected and what came instead. */
  message: string;
  /** The exchanges that decided it, the deciding one last. */
  exchanges: TrafficExchange[];
}

export interface RuleContext {
  bindings: Bindings;
  /** DomainID by domain name: the fixed core IDs of section 2.1 and what GET /api/Domains answered. */
  domainIds: Map<string, number>;
  /** What the recording's provider-state calls say the implementation holds (a recorded suite run); absent otherwise. */
  states?: StateLedger;
}

type Emit = (requirements: string[], ok: boolean, message: string, exchanges?: TrafficExchange[]) => void;

/** A rule that one request and its answer decide. */
export interface ExchangeRule {
  /** snake_case, stable (shown in the reports and the docs). */
  name: string;
  /** Every requirement the rule can name. */
  requirements: readonly string[];
  /** One line: what the rule asserts. */
  description: string;
  judge(x: TrafficExchange, ctx: RuleContext, emit: Emit): void;
}

/**
 * A rule that is a judge's adapter (conformance/src/judge): it picks the exchanges a judge reads and
 * emits its findings, no predicate of its own (test/judges.test.ts: every rule naming a requirement
 * of an area with judges is one).
 */
export interface JudgedRule extends ExchangeRule {
  judges: readonly JudgeEntry[];
}

export function judgedRule(
  judges: readonly JudgeEntry[],
  rule: Omit<ExchangeRule, 'judge' | 'requirements'> & {
    /** The judges' requirements this rule names (default: all of them); it emits only their findings. */
    requirements?: readonly string[];
    findings(x: TrafficExchange, ctx: RuleContext): Finding[];
  },
): JudgedRule {
  const requirements = rule.requirements ?? [...new Set(judges.flatMap((j) => j.requirements))];
  return {
    name: rule.name,
    description: rule.description,
    requirements,
    judges,
    judge(x, ctx, emit) {
      for (const f of rule.findings(x, ctx))
        if (requirements.includes(f.requirement)) emit([f.requirement], f.ok, f.detail);
    },
  };
}

/** A rule that exchanges in recorded order decide (`judges` when it is their adapter, as for JudgedRule). */
export interface SequenceRule {
  name: string;
  requirements: readonly string[];
  description: string;
  judges?: readonly JudgeEntry[];
  judge(xs: TrafficExchange[], ctx: RuleContext, emit: Emit): void;
}

/** A sequence rule that is a judge's adapter: it picks the exchanges and emits the judges' findings on them. */
export interface JudgedSequenceRule extends SequenceRule {
  judges: readonly JudgeEntry[];
}

export function judgedSequenceRule(
  judges: readonly JudgeEntry[],
  rule: Omit<SequenceRule, 'judge'> & {
    judge(xs: TrafficExchange[], ctx: RuleContext, emit: (f: Finding[], exchanges: TrafficExchange[]) => void): void;
  },
): JudgedSequenceRule {
  return {
    ...rule,
    judges,
    judge: (xs, ctx, emit) =>
      rule.judge(xs, ctx, (findings, exchanges) => {
        for (const f of findings)
          if (rule.requirements.includes(f.requirement)) emit([f.requirement], f.ok, f.detail, exchanges);
      }),
  };
}

/** The same adapter for a rule that yields its findings with the exchanges they rest on (deciding one last). */
export function judgedSequence(
  judges: readonly JudgeEntry[],
  rule: Omit<SequenceRule, 'judge' | 'requirements' | 'judges'> & {
    requirements: readonly string[];
    findings(xs: TrafficExchange[], ctx: RuleContext): Iterable<[Finding[], TrafficExchange[]]>;
  },
): JudgedSequenceRule {
  const { findings, ...named } = rule;
  return judgedSequenceRule(judges, {
    ...named,
    judge(xs, ctx, emit) {
      for (const [found, exchanges] of findings(xs, ctx)) emit(found, exchanges);
    },
  });
}

/** `true`/`false` of a boolean query parameter; undefined when absent or neither. */
export function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (/^true$/i.test(v)) return true;
  if (/^false$/i.test(v)) return false;
  return undefined;
}

/** A non-negative decimal integer parameter; undefined when absent or not one. */
export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  return v !== null && /^\d{1,9}$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

/**
 * The query parameters that leave which records a filtered query selects to its filter (the
 * columns, the page, the sort, names, the total count, suppression), under the vendor's names, plus
 * `also`. A rule that knows what a filter selects judges only a query with none but these: any other
 * parameter may narrow the set.
 */
export function selectionKeepingParams(q: Bindings['query'], ...also: string[]): Set<string> {
  return new Set([
    'columns',
    'take',
    'sort',
    'resolveAssociationNames',
    q.filter,
    q.skip,
    q.includeTotalCount,
    q.excludeEmptyColumns,
    ...also,
  ]);
}

export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export { show } from '../judge/finding.js';

/**
 * Requirements no rule of an area decides from a recording, and why: the evidence a recording
 * never carries (the stored data, the caller's permissions, the service's settings, a deadline).
 * Declared beside the rules of the area; the report's "not judgeable from traffic alone" reason
 * and the docs read them (conformance/test/traffic-rules.test.ts: every testable core requirement
 * is decided by a rule or declared here, never both).
 */
export interface NotJudgeable {
  requirements: readonly string[];
  /** What a recording lacks to decide them. */
  reason: string;
}
