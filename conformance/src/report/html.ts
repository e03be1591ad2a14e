// report.html: one offline page a person reads first. Everything is inline (CSS, a little JS, the
// badge); a Content-Security-Policy with hashes forbids any other script, style or network access.
// Every text that comes from the run (bodies, headers, messages: vendor-controlled) is escaped.
// Readable without JS: the filters are added by the script, everything else is plain HTML.
import { providerStatesLines, stateEndpointCause } from './provider-states.js';
import type { Exchange } from '../suite-api/client.js';
import { badgeInfo, badgeScore, renderBadgeSvg } from './badge.js';
import { NOT_JUDGED_CAUSES, strengthOf } from './strength.js';
import { CONTENT_SECURITY_POLICY, CSS, JS } from './html-assets.js';
import { curlCommand, TOKEN_VAR } from './curl.js';
import type { ChoicesExercised } from './choices.js';
import { compareSections, specSectionTitles } from '../spec/sections.js';
import {
  isGatingFailure,
  rootCauses,
  type RequirementReport,
  type RequirementResult,
  type RunResults,
  type TestResult,
  testCountsText,
} from './results.js';

/** Longest body shown in the page (the whole recorded body is in results.json). */
export const MAX_SHOWN_BODY = 4000;
const MAX_SHOWN_LINES = 80;
const MAX_LIST = 300;
/** Entries of the index of failures shown before the rest is folded. */
const INDEX_OPEN = 20;
/** Earlier exchanges of a failed test shown (the last ones before the failing one), and their body size. */
const MAX_EARLIER = 10;
const MAX_EARLIER_BODY = 1500;

const RESULT_ORDER: RequirementResult[] = [
  'failed',
  'blocked',
  'error',
  'precondition-failed',
  'untested',
  'passed',
  'not-applicable',
  'not-testable',
];
const RESULT_LABEL: Record<RequirementResult, string> = {
  passed: 'passed',
  failed: 'failed',
  blocked: 'blocked',
  error: 'error',
  'precondition-failed': 'precondition failed',
  untested: 'untested',
  'not-applicable': 'not applicable',
  'not-testable': 'not testable',
};
const RESULT_HELP: Record<RequirementResult, string> = {
  passed: 'every test of the requirement passed',
  failed: 'a test found the implementation breaking the requirement',
  blocked:
    'a step the tests need failed (a requirement they rely on, or a response shape): fix the requirement named as the cause first',
  error: 'the target did not answer (timeout, connection refused) or the harness failed',
  'precondition-failed': 'a provider state or fixture the test needs could not be set up',
  untested: 'no test in this run verifies the requirement',
  'not-applicable': 'left out by the profile, the selection or --read-only, or the implementation has no such thing',
  'not-testable': 'the requirement cannot be tested through the interface',
};

export function esc(v: unknown): string {
  return (
    String(v ?? '')
      // eslint-disable-next-line no-control-regex -- control characters are not allowed in HTML text
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '\uFFFD')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;')
  );
}

function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]+/g, '-');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function fmtTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

function fmtDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** A body for people: pretty JSON when it parses, cut to MAX_SHOWN_BODY characters / MAX_SHOWN_LINES lines. */
export function showBody(body: string | undefined, maxChars = MAX_SHOWN_BODY): { text: string; cut: string } {
  if (body === undefined || body === '') return { text: '', cut: '' };
  let text = body;
  if (body.length < 200_000) {
    try {
      const parsed = JSON.parse(body);
      if (parsed !== null && typeof parsed === 'object') text = JSON.stringify(parsed, null, 2);
    } catch {
      /* not JSON: as is */
    }
  }
  let cut = '';
  const lines = text.split('\n');
  if (lines.length > MAX_SHOWN_LINES) {
    const kept = lines.slice(0, MAX_SHOWN_LINES).join('\n');
    cut = `… ${lines.length - MAX_SHOWN_LINES} more lines (the recorded body is in results.json)`;
    text = kept;
  }
  if (text.length > maxChars) {
    cut = `… ${text.length - maxChars} more characters (the recorded body is in results.json)`;
    text = text.slice(0, maxChars);
  }
  return { text, cut };
}

function pill(result: RequirementResult): string {
  return `<span class="pill p-${result}" title="${esc(RESULT_HELP[result])}">${esc(RESULT_LABEL[result])}</span>`;
}

function describeTarget(r: RunResults): string {
  const t = r.target;
  if (r.targetLabel) return r.targetLabel;
  if (t.kind === 'container') return `image ${t.image ?? '?'}`;
  if (t.kind === 'local-process') return 'reference server (local process)';
  return t.baseUrl;
}

// ------------------------------------------------------------------------- pieces

