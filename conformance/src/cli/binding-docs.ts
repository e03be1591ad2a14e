// One line of meaning per binding key. The keys and defaults come from bindings.ts at run time;
// bindingRows() fails when a key has no meaning here or a meaning names no key, so `conformance
// init` and the bindings table of conformance/README.md cannot drift from bindings.ts (a test
// checks both).
import { defaultBindings } from '../model/bindings.js';

const MEANINGS: Record<string, string> = {
  tokenHeader: 'header that carries the API token (e.g. Authorization)',
  tokenPrefix: 'text sent before the token in that header (e.g. "Bearer "); empty for none',
  'query.skip': 'query parameter of the record and file queries: rows to skip (start offset)',
  'query.filter': 'query parameter of the record and file queries: the filter',
  'query.linqFilter': 'query parameter of the record and file queries: the LINQ filter',
  'query.excludeEmptyColumns': 'query parameter of the record query: leave out columns empty on every row',
  'query.includeTotalCount': 'query parameter of the record and file queries: ask for the total count',
  totalCountField:
    'dotted path of the response body field with the total count (e.g. meta.total); needed only when the answer holds two counts named "total"',
  totalCountHeader:
    'response header with the total count instead (e.g. X-Total-Count); empty: the body field. A lone header or field named "total" is found unset',
  domainsListField:
    'dotted path of the list in the body of GET /api/Domains (empty: a bare array); needed only when the body holds two lists (a bare array or one list is found unset)',
  'linkQuery.parentRecordId': 'link query parameter: the parent record by ID',
  'linkQuery.parentRecordKey': 'link query parameter: the parent record by key value',
  'linkQuery.parentRecordMatchField': 'link query parameter: the parent field the key matches',
  'linkQuery.childRecordKey': 'link query parameter: the child record by key value',
  'linkQuery.childRecordMatchField': 'link query parameter: the child field the key matches',
  'linkQuery.relationship': 'link query parameter: the relationship code',
  'link.parentDomain': 'link body field, a dotted path for a nested body (Upsert/Remove): the parent domain',
  'link.parentRecordId': 'link body field: the parent record by ID',
  'link.parentRecordKey': 'link body field: the parent record by key value',
  'link.parentRecordMatchField': 'link body field: the parent field the key matches',
  'link.childDomain': 'link body field: the child domain (Contact or File)',
  'link.childRecordId': 'link body field: the child record by ID',
  'link.childRecordKey': 'link body field: the child record by key value',
  'link.childRecordMatchField': 'link body field: the child field the key matches',
  'link.relationship': 'link body field: the relationship code',
  'link.newRelationship': 'link body field (Upsert): the relationship code to change to',
  'linkColumns.linkId': 'link query column beyond the four documented: the link ID',
  'linkColumns.relationship': 'link query column beyond the four documented: the relationship code',
  'paths.health': 'not read by the suite: the start-up health wait uses the --health-path option',
  'paths.linkUpsert': 'path of the link upsert operation',
  'paths.linkRemove': 'path of the link remove operation',
};

export interface BindingRow {
  /** Dotted key as written under `bindings:` (`query.skip`). */
  key: string;
  default: string;
  meaning: string;
}

function leaves(o: object, prefix = ''): { key: string; value: string }[] {
  return Object.entries(o).flatMap(([k, v]) =>
    typeof v === 'object' && v !== null ? leaves(v, `${prefix}${k}.`) : [{ key: `${prefix}${k}`, value: String(v) }],
  );
}

/** Every binding key of bindings.ts with its default and meaning, in declaration order. */
export function bindingRows(): BindingRow[] {
  const rows = leaves(defaultBindings).map(({ key, value }) => {
    const meaning = MEANINGS[key];
    if (!meaning) throw new Error(`binding-docs.ts: binding '${key}' has no meaning; add one`);
    return { key, default: value, meaning };
  });
  const extra = Object.keys(MEANINGS).filter((k) => !rows.some((r) => r.key === k));
  if (extra.length) throw new Error(`binding-docs.ts: meanings for unknown bindings: ${extra.join(', ')}`);
  return rows;
}

const README_START =
  '<!-- bindings-table:start (generated from conformance/src/model/bindings.ts; npm run docs:bindings) -->';
const README_END = '<!-- bindings-table:end -->';

/** The bindings table of conformance/README.md: the YAML keys, their defaults and meanings. */
export function bindingsMarkdown(): string {
  const code = (s: string) => (s === '' ? '`""` (empty)' : `\`${s.replace(/\|/g, '\\|')}\``);
  return [
    README_START,
    '| key under `bindings:` | default | what it names |',
    '|---|---|---|',
    ...bindingRows().map((r) => `| \`${r.key}\` | ${code(r.default)} | ${r.meaning.replace(/\|/g, '\\|')} |`),
    README_END,
  ].join('\n');
}

/** `text` with its bindings table replaced by the current one (throws when the markers are missing). */
export function withBindingsTable(text: string): string {
  const a = text.indexOf('<!-- bindings-table:start');
  const b = text.indexOf(README_END);
  if (a < 0 || b < a) throw new Error('the bindings-table markers are missing');
  return `${text.slice(0, a)}${bindingsMarkdown()}${text.slice(b + README_END.length)}`;
}
