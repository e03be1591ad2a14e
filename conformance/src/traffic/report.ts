// The verdict of recorded traffic as a run's report set (results.json, junit.xml, badge.svg,
// report.html): one synthetic test per rule and requirement (passed with the count of exchanges
// that showed it, failed with the deciding exchanges, reproducible with curl), every requirement
// no exchange decided "not observed" (not-applicable with that reason, so it never fails the
// verdict), and what to record to observe more. A recording that decided no requirement at all (a
// HAR without bodies) is INCONCLUSIVE (exit 4), never a pass (report/strength.ts).
import type { Catalogue } from '../spec/catalogue.js';
import type { Exchange } from '../suite-api/client.js';
import { specSectionTitles } from '../spec/sections.js';
import {
  buildRequirementReports,
  countResults,
  exitCodeFor,
  verdictFor,
  type RunResults,
  type TestResult,
} from '../report/results.js';
import { applyStrength } from '../report/strength.js';
import type { TrafficExchange } from './exchange.js';
import { redactor, shortenContents } from './redact.js';
import type { Judgement } from './rule.js';
import { NOT_JUDGEABLE, type Verification } from './verify.js';

/** What to record so that a rule can decide its requirements. */
export const TO_RECORD: Record<string, string> = {
  generic_checks_core_view: 'any call of the interface with its answer body',
  columns_requested_are_keys:
    'reads and queries with a `columns` list, some with `<field> as <Alias>`, also on files and links',
  take_default_30: 'a query without `take` over more than 30 records (with the total count on)',
  take_cap_100: 'a query with take above 100',
  take_n: 'queries with take=n where n records match (with the total count on)',
  empty_column_suppression: 'a query with empty-column suppression on and a `columns` list',
  no_suppression_by_default: 'a query without suppression whose requested column is null in every record',
  total_count: 'queries with and without the total-count parameter',
  sort_order:
    'a query sorted on numeric or timestamp columns: `<column> asc`, `<column> desc`, `<a> asc,<b> desc` (with the columns requested)',
  single_read_envelope: 'GET /api/{domain}/{id} and GET /api/File/{id}',
  contents_base64_of_file_size:
    'GET /api/File/{id}?columns=FileSize,Contents (and the attached-files listing with Contents)',
  mime_type_is_extension: 'file queries with FileName and MimeType',
  entry_date_format: 'file queries with EntryDate',
  file_timestamps: 'file queries with ModifiedDate and DownloadedDate of modified, downloaded files',
  file_query_metadata_only: 'GET /api/File/Query without `columns`',
  download_url: 'file queries with DownloadURL (and the external-file columns)',
  link_query_scope: 'Link/Query with parentDomain, and with childDomain and childRecordID, with the ID columns',
  domain_ids: 'GET /api/Domains',
  order_numbers: 'UpsertMulti batches',
  non_atomic_lists_every_item: 'UpsertMulti without isAtomic (and with isAtomic=false) that mix successes and failures',
  atomic_failure_lists_only_failed: 'UpsertMulti with isAtomic=true and one failing item',
  record_ids: 'UpsertMulti and single DELETE, successful and failing',
  result_messages: 'UpsertMulti and single DELETE',
  location_name_required: 'a ProposalLocation insert without LocationName, an update to an empty one',
  single_delete_result: 'a single schedule DELETE, also on a bound proposal',
  bind_status_pattern: 'BindStatus of proposals not bound, bound and failed',
  create_member_result: 'CreateMember on a proposal without a member',
  write_then_read: 'a successful insert or update followed by GET /api/{domain}/{id} of the record',
  failed_write_changes_nothing: 'GET of a record, a failing (atomic) batch naming it, GET again',
  pages_join_without_overlap:
    'two consecutive pages of one sorted, filtered query with the ID column (or a column the whole filtered set, read once, shows distinct)',
  suppression_against_plain_query:
    'one filtered query with a `columns` list, once with empty-column suppression and once without',
  total_count_across_pages: 'several pages of one filtered query with the total count on',
  contents_against_file_size: "GET /api/File/{id}?columns=Contents and any answer with that file's FileSize",
  create_member_twice: 'CreateMember twice on one proposal',
  link_write_then_query: 'Link/Upsert or Link/Remove by primary keys, then Link/Query of that child with ParentID',
  bound_stays_bound: 'BindStatus of a bound proposal read twice',
  pages_are_slices_of_the_whole:
    'one sorted, filtered query answered whole (take above the count) and in pages with the start offset, the same columns',
  start_offset_defaults_to_0: 'one sorted, filtered query without a start offset and with start offset 0',
  attached_files_are_linked: 'the attached-files listing with IsUnlinked',
  reinstated_is_readable: 'a schedule DELETE, Reinstate, then GET /api/{domain}/{id} of the record',
  contents_with_token: 'GET /api/File/{id}?columns=Contents with the token header (and the same file without Contents)',
  not_modifiable_refuses_writes:
    'a recorded suite run (its provider-state calls): UpsertMulti and schedule DELETE on a proposal set up with status B, R or 0, a bound set or a pending expiry change',
  proposal_records_follow_writes:
    "a recorded suite run (its provider-state calls): a proposal's schedule records read with the state's scheduleFilter before and after each UpsertMulti or DELETE",
  state_filter_selects_its_records:
    'a recorded suite run (its provider-state calls): queries with the filter or the LINQ filter a "records" state gave, with and without the total count',
  foreign_record_refused:
    "a recorded suite run (its provider-state calls): UpsertMulti or DELETE through one proposal naming another proposal's schedule record",
  state_files_as_set_up:
    'a recorded suite run (its provider-state calls): file queries, reads and listings with FileID, FileSize and IsUnlinked of files a state created',
  state_parent_lists_its_files:
    'a recorded suite run (its provider-state calls): GET /api/{domain}/{id}/Files?columns=FileID of a parent a "record with files" state created (take above its count)',
  link_upsert_does_not_duplicate:
    'Link/Upsert of one parent and child by primary keys (twice), then Link/Query of that child with the four ID columns',
  linked_file_is_not_unlinked:
    'Link/Upsert of a File child by primary key, then GET /api/File/{id}?columns=IsUnlinked (or a file query with FileID and IsUnlinked)',
  permanent_delete_is_gone:
    'a recorded suite run (its provider-state calls): a schedule DELETE on a Quote, Application, Renewal, Rewrite or Reissue proposal, then GET /api/{domain}/{id} of the record',
};