function headerBlock(r: RunResults): string {
  const verdict = r.verdict.toUpperCase();
  const gating = r.requirements.filter((q) => q.result === 'passed' || isGatingFailure(q.result));
  const failing = r.requirements.filter((q) => isGatingFailure(q.result));
  const excused = new Set((r.gate?.excused ?? []).map((x) => x.id));
  let headline: string;
  if (r.exitCode === 3) headline = 'The run did not complete: the target or the harness failed.';
  else if (r.exitCode === 2) headline = 'The run did not complete: the suite or the configuration is invalid.';
  else if (r.exitCode === 4) headline = 'Inconclusive: the run judged nothing, so it is no pass.';
  else if (failing.length === 0 && r.exitCode === 1)
    headline = `All ${plural(gating.length, 'requirement')} with a verdict passed, but the run judged too little for its gate.`;
  else if (failing.length === 0) headline = `All ${plural(gating.length, 'requirement')} with a verdict passed.`;
  else if (r.exitCode === 0)
    headline = `${plural(failing.length, 'requirement')} failing, all of them expected or known.`;
  else
    headline = `${failing.length} of ${plural(gating.length, 'requirement')} with a verdict ${failing.length === 1 ? 'is' : 'are'} failing${excused.size ? ` (${excused.size} expected or known)` : ''}.${
      stateEndpointCause(r.requirements) ? ` ${stateEndpointCause(r.requirements)}` : ''
    }`;
  const b = badgeInfo(r);
  const st = r.strength ?? strengthOf(r);
  const strength = `<p class="strength${st.full ? '' : ' partial'}"><b>${st.judged} of ${st.selected}</b> selected testable requirements judged (${st.passed} passed)${
    st.notJudged
      ? `; <b>${st.notJudged} not judged</b>: ${st.notJudgedBy.map((c) => `<span title="${esc(NOT_JUDGED_CAUSES[c.cause])}: ${esc(c.requirements.join(', '))}">${c.count} ${esc(c.cause)}</span>`).join(', ')}`
      : ''
  }${st.gate?.problems.length ? `. Gate: ${esc(st.gate.problems.join('; '))}` : ''}</p>`;
  const levels = (['core', 'implementation-defined'] as const)
    .map((lvl) => {
      const s = badgeScore(r.requirements.filter((q) => q.level === lvl));
      return s.counted ? `<span class="score"><b>${s.passed}/${s.counted}</b> ${lvl}</span>` : '';
    })
    .filter(Boolean)
    .join('');
  // a pass that judged less than it selected is never shown as the green of a full pass
  const partial = r.verdict === 'pass' && !st.full;
  return `<header class="top v-${esc(r.verdict)}${partial ? ' v-partial' : ''}">
  <div class="verdict" role="status" aria-label="verdict ${esc(verdict)}${partial ? ' (partial)' : ''}"><span class="verdict-word">${esc(verdict)}</span><span class="exit">exit code ${esc(r.exitCode)}${partial ? ` · ${st.judged}/${st.selected} judged` : ''}</span></div>
  <div class="headline">
    <p class="kicker">Conformance report · ${esc(r.profile)} profile</p>
    <h1>${esc(describeTarget(r))}</h1>
    <p class="lead">${esc(headline)}</p>
    <p class="scores">${levels}</p>
    ${strength}
  </div>
  <div class="badge" title="${esc(b.title)}">${renderBadgeSvg(b)}</div>
</header>`;
}

function countsBlock(r: RunResults): string {
  const items = RESULT_ORDER.map((k) => {
    const n = r.counts[k];
    return `<li class="count c-${k}${n ? '' : ' zero'}" title="${esc(RESULT_HELP[k])}"><span class="n">${n}</span><span class="k">${esc(RESULT_LABEL[k])}</span></li>`;
  }).join('');
  // the tests, counted as the console and results.json count them (not selected: outside the selection)
  const tests = r.testCounts ? `<p class="sec-counts test-counts">Tests: ${esc(testCountsText(r.testCounts))}</p>` : '';
  return `<ul class="counts" aria-label="requirements by result">${items}</ul>${tests}`;
}

