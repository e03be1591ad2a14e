// Verifying recorded traffic: the HAR files' exchanges of the interface, every per-exchange rule on
// each, every sequence rule over all of them in recorded order, and the judgements per rule.
import type { OpenApiIndex } from '../spec/openapi.js';
import type { Bindings } from '../model/bindings.js';
import { domainListOf } from '../model/not-shown-shapes.js';
import { GenericChecker } from '../suite-api/generic-checks/checker.js';
import type { Finding } from '../suite-api/generic-checks/types.js';
import { UsageError } from '../model/errors.js';
import {
  exchangesOf,
  isObject,
  MISSING_EVIDENCE,
  type MissingEvidence,
  type StateCall,
  type TrafficExchange,
} from './exchange.js';
import { readHarFile } from './har.js';
import { stateLedger } from './states.js';
import type { ExchangeRule, Judgement, NotJudgeable, RuleContext, SequenceRule } from './rule.js';
import { COLUMN_NOT_JUDGEABLE, COLUMN_RULES } from './rules-columns.js';
import { CORE_DOMAIN_IDS, FILE_NOT_JUDGEABLE, FILE_RULES } from './rules-files.js';
import { PROPOSAL_NOT_JUDGEABLE, PROPOSAL_RULES } from './rules-proposals.js';
import { schemaRule } from './rules-schema.js';
import { AUTH_NOT_JUDGEABLE, SEQUENCE_RULES } from './sequence-rules.js';

/** The per-exchange rules but the schema rule (which needs the checker). */
export const EXCHANGE_RULES: readonly ExchangeRule[] = [...COLUMN_RULES, ...FILE_RULES, ...PROPOSAL_RULES];

/** What each area's rules declare they cannot decide from a recording, and why. */
export const NOT_JUDGEABLE: readonly NotJudgeable[] = [
  ...COLUMN_NOT_JUDGEABLE,
  ...FILE_NOT_JUDGEABLE,
  ...PROPOSAL_NOT_JUDGEABLE,
  ...AUTH_NOT_JUDGEABLE,
];

export interface Verification {
  files: string[];
  /** HAR entries read, and how many of them were exchanges of the interface. */
  entries: number;
  exchanges: TrafficExchange[];
  judgements: Judgement[];
  findings: Finding[];
  rules: Array<Pick<ExchangeRule, 'name' | 'requirements' | 'description'> & { kind: 'exchange' | 'sequence' }>;
  /** The implementation's origin and path prefix: given (`--base-url`), or the one chosen, or undefined when none. */
  base?: string;
  baseChosen: 'given' | 'chosen' | 'none';
  /** HAR entries that are not this interface (another origin or path prefix, no `/api/` path), never judged. */
  notInterface: number;
  /** The other origins and prefixes with `/api/` paths, with their entry counts. */
  otherBases: Array<{ base: string; entries: number }>;
  /** The same exchange recorded twice (in two files) judged once: copies left out. */
  duplicates: number;
  /** Exchanges no rule reads the answer of, by cause (once per cause). */
  unjudged: Array<{ cause: MissingEvidence; count: number; message: string; example: string }>;
  /** Requests whose body the recording does not hold (rules that read the request skip them). */
  requestBodiesMissing: number;
}

export interface VerifyOptions {
  index: OpenApiIndex;
  bindings: Bindings;
  /** The implementation's base URL (origin and path prefix before `/api`); chosen from the traffic when absent. */
  baseUrl?: string;
}

export function verifyTraffic(files: string[], o: VerifyOptions): Verification {
  let candidates: TrafficExchange[] = [];
  let entries = 0;
  const others = { n: 0 };
  const stateCalls: StateCall[] = [];
  for (const f of files) {
    const har = readHarFile(f);
    const read = { n: 0 };
    for (const x of exchangesOf(har.entries, f, o.index, candidates.length, har.resource, others, read, stateCalls))
      candidates.push(x);
    entries += read.n;
  }
  const { base, chosen } = pickBase(candidates, o.baseUrl);
  const byBase = new Map<string, number>();
  for (const x of candidates) byBase.set(x.base, (byBase.get(x.base) ?? 0) + 1);
  candidates = candidates.filter((x) => x.base === base);
  const otherBases = [...byBase]
    .filter(([b]) => b !== base)
    .map(([b, n]) => ({ base: b, entries: n }))
    .sort((a, b) => b.entries - a.entries || a.base.localeCompare(b.base));
  // recorded order across files: by start time, the file order breaking ties
  candidates.sort((a, b) => a.startMs - b.startMs || a.index - b.index);
  const { kept: exchanges, duplicates } = dedupe(candidates);
  exchanges.forEach((x, i) => (x.index = i));
  const ledger = stateLedger(stateCalls, exchanges);
  const ctx: RuleContext = {
    bindings: o.bindings,
    domainIds: domainIdsOf(exchanges, o.bindings),
    ...(ledger.setups.length ? { states: ledger } : {}),
  };
  const findings: Finding[] = [];
  const schema = schemaRule(new GenericChecker(o.index, 'core'), findings);
  const judgements: Judgement[] = [];
  for (const x of exchanges) {
    // every per-exchange rule reads the answer: one that is no evidence is judged by none
    if (x.bodyMissing) continue;
    for (const rule of [schema, ...EXCHANGE_RULES])
      rule.judge(x, ctx, (requirements, ok, message, more) =>
        judgements.push({ rule: rule.name, requirements, ok, message, exchanges: more ?? [x] }),
      );
  }
  for (const rule of SEQUENCE_RULES)
    rule.judge(exchanges, ctx, (requirements, ok, message, more) => {
      // a sequence rule's evidence is the answers it names: one that is no evidence decides nothing
      if ((more ?? []).some((x) => x.bodyMissing)) return;
      judgements.push({ rule: rule.name, requirements, ok, message, exchanges: more ?? [] });
    });
  const rules = [
    ...[schema, ...EXCHANGE_RULES].map((r) => ({
      name: r.name,
      requirements: r.requirements,
      description: r.description,
      kind: 'exchange' as const,
    })),
    ...SEQUENCE_RULES.map((r: SequenceRule) => ({
      name: r.name,
      requirements: r.requirements,
      description: r.description,
      kind: 'sequence' as const,
    })),
  ];
  const causes = new Map<MissingEvidence, TrafficExchange[]>();
  for (const x of exchanges)
    if (x.evidence) {
      const c = causes.get(x.evidence);
      if (c) c.push(x);
      else causes.set(x.evidence, [x]);
    }
  return {
    files,
    entries,
    exchanges,
    judgements,
    findings,
    rules,
    ...(base !== undefined ? { base } : {}),
    baseChosen: chosen,
    notInterface: others.n + otherBases.reduce((n, b) => n + b.entries, 0),
    otherBases,
    duplicates,
    unjudged: [...causes].map(([cause, xs]) => ({
      cause,
      count: xs.length,
      message: MISSING_EVIDENCE[cause],
      example: xs[0].source,
    })),
    requestBodiesMissing: exchanges.filter((x) => x.requestBodyMissing).length,
  };
}

