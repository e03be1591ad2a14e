// Verifying recorded traffic: the HAR files' exchanges of the interface, every per-exchange rule on
// each, every sequence rule over all of them in recorded order, and the judgements per rule.
import type { OpenApiIndex } from '../spec/openapi.js';
import type { Bindings } from '../suite-api/bindings.js';
import { domainListOf } from '../suite-api/bindings.js';
import { GenericChecker } from '../suite-api/generic-checks/checker.js';
import type { Finding } from '../suite-api/generic-checks/types.js';
import { exchangesOf, isObject, type TrafficExchange } from './exchange.js';
import { readHar } from './har.js';
import type { ExchangeRule, Judgement, RuleContext, SequenceRule } from './rule.js';
import { COLUMN_RULES } from './rules-columns.js';
import { CORE_DOMAIN_IDS, FILE_RULES } from './rules-files.js';
import { PROPOSAL_RULES } from './rules-proposals.js';
import { schemaRule } from './rules-schema.js';
import { SEQUENCE_RULES } from './sequence-rules.js';

/** The per-exchange rules but the schema rule (which needs the checker). */
export const EXCHANGE_RULES: readonly ExchangeRule[] = [...COLUMN_RULES, ...FILE_RULES, ...PROPOSAL_RULES];

export interface Verification {
  files: string[];
  /** HAR entries read, and how many of them were exchanges of the interface. */
  entries: number;
  exchanges: TrafficExchange[];
  judgements: Judgement[];
  findings: Finding[];
  rules: Array<Pick<ExchangeRule, 'name' | 'requirements' | 'description'> & { kind: 'exchange' | 'sequence' }>;
}

export function verifyTraffic(files: string[], o: { index: OpenApiIndex; bindings: Bindings }): Verification {
  const exchanges: TrafficExchange[] = [];
  let entries = 0;
  for (const f of files) {
    const es = readHar(f);
    entries += es.length;
    exchanges.push(...exchangesOf(es, f, o.index, exchanges.length));
  }
  // recorded order across files: by start time, the file order breaking ties
  exchanges.sort((a, b) => a.startMs - b.startMs || a.index - b.index);
  exchanges.forEach((x, i) => (x.index = i));
  const ctx: RuleContext = { bindings: o.bindings, domainIds: domainIdsOf(exchanges, o.bindings) };
  const findings: Finding[] = [];
  const schema = schemaRule(new GenericChecker(o.index, 'core'), findings);
  const judgements: Judgement[] = [];
  for (const x of exchanges)
    for (const rule of [schema, ...EXCHANGE_RULES])
      rule.judge(x, ctx, (requirements, ok, message, more) =>
        judgements.push({ rule: rule.name, requirements, ok, message, exchanges: more ?? [x] }),
      );
  for (const rule of SEQUENCE_RULES)
    rule.judge(exchanges, ctx, (requirements, ok, message, more) =>
      judgements.push({ rule: rule.name, requirements, ok, message, exchanges: more ?? [] }),
    );
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
  return { files, entries, exchanges, judgements, findings, rules };
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