function metaBlock(r: RunResults): string {
  const t = r.target;
  const rows: Array<[string, string]> = [];
  if (r.targetLabel) rows.push(['Target', esc(r.targetLabel)]);
  rows.push([
    'Target kind',
    esc(t.requested && t.requested !== t.kind ? `${t.kind} (asked for ${t.requested})` : t.kind),
  ]);
  rows.push(['Base URL', `<code>${esc(t.baseUrl)}</code>`]);
  if (t.image) rows.push(['Image', `<code>${esc(t.image)}</code>`]);
  if (t.digest) rows.push(['Image digest', `<code class="wrap">${esc(t.digest)}</code>`]);
  if (t.stateUrl) rows.push(['Provider states', `<code>${esc(t.stateUrl)}</code>`]);
  if (r.selection.fixtures) rows.push(['Fixtures', `<code>${esc(r.selection.fixtures)}</code>`]);
  const sel = [
    `profile <b>${esc(r.profile)}</b>`,
    r.selection.requirements.length ? `requirements ${esc(r.selection.requirements.join(', '))}` : 'all requirements',
    r.selection.readOnly ? 'read-only' : '',
    r.selection.shard ? `shard ${esc(r.selection.shard)}` : '',
  ].filter(Boolean);
  rows.push(['Selection', sel.join(' · ')]);
  rows.push([
    'Versions',
    `suite ${esc(r.suiteVersion)} · spec ${esc(r.specVersion)} · catalogue ${esc(r.catalogueVersion)}`,
  ]);
  if (r.providerStates) {
    const [first, ...rest] = providerStatesLines(r.providerStates);
    rows.push([
      'State protocol',
      [first!.replace(/^Provider-state protocol: /, ''), ...rest.map((l) => l.trim())]
        .map((l, i) => (i === 0 ? esc(l) : `<br><span class="muted">${esc(l)}</span>`))
        .join(''),
    ]);
  }
  if (r.timing)
    rows.push([
      'Timing',
      `request timeout ${esc(r.timing.requestTimeoutMs)} ms · test timeout ${esc(r.timing.testTimeoutMs)} ms · async timeout <b>${esc(r.timing.asyncTimeoutMs)} ms</b> · clock tolerance ${esc(r.timing.clockToleranceMs)} ms`,
    ]);
  rows.push(['Started', esc(fmtTime(r.startedAt))]);
  rows.push(['Finished', `${esc(fmtTime(r.finishedAt))} (${esc(fmtDuration(r.durationMs))})`]);
  return `<table class="meta">${rows.map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${v}</td></tr>`).join('')}</table>`;
}

function failureIndex(r: RunResults): string {
  const failing = r.requirements.filter((q) => isGatingFailure(q.result));
  if (!failing.length) return '';
  // root failures first (failed on their own), then the blocked ones under the root they depend on
  const { roots, blocked } = rootCauses(r.requirements);
  const item = (q: RequirementReport) => {
    const why = firstProblem(q);
    return `<li><a href="#req-${esc(slug(q.id))}"><code>${esc(q.id)}</code></a> ${pill(q.result)}${markChips(q)} <span class="muted">${esc(clipText(q.statement, 140))}</span>${
      why ? `<br><span class="why">${esc(clipText(why, 200))}</span>` : ''
    }</li>`;
  };
  const first = roots.slice(0, INDEX_OPEN);
  const rest = roots.slice(INDEX_OPEN, MAX_LIST);
  const groups = [...blocked].map(([root, list]) => {
    const inRun = r.requirements.some((q) => q.id === root);
    const head = inRun
      ? `<a href="#req-${esc(slug(root))}"><code>${esc(root)}</code></a>`
      : `<code>${esc(root)}</code>`;
    return `<details class="blocked-group"><summary>blocked by ${head}: ${esc(plural(list.length, 'requirement'))}</summary><ul class="plain">${list
      .slice(0, MAX_LIST)
      .map(item)
      .join('')}</ul></details>`;
  });
  return `<section class="panel fail-index"><h2>Not passing (${failing.length})</h2>${
    roots.length ? `<h3>Root failures (${roots.length})</h3><ul class="plain">${first.map(item).join('')}</ul>` : ''
  }${
    rest.length
      ? `<details><summary>${rest.length} more</summary><ul class="plain">${rest.map(item).join('')}</ul></details>`
      : ''
  }${roots.length > MAX_LIST ? `<p class="muted">… ${roots.length - MAX_LIST} more below</p>` : ''}${
    groups.length ? `<h3>Blocked, by the requirement whose failure they depend on</h3>${groups.join('')}` : ''
  }</section>`;
}

/** The first line of the first problem of a requirement (for the index of failures). */
function firstProblem(q: RequirementReport): string | undefined {
  const t = q.tests.find(
    (x) =>
      x.result === 'failed' || x.result === 'blocked' || x.result === 'error' || x.result === 'precondition-failed',
  );
  if (!t) return q.result === 'untested' ? 'no test in this run verifies this requirement' : undefined;
  const msg = t.error?.expectation?.message ?? (t.error?.message ?? t.reason ?? '').split('\n')[0];
  return msg ? `${t.title}: ${msg}` : t.title;
}

function clipText(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function markChips(q: RequirementReport): string {
  const out: string[] = [];
  const ef = q.expectedFailure;
  if (ef?.status === 'expected-failure')
    out.push(
      `<span class="chip chip-expected" title="${esc(ef.reason)}">expected failure until ${esc(ef.expires)}</span>`,
    );
  if (ef?.status === 'expired')
    out.push(
      `<span class="chip chip-bad" title="${esc(ef.reason)}">expected-failure entry EXPIRED ${esc(ef.expires)}</span>`,
    );
  if (ef?.status === 'disputed') out.push(`<span class="chip chip-disputed" title="${esc(ef.reason)}">DISPUTED</span>`);
  if (ef?.status === 'unexpectedly-passing')
    out.push(`<span class="chip chip-info">unexpectedly passing — remove it from the expected failures</span>`);
  const b = q.baseline;
  if (b?.change === 'regression') out.push(`<span class="chip chip-bad">REGRESSION (baseline: ${esc(b.was)})</span>`);
  if (b?.change === 'fixed')
    out.push(`<span class="chip chip-good">fixed since the baseline (was ${esc(b.was)})</span>`);
  if (b?.change === 'still-failing')
    out.push(`<span class="chip chip-expected">known: ${esc(b.was)} in the baseline too</span>`);
  return out.length ? ` ${out.join(' ')}` : '';
}

function gateBlock(r: RunResults): string {
  if (!r.gate) return '';
  const parts: string[] = [];
  parts.push(
    `<ul class="plain gate-msgs">${r.gate.messages.map((m) => `<li${/^EXPIRED|regression(s)? since/.test(m) && !/^no regressions/.test(m) ? ' class="bad"' : ''}>${esc(m)}</li>`).join('')}</ul>`,
  );
  if (r.baseline) {
    const b = r.baseline;
    const list = (title: string, rows: Array<{ id: string; was: string; now: string }>, cls: string) =>
      rows.length
        ? `<h3>${esc(title)} (${rows.length})</h3><table class="grid ${cls}"><tr><th>requirement</th><th>baseline</th><th>now</th></tr>${rows
            .slice(0, MAX_LIST)
            .map(
              (x) =>
                `<tr><td><a href="#req-${esc(slug(x.id))}"><code>${esc(x.id)}</code></a></td><td>${esc(x.was)}</td><td>${esc(x.now)}</td></tr>`,
            )
            .join('')}</table>`
        : '';
    parts.push(
      `<p class="muted">Compared with <code>${esc(b.file)}</code>: the run of ${esc(fmtTime(b.startedAt))} against ${esc(b.target)} (suite ${esc(b.suiteVersion)}, ${esc(b.profile)} profile). A regression is a requirement failing now that was not failing in the baseline, or that the baseline did not hold.</p>`,
    );
    parts.push(list('Newly failing (regressions)', b.regressions, 'bad'));
    parts.push(list('Fixed since the baseline', b.fixed, 'good'));
    parts.push(list('Still failing', b.stillFailing, ''));
    if (b.notInRun.length)
      parts.push(
        `<p class="muted">In the baseline but not in this run: ${esc(b.notInRun.slice(0, MAX_LIST).join(', '))}</p>`,
      );
  }
  if (r.expectedFailures) {
    const e = r.expectedFailures;
    parts.push(
      `<h3>Expected failures (<code>${esc(e.file)}</code>, judged on ${esc(e.today)})</h3><table class="grid"><tr><th>requirement</th><th>status</th><th>result</th><th>expires</th><th>reason</th></tr>${e.entries
        .map(
          (x) =>
            `<tr class="ef-${esc(x.status)}"><td><a href="#req-${esc(slug(x.id))}"><code>${esc(x.id)}</code></a></td><td>${esc(x.status === 'unexpectedly-passing' ? 'unexpectedly passing — remove it' : x.status)}</td><td>${esc(x.result ?? '—')}</td><td>${esc(x.expires ?? '—')}</td><td>${esc(x.kind === 'disputed' ? `disputed: “${x.quote}” — ${x.reason}` : x.reason)}</td></tr>`,
        )
        .join('')}</table>`,
    );
  }
  return `<section class="panel gate"><h2>Gate: baseline and expected failures</h2>${parts.join('')}</section>`;
}

/**
 * The disputed failures, on the first screen: each with the spec sentence the suite's test rests
 * on, the suite's reading of it, and the vendor's quote and reason. They stay red in every count.
 */
function disputesBlock(r: RunResults): string {
  const list = r.disputes ?? [];
  if (!list.length) return '';
  const how = r.gate?.allowDisputed
    ? 'not failing the run (--allow-disputed); still red in every count and in the badge'
    : 'failing the run: give --allow-disputed to let the exit code pass while the dispute is open';
  const item = (d: NonNullable<RunResults['disputes']>[number]) =>
    `<li><a href="#req-${esc(slug(d.id))}"><code>${esc(d.id)}</code></a> ${pill(d.result)} <span class="chip chip-disputed">DISPUTED</span><dl class="dispute"><dt>The spec (§${esc(d.section)})</dt><dd>${d.specQuote ? `“${esc(d.specQuote)}”` : '—'}</dd><dt>The suite reads</dt><dd>${esc(d.statement)}</dd><dt>Your quote</dt><dd>“${esc(d.quote)}”</dd><dt>Your reason</dt><dd>${esc(d.reason)}</dd>${d.tests.length ? `<dt>Failing</dt><dd>${d.tests.map((t) => `<code>${esc(t.id)}</code>: ${esc(clipText(t.message, 300))}`).join('<br>')}</dd>` : ''}</dl></li>`;
  return `<section class="panel disputes"><h2>Disputed failures (${list.length})</h2><p class="muted">${esc(how)}. Send each to the project with the dispute issue template (.github/ISSUE_TEMPLATE/dispute.md); disputes.md in this directory holds the text, ready to paste.</p><ul class="plain">${list.map(item).join('')}</ul></section>`;
}

/** The open choices the run met and never exercised (choices.ts), folded: a reference, not a verdict. */
function choicesBlock(r: RunResults): string {
  const c = r.choices;
  if (!c) return '';
  const answers = (list: Array<{ shape: string; count: number }>) =>
    list.map((a) => `<code>${esc(a.shape)}</code> ×${esc(a.count)}`).join('<br>');
  const refusals = c.refusals
    .map(
      (k) =>
        `<tr><td><b>${esc(k.kind)}</b> (${esc(k.status)})</td><td>${k.met.map((m) => `<code>${esc(m.operationId)}</code> ×${esc(m.count)}<br>${answers(m.answers)}`).join('<hr>') || '—'}</td><td class="muted">${esc(k.neverExercised.join(', ') || '—')}</td></tr>`,
    )
    .join('');
  const rows = (list: ChoicesExercised['otherRefusals']) =>
    list
      .map(
        (x) =>
          `<tr><td><code>${esc(x.operationId)}</code></td><td>${esc(x.status)}</td><td>${esc(x.count)}</td><td>${answers(x.answers)}</td></tr>`,
      )
      .join('');
  return `<details class="panel choices"><summary><h2>Choices exercised</h2></summary><p class="muted">What the run met of the choices the spec leaves open, read from every exchange it recorded: per kind of refusal the reference documents (its name in spec/openapi.yaml), the operations where a request got it and how it was answered, and those where no request did (never exercised: the run says nothing about your choice there). Then refusals with statuses the reference does not document for the operation (your own choice), and the shapes of the success answers (envelopes).</p><table class="grid"><tr><th>kind of refusal</th><th>met (answers seen)</th><th>never exercised on</th></tr>${refusals}</table>${
    c.otherRefusals.length
      ? `<h3>Refusals with a status the reference does not document (${c.otherRefusals.length})</h3><table class="grid"><tr><th>operation</th><th>status</th><th>count</th><th>answers</th></tr>${rows(c.otherRefusals)}</table>`
      : ''
  }<h3>Success answers by shape (${c.successShapes.length})</h3><table class="grid"><tr><th>operation</th><th>status</th><th>count</th><th>answers</th></tr>${rows(c.successShapes)}</table>${ordersTable(c.orders ?? [])}</details>`;
}

/** Listings asked without sort, by the order their rows came in (an order the spec never states). */
function ordersTable(orders: NonNullable<ChoicesExercised['orders']>): string {
  if (!orders.length) return '';
  const body = orders
    .map(
      (o) =>
        `<tr><td><code>${esc(o.operationId)}</code></td><td>${esc(o.keys.join(', '))}</td><td>${esc(o.ascending)}</td><td>${esc(o.descending)}</td><td>${esc(o.other)}</td></tr>`,
    )
    .join('');
  return `<h3>Listings without sort, by the order of their rows (${orders.length})</h3><table class="grid"><tr><th>operation</th><th>ID column</th><th>ascending</th><th>descending</th><th>other</th></tr>${body}</table>`;
}

function problemsBlock(r: RunResults): string {
  const parts: string[] = [];
  if (r.runErrors.length) {
    parts.push(
      `<section class="panel run-errors"><h2>Run errors (${r.runErrors.length})</h2>${r.runErrors
        .slice(0, MAX_LIST)
        .map((e) => `<pre class="box">${esc(e)}</pre>`)
        .join('')}</section>`,
    );
  }
  if (r.warnings.length) {
    parts.push(
      `<details class="panel"><summary><h2>Warnings (${r.warnings.length})</h2></summary><ul>${r.warnings
        .slice(0, MAX_LIST)
        .map((w) => `<li>${esc(w)}</li>`)
        .join('')}</ul></details>`,
    );
  }
  if (r.findings.length) {
    parts.push(
      `<details class="panel"><summary><h2>Implementation-defined findings (${r.findings.length})</h2></summary><p class="muted">Observations that do not fail the core profile: undocumented statuses, implementation-defined response shapes.</p><table class="grid"><tr><th>kind</th><th>request</th><th>status</th><th>message</th></tr>${r.findings
        .slice(0, MAX_LIST)
        .map(
          (f) =>
            `<tr><td>${esc(f.kind)}</td><td><code>${esc(f.method)} ${esc(f.url)}</code></td><td>${esc(f.status)}</td><td>${esc(f.message)}</td></tr>`,
        )
        .join('')}</table></details>`,
    );
  }
  return parts.join('\n');
}

function exchangeBlock(ex: Exchange, r: RunResults, label: string, maxBody = MAX_SHOWN_BODY): string {
  const reqHeaders = Object.entries(ex.requestHeaders ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  const reqBody = showBody(ex.requestBody, maxBody);
  const request = `${ex.method} ${ex.url}${reqHeaders ? `\n${reqHeaders}` : ''}`;
  let response: string;
  if (ex.status === undefined) {
    response = `<pre class="box resp">${esc(`no response${ex.error ? `: ${ex.error}` : ''} (after ${ex.ms} ms)`)}</pre>`;
  } else {
    const resHeaders = Object.entries(ex.responseHeaders ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
    const resBody = showBody(ex.responseBody, maxBody);
    response = `<pre class="box resp"><span class="status s${Math.floor(ex.status / 100)}xx">HTTP ${esc(ex.status)}</span> <span class="muted">(${esc(ex.ms)} ms${ex.operationId ? `, ${esc(ex.operationId)}` : ''})</span>\n${esc(resHeaders)}${
      resBody.text ? `\n\n${esc(resBody.text)}` : '\n\n(empty body)'
    }${resBody.cut ? `\n<span class="cut">${esc(resBody.cut)}</span>` : ''}</pre>`;
  }
  const curl = curlCommand(ex, r.auth);
  const curlNote = [
    curl.usesToken ? `set ${TOKEN_VAR} to a token of the user this test used (the report never holds tokens)` : '',
    ...curl.notes,
  ].filter(Boolean);
  return `<div class="exchange">