export interface TrafficReportOptions {
  catalogue: Catalogue;
  suiteVersion: string;
  specVersion: string;
  tokenHeader: string;
  tokenPrefix: string;
  startedAt: Date;
  keepCredentials?: boolean;
  keepContents?: boolean;
  targetLabel?: string;
}

export interface TrafficReport {
  results: RunResults;
  /** Testable core requirements: how many, how many the traffic decided. */
  observed: { testable: number; observed: number };
  /** One line per rule that decided nothing, with what to record. */
  toRecord: string[];
}

const MAX_BODY = 16_384;

function toExchange(x: TrafficExchange, o: TrafficReportOptions): Exchange {
  const red = redactor(o.tokenHeader, o.keepCredentials);
  const requestHeaders = red.headers(x.requestHeaders);
  const responseHeaders = red.headers(x.responseHeaders);
  const cut = (s: string | undefined) => {
    const t = shortenContents(red.text(s), o.keepContents);
    return t !== undefined && t.length > MAX_BODY
      ? `${t.slice(0, MAX_BODY)}… [${t.length - MAX_BODY} more characters]`
      : t;
  };
  return {
    method: x.method,
    url: red.text(x.url) ?? x.url,
    requestHeaders,
    ...(x.requestBody !== undefined ? { requestBody: cut(x.requestBody) } : {}),
    status: x.status,
    responseHeaders,
    responseBody: cut(x.responseBody),
    ms: Math.round(x.endMs - x.startMs),
    at: x.startMs,
    ...(x.operation ? { operationId: x.operation.operationId } : {}),
  };
}

/** One synthetic test per rule and requirement. */
function testsOf(v: Verification, o: TrafficReportOptions): TestResult[] {
  const groups = new Map<string, Judgement[]>();
  for (const j of v.judgements)
    for (const r of j.requirements) {
      const k = `${j.rule}\u0000${r}`;
      const g = groups.get(k);
      if (g) g.push(j);
      else groups.set(k, [j]);
    }
  const rules = new Map(v.rules.map((r) => [r.name, r]));
  const out: TestResult[] = [];
  for (const [k, js] of groups) {
    const [rule, req] = k.split('\u0000');
    const failed = js.filter((j) => !j.ok);
    const passed = js.length - failed.length;
    const level = o.catalogue.requirements.find((q) => q.id === req)?.level ?? 'core';
    const t: TestResult = {
      id: `traffic.${rule}.${req}`,
      title: `${rules.get(rule)?.description ?? rule} (${passed} exchange(s) showed it${failed.length ? `, ${failed.length} broke it` : ''})`,
      file: v.files.join(', '),
      profile: level,
      requirements: [req],
      result: failed.length ? 'failed' : 'passed',
      durationMs: 0,
      operations: [
        ...new Set(js.flatMap((j) => j.exchanges.map((x) => x.operation?.operationId ?? '')).filter(Boolean)),
      ].sort(),
    };
    if (failed.length) {
      const first = failed[0];
      t.error = {
        message: `[${req}] ${rule}: ${first.message}${
          failed.length > 1
            ? ` (and ${failed.length - 1} more: ${failed
                .slice(1, 4)
                .map((j) => j.message)
                .join('; ')})`
            : ''
        } — ${first.exchanges.map((x) => x.source).join(', ')}`,
        exchanges: first.exchanges.map((x) => toExchange(x, o)),
      };
    }
    out.push(t);
  }
  return out;
}

/**
 * Why a requirement no rule names cannot be judged from traffic alone: the reason the rules of its
 * area declare (NOT_JUDGEABLE beside the rules), never a guess from the requirement's ID.
 */
