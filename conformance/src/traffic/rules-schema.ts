// GEN-001, GEN-002 on recorded traffic: the suite's own generic checks (suite-api/generic-checks,
// the core view of spec/openapi.yaml) run on each exchange, as a run runs them on the suite's.
import type { GenericChecker } from '../suite-api/generic-checks/checker.js';
import type { Finding } from '../suite-api/generic-checks/types.js';
import type { ExchangeRule } from './rule.js';

export const SCHEMA_RULE = {
  name: 'generic_checks_core_view',
  requirements: ['GEN-001', 'GEN-002'],
  description:
    'the generic checks of a run on every exchange: the body is JSON, and a documented core status carries a body valid against the core view of the schema',
} as const;

export function schemaRule(checker: GenericChecker, findings: Finding[]): ExchangeRule {
  return {
    ...SCHEMA_RULE,
    judge(x, _ctx, emit) {
      if (!x.operation || x.bodyMissing) return;
      const r = checker.check({
        method: x.method,
        url: x.url,
        path: x.path,
        status: x.status,
        contentType: x.responseHeaders['content-type'] ?? null,
        bodyText: x.responseBody,
      });
      findings.push(...r.findings);
      for (const code of r.checked) {
        const v = r.violations.filter((w) => w.code === code && w.level !== 'implementation-defined');
        emit([code], v.length === 0, v.length ? v.map((w) => w.message).join('; ') : `${code} held`);
      }
    },
  };
}