<h5>${esc(label)}</h5>
<div class="pair">
<div><h6>Request</h6><pre class="box req">${esc(request)}${reqBody.text ? `\n\n${esc(reqBody.text)}` : ''}${reqBody.cut ? `\n<span class="cut">${esc(reqBody.cut)}</span>` : ''}</pre></div>
<div><h6>Response</h6>${response}</div>
</div>
<h6>Reproduce with curl</h6>
<pre class="box curl">${esc(curl.command)}</pre>${curlNote.length ? `<p class="note">${esc(curlNote.join('; '))}</p>` : ''}
</div>`;
}

function testFailure(t: TestResult, r: RunResults): string {
  const e = t.error;
  const x = e?.expectation;
  const parts: string[] = [];
  parts.push(
    `<h4><span class="mark">✗</span> ${esc(t.title)} ${pill(t.result as RequirementResult)}</h4><p class="test-id muted"><code>${esc(t.id)}</code> in <code>${esc(t.file)}</code> · ${esc(fmtDuration(t.durationMs))}</p>`,
  );
  const msg = e?.message ?? t.reason ?? t.result;
  const exp: string[] = [];
  exp.push(`<pre class="box msg">${esc(msg.length > 6000 ? `${msg.slice(0, 6000)}…` : msg)}</pre>`);
  if (x?.expected !== undefined || x?.actual !== undefined) {
    exp.push(
      `<dl class="ea">${x.expected !== undefined ? `<dt>expected</dt><dd><code>${esc(x.expected)}</code></dd>` : ''}${x.actual !== undefined ? `<dt>actual</dt><dd><code>${esc(x.actual)}</code></dd>` : ''}</dl>`,
    );
  }
  if (x?.diff && x.diff.split('\n').length > 2)
    exp.push(`<details><summary>diff</summary><pre class="box">${esc(x.diff)}</pre></details>`);
  if (x?.location)
    exp.push(
      `<p class="loc">at <code>${esc(x.location)}</code>${x.source ? `: <code class="src">${esc(x.source)}</code>` : ''}</p>`,
    );
  parts.push(
    `<div class="expectation"><h5>${t.result === 'failed' ? 'Expectation that failed' : t.result === 'blocked' ? `Blocked by ${esc(t.blockedBy?.requirement ?? '?')}: the step that failed` : t.result === 'precondition-failed' ? 'Precondition that failed' : 'Error'}</h5>${exp.join('')}</div>`,
  );
  const exchanges = e?.exchanges ?? [];
  if (exchanges.length) {
    const last = exchanges[exchanges.length - 1];
    parts.push(
      exchangeBlock(
        last,
        r,
        exchanges.length > 1
          ? `Last exchange before the failure (${exchanges.length} of ${exchanges.length})`
          : 'The exchange',
      ),
    );
    if (exchanges.length > 1) {
      const earlier = exchanges.slice(0, -1);
      const shown = earlier.slice(-MAX_EARLIER);
      const omitted = earlier.length - shown.length;
      parts.push(
        `<details class="earlier"><summary>${plural(earlier.length, 'earlier exchange')} of this test</summary>${
          omitted
            ? `<p class="note">The first ${plural(omitted, 'exchange')} ${omitted === 1 ? 'is' : 'are'} left out here (all are in results.json).</p>`
            : ''
        }${shown.map((ex, i) => exchangeBlock(ex, r, `Exchange ${omitted + i + 1} of ${exchanges.length}`, MAX_EARLIER_BODY)).join('')}</details>`,
      );
    }
  } else if (t.generic) {
    parts.push(
      `<p class="muted">A generic check over every response of <code>${esc(t.file)}</code>: each line above names the response and the test that received it; the exchanges are in those tests.</p>`,
    );
  } else {
    parts.push('<p class="muted">No HTTP exchange was recorded before the failure.</p>');
  }
  return `<article class="test t-${esc(t.result)}">${parts.join('\n')}</article>`;
}

function testRow(t: TestResult): string {
  const extra = t.reason ? ` <span class="muted">— ${esc(t.reason)}</span>` : '';
  return `<li>${pill(t.result as RequirementResult)} ${esc(t.title)} <code class="muted">${esc(t.id)}</code>${extra}</li>`;
}

function requirementBlock(q: RequirementReport, r: RunResults): string {
  const failing = isGatingFailure(q.result);
  const body: string[] = [];
  body.push(
    `<div class="reqtext">${failing ? '<h4 class="label">What the tests check (the suite\'s reading of the spec)</h4>' : ''}<p class="statement">${esc(q.statement)}</p>${
      q.quote
        ? `${failing ? '<h4 class="label">The spec sentence it rests on</h4>' : ''}<blockquote><p>${esc(q.quote)}</p><footer>spec §${esc(q.section)}${q.sectionTitle ? ` ${esc(q.sectionTitle)}` : ''}</footer></blockquote>`
        : ''
    }${failing && q.level === 'core' && q.expectedFailure?.kind !== 'disputed' ? '<p class="muted">If the spec sentence allows what your implementation does, dispute the reading: conformance/README.md section 8, "Disputing a failure".</p>' : ''}</div>`,
  );
  if (q.expectedFailure?.kind === 'disputed')
    body.push(
      `<p class="note">Disputed by you: “${esc(q.expectedFailure.quote)}” — ${esc(q.expectedFailure.reason)} (${esc(q.expectedFailure.status)}${r.gate?.allowDisputed ? ', not failing the run: --allow-disputed' : ', failing the run: without --allow-disputed'})</p>`,
    );
  else if (q.expectedFailure)
    body.push(
      `<p class="note">Expected-failures entry: ${esc(q.expectedFailure.reason)} (expires ${esc(q.expectedFailure.expires)}, ${esc(q.expectedFailure.status)})</p>`,
    );
  if (q.blockedBy?.length)
    body.push(
      `<p class="note">Blocked by ${q.blockedBy.map((id) => `<a href="#req-${esc(slug(id))}"><code>${esc(id)}</code></a>`).join(', ')}: a step its tests need failed there. This requirement itself was not judged; fix the cause first.</p>`,
    );
  if (q.result === 'not-testable') body.push(`<p class="muted">Not testable: ${esc(q.reason ?? '')}</p>`);
  if (q.result === 'untested') body.push('<p class="muted">No test in this run verifies this requirement.</p>');
  const bad = q.tests.filter(
    (t) =>
      t.result === 'failed' || t.result === 'blocked' || t.result === 'error' || t.result === 'precondition-failed',
  );
  const other = q.tests.filter((t) => !bad.includes(t));
  for (const t of bad) body.push(testFailure(t, r));
  if (other.length)
    body.push(
      `<h5 class="tests-h">${bad.length ? 'Other tests' : 'Tests'} (${other.length})</h5><ul class="tests">${other.map(testRow).join('')}</ul>`,
    );
  const text = `${q.id} ${q.statement} ${q.result}`.toLowerCase();
  return `<details class="req r-${esc(q.result)}${failing ? ' failing' : ''}" id="req-${esc(slug(q.id))}" data-text="${esc(text)}"${failing ? ' open' : ''}>
