// The list of traffic rules in conformance/README.md, generated from the rules themselves (npm run
// docs:traffic; conformance/test/traffic-rules.test.ts fails while it is stale).
import { TO_RECORD } from './report.js';
import { SCHEMA_RULE } from './rules-schema.js';
import { SEQUENCE_RULES } from './sequence-rules.js';
import { EXCHANGE_RULES, NOT_JUDGEABLE } from './verify.js';

const START = '<!-- traffic-rules:start (generated from conformance/src/traffic/; npm run docs:traffic) -->';
const END = '<!-- traffic-rules:end -->';

function trafficRulesTable(): string {
  const rows = [
    ...[SCHEMA_RULE, ...EXCHANGE_RULES].map((r) => ({ ...r, kind: 'one exchange' })),
    ...SEQUENCE_RULES.map((r) => ({ ...r, kind: 'sequence' })),
  ].map(
    (r) =>
      `| \`${r.name}\` | ${r.kind} | ${r.requirements.join(', ')} | ${r.description.replace(/\|/g, '\\|')} | ${(TO_RECORD[r.name] ?? '').replace(/\|/g, '\\|')} |`,
  );
  return [
    '| Rule | Decided by | Requirements | What it asserts | Record, to observe it |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    'Requirements no rule decides, with the reason their area declares (shown in the report as "not judgeable from traffic alone"):',
    '',
    '| Requirements | Why a recording cannot decide them |',
    '|---|---|',
    ...NOT_JUDGEABLE.map((n) => `| ${n.requirements.join(', ')} | ${n.reason.replace(/\|/g, '\\|')} |`),
  ].join('\n');
}

/** `readme` with the table between its markers rewritten. */
export function withTrafficRulesTable(readme: string): string {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`conformance/README.md has no ${START} ... ${END} block`);
  return `${readme.slice(0, a + START.length)}\n${trafficRulesTable()}\n${readme.slice(b)}`;
}