/** `http://host:port/prefix` without a trailing slash or `/api`. */
function normalBase(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(
      `--base-url ${url} is not a URL (give the origin and path prefix before /api, e.g. https://host/svc)`,
    );
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/\/api$/, '')}`;
}

/**
 * The implementation's base: the one given, else the origin and prefix that answers most of the
 * interface's own paths (operations with a fixed segment after /api, as /api/Domains or
 * /api/{domain}/Query, before the generic /api/{domain}/{id} that any service's path matches).
 */
function pickBase(xs: TrafficExchange[], given?: string): { base?: string; chosen: Verification['baseChosen'] } {
  if (given !== undefined) return { base: normalBase(given), chosen: 'given' };
  const score = new Map<string, [number, number, number]>();
  for (const x of xs) {
    const s = score.get(x.base) ?? [0, 0, 0];
    if (x.operation && !GENERIC_OPS.has(x.operation.operationId)) s[0]++;
    if (x.operation) s[1]++;
    s[2]++;
    score.set(x.base, s);
  }
  const best = [...score].sort(([a, s], [b, t]) => t[0] - s[0] || t[1] - s[1] || t[2] - s[2] || a.localeCompare(b))[0];
  return best && best[1][1] > 0 ? { base: best[0], chosen: 'chosen' } : { chosen: 'none' };
}
const GENERIC_OPS = new Set(['getRecord']);

/**
 * The same exchange recorded twice (in two files: a Playwright HAR and a DevTools export of one
 * session) is judged once: same method, URL and status, the same request body, the same answer
 * (or one copy without it), starts within 2 s. The copy holding more evidence is kept.
 */
function dedupe(xs: TrafficExchange[]): { kept: TrafficExchange[]; duplicates: number } {
  // by start time: only the copies of the last 2 s of each method, URL and status are looked at
  const seen = new Map<string, TrafficExchange[]>();
  const drop = new Set<TrafficExchange>();
  for (const x of xs) {
    const k = `${x.method} ${x.url} ${x.status}`;
    let same = seen.get(k);
    if (!same) seen.set(k, (same = []));
    while (same.length && x.startMs - same[0].startMs > 2000) same.shift();
    const at = same.findIndex(
      (y) =>
        y.file !== x.file &&
        Math.abs(y.startMs - x.startMs) <= 2000 &&
        (x.requestBodyMissing || y.requestBodyMissing || (x.requestBody ?? '') === (y.requestBody ?? '')) &&
        (x.bodyMissing || y.bodyMissing || x.responseBody === y.responseBody),
    );
    if (at < 0) {
      same.push(x);
      continue;
    }
    // the copy holding more evidence is kept; a copy matched once is not matched again
    const twin = same[at];
    same.splice(at, 1);
    drop.add(twin.bodyMissing && !x.bodyMissing ? twin : x);
  }
  return { kept: xs.filter((x) => !drop.has(x)), duplicates: drop.size };
}

/** The fixed core DomainIDs and every (name, ID) a domain list in the traffic showed. */
function domainIdsOf(xs: TrafficExchange[], b: Bindings): Map<string, number> {
  const m = new Map(CORE_DOMAIN_IDS);
  for (const x of xs) {
    if (x.operation?.operationId !== 'listDomains' || x.status !== 200) continue;
    const list = domainListOf(b, x.json);
    if (Array.isArray(list))
      for (const d of list)
        if (isObject(d) && typeof d.Name === 'string' && typeof d.DomainID === 'number' && !m.has(d.Name))
          m.set(d.Name, d.DomainID);
  }
  return m;
}