<summary>${pill(q.result)} <code class="rid">${esc(q.id)}</code> <span class="lvl lvl-${esc(q.level)}">${q.level === 'core' ? 'core' : 'impl-defined'}</span> <span class="stmt">${esc(q.statement)}</span>${markChips(q)}</summary>
<div class="req-body">${body.join('\n')}</div>
</details>`;
}

function sectionsBlock(r: RunResults, titles: Map<string, string>): { nav: string; body: string } {
  const groups = new Map<string, RequirementReport[]>();
  for (const q of r.requirements) groups.set(q.section, [...(groups.get(q.section) ?? []), q]);
  const keys = [...groups.keys()].sort(compareSections);
  const nav: string[] = [];
  const body: string[] = [];
  for (const sec of keys) {
    const reqs = groups.get(sec)!;
    const title = reqs.find((q) => q.sectionTitle)?.sectionTitle ?? titles.get(sec) ?? '';
    const parent = sec.includes('.') ? sec.split('.')[0] : undefined;
    const parentTitle = parent ? titles.get(parent) : undefined;
    const nFail = reqs.filter((q) => isGatingFailure(q.result)).length;
    const counts = RESULT_ORDER.map((k) => [k, reqs.filter((q) => q.result === k).length] as const)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `<span class="sc c-${k}">${n} ${esc(RESULT_LABEL[k])}</span>`)
      .join(' ');
    const id = `sec-${slug(sec)}`;
    nav.push(
      `<li class="${nFail ? 'has-failing' : ''}"><a href="#${esc(id)}" title="${esc(title)}"><span class="secno">§${esc(sec)}</span> ${esc(clipText(title, 34))}</a> <span class="muted n">${reqs.length}</span>${nFail ? ` <span class="dot" title="${nFail} not passing">${nFail}</span>` : ''}</li>`,
    );
    body.push(`<section class="sec${nFail ? ' has-failing' : ''}" id="${esc(id)}">