export function notJudgeableReason(id: string): string {
  return (
    NOT_JUDGEABLE.find((n) => n.requirements.includes(id))?.reason ??
    'no traffic rule decides it, and no rule declares why (a requirement newer than these rules)'
  );
}

export function trafficResults(v: Verification, o: TrafficReportOptions): TrafficReport {
  const tests = testsOf(v, o);
  const reqs = buildRequirementReports({ catalogue: o.catalogue, profile: 'core', requirements: [], tests });
  const named = new Set(v.rules.flatMap((r) => r.requirements));
  const titles = specSectionTitles();
  for (const q of reqs) {
    const title = titles.get(q.section);
    if (title) q.sectionTitle = title;
    if (q.result !== 'untested') continue;
    q.result = 'not-applicable';
    q.reason = named.has(q.id)
      ? `not observed: no recorded exchange decided it (record: ${v.rules
          .filter((r) => r.requirements.includes(q.id))
          .map((r) => TO_RECORD[r.name])
          .join('; ')})`
      : `not judgeable from traffic alone: ${notJudgeableReason(q.id)}`;
  }
  const testable = reqs.filter((q) => q.result !== 'not-testable');
  const observed = testable.filter((q) => q.result === 'passed' || q.result === 'failed').length;
  const decided = new Set(v.judgements.map((j) => j.rule));
  const toRecord = v.rules
    .filter((r) => !decided.has(r.name))
    .map((r) => `${r.name} (${r.requirements.join(', ')}): ${TO_RECORD[r.name] ?? r.description}`);
  const exitCode = exitCodeFor(reqs);
  const finishedAt = new Date();
  const results: RunResults = {
    schema: 'rflps-conformance-results/1',
    suiteVersion: o.suiteVersion,
    specVersion: o.specVersion,
    catalogueVersion: o.catalogue.version,
    target: {
      kind: 'url',
      baseUrl: baseOf(v),
      description: `recorded traffic: ${v.files.length} HAR file(s), ${v.entries} entries, ${v.exchanges.length} exchanges of the interface; ${observed} of ${testable.length} testable core requirements observed`,
    },
    ...(o.targetLabel ? { targetLabel: o.targetLabel } : {}),
    profile: 'core',
    auth: { header: o.tokenHeader, prefix: o.tokenPrefix },
    selection: { requirements: [], readOnly: true },
    startedAt: o.startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - o.startedAt.getTime(),
    requirements: reqs,
    counts: countResults(reqs),
    gatingCounts: countResults(reqs),
    verdict: verdictFor(exitCode),
    exitCode,
    runErrors:
      v.exchanges.length === 0
        ? [
            `the HAR file(s) hold no exchange of the interface (no request to an /api/ path${v.base !== undefined ? ` under ${v.base}` : ''})`,
          ]
        : [],
    warnings: [...evidenceNotes(v), ...toRecord.map((t) => `not observed, record to observe: ${t}`)],
    findings: dedupe(v.findings),
  };
  return {
    results: applyStrength(results, {}, 'observed'),
    observed: { testable: testable.length, observed },
    toRecord,
  };
}

/** What the verification left unjudged and why, once per cause (issue 34). */
function evidenceNotes(v: Verification): string[] {
  return [
    ...(v.base !== undefined
      ? [
          `the implementation: ${v.base} (${v.baseChosen === 'given' ? 'given with --base-url' : "chosen: the origin that answers the interface's own paths; give --base-url to choose another"})`,
        ]
      : []),
    ...(v.notInterface
      ? [
          `${v.notInterface} HAR entries are not this interface, never judged${
            v.otherBases.length
              ? ` (${v.otherBases
                  .slice(0, 3)
                  .map((b) => `${b.base}: ${b.entries}`)
                  .join(', ')}${v.otherBases.length > 3 ? ', …' : ''})`
              : ''
          }`,
        ]
      : []),
    ...(v.duplicates ? [`${v.duplicates} exchange(s) recorded twice (in two files) judged once`] : []),
    ...v.unjudged.map((u) => `${u.count} exchange(s) not judged: ${u.message} (first: ${u.example})`),
    ...(v.requestBodiesMissing
      ? [`${v.requestBodiesMissing} request body(ies) not recorded: rules that read the request did not judge them`]
      : []),
  ];
}

function baseOf(v: Verification): string {
  if (v.base !== undefined) return v.base;
  const bases = [...new Set(v.exchanges.map((x) => x.url.slice(0, x.url.indexOf('/api/'))))];
  return bases.length === 1 ? bases[0] : bases.length === 0 ? '(none)' : `${bases[0]} (+${bases.length - 1} more)`;
}

function dedupe<T extends { kind: string; method: string; status: number; operationId?: string }>(fs: T[]): T[] {
  const seen = new Set<string>();
  return fs
    .filter((f) => {
      const k = `${f.kind}|${f.operationId}|${f.method}|${f.status}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .slice(0, 500);
}