<h2><span class="secno">§${esc(sec)}</span> ${esc(title)}${parentTitle ? ` <span class="parent">in §${esc(parent)} ${esc(parentTitle)}</span>` : ''}</h2>
<p class="sec-counts">${plural(reqs.length, 'requirement')}: ${counts}</p>
${reqs.map((q) => requirementBlock(q, r)).join('\n')}
</section>`);
  }
  return {
    nav: `<nav class="toc panel" aria-label="spec sections"><h2>Spec sections</h2><ol class="plain">${nav.join('')}</ol></nav>`,
    body: body.join('\n'),
  };
}

export interface HtmlOptions {
  /** Section number → title (default: the headings of spec/interface-spec.md). */
  sectionTitles?: Map<string, string>;
}

export function renderHtml(r: RunResults, opts: HtmlOptions = {}): string {
  const titles = opts.sectionTitles ?? specSectionTitles();
  const secs = sectionsBlock(r, titles);
  const failing = r.requirements.filter((q) => isGatingFailure(q.result)).length;
  const csp = CONTENT_SECURITY_POLICY;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="referrer" content="no-referrer">
<title>${esc(r.verdict.toUpperCase())} · conformance · ${esc(describeTarget(r))}</title>
<style>${CSS}</style>
</head>
<body>
${headerBlock(r)}
<main>
${countsBlock(r)}
${disputesBlock(r)}
${failureIndex(r)}
${gateBlock(r)}
${problemsBlock(r)}
${choicesBlock(r)}
<div class="cols">
<section class="panel"><h2>Run</h2>${metaBlock(r)}</section>
${secs.nav}
</div>
<div class="toolbar" id="toolbar" hidden>
<span>Show</span>
<button type="button" id="show-all" aria-pressed="true">All requirements (${r.requirements.length})</button>
<button type="button" id="show-failures" aria-pressed="false">Failures only (${failing})</button>
<span class="sep"></span>
<input type="search" id="search" placeholder="Filter by ID or text" aria-label="filter requirements by ID or text">
<button type="button" id="expand-all">Expand all</button>
<button type="button" id="collapse-all">Collapse all</button>
</div>
${secs.body}
<footer class="foot">Generated by the conformance suite ${esc(r.suiteVersion)} from <code>results.json</code> (schema <code>${esc(r.schema)}</code>). Results: ${RESULT_ORDER.map((k) => `<b>${esc(RESULT_LABEL[k])}</b> ${esc(RESULT_HELP[k])}`).join('; ')}.</footer>
</main>
<script>${JS}</script>
</body>
</html>
`;
}
