// compare.html: the comparison as one offline page (inline CSS and script, no request of its own).
// The matrix is rendered as HTML (it reads without the script); the script only filters rows: only
// differences, only failures, one area. Every text from a run (labels, quotes, reasons) is escaped.
import { esc } from '../report/html.js';
import type { Cell, Comparison, Diff, DiffEntry, Row, RunColumn } from './model.js';

const SHORT: Record<string, string> = {
  passed: 'pass',
  failed: 'FAIL',
  blocked: 'blocked',
  'not-applicable': 'n/a',
  'precondition-failed': 'precond.',
  error: 'error',
  untested: 'untested',
  'not-testable': 'not testable',
};

function columnTitle(c: RunColumn): string {
  return `${c.implementation}${c.implementationVersion ? ` ${c.implementationVersion}` : ''}`;
}

function cellHtml(c: Cell | null): string {
  if (!c) return '<td class="c none" title="not selected by this run">–</td>';
  const cause =
    c.result === 'blocked' && c.blockedBy?.length
      ? `by ${c.blockedBy.join(', ')}`
      : c.cause && c.cause !== 'not-testable' && c.result !== 'untested'
        ? c.cause
        : '';
  const title = [c.result, c.cause ? `cause: ${c.cause}` : '', c.detail ?? ''].filter(Boolean).join(' — ');
  return `<td class="c r-${esc(c.result)}" title="${esc(title)}">${esc(SHORT[c.result] ?? c.result)}${
    cause ? `<small>${esc(cause)}</small>` : ''
  }</td>`;
}

function rowHtml(r: Row): string {
  const marks = [
    r.changed ? `<span class="tag chg" title="${esc(changedTitle(r))}">changed</span>` : '',
    r.flaky
      ? `<span class="tag flaky" title="${esc(r.flaky.map((f) => `${f.implementation}${f.implementationVersion ? ` ${f.implementationVersion}` : ''}, suite ${f.suiteVersion}: ${f.results.join(' → ')}`).join('; '))}">flaky</span>`
      : '',
  ].join('');
  return `<tr data-area="${esc(r.area)}" data-diff="${r.differs ? 1 : 0}" data-fail="${r.failing ? 1 : 0}"><th class="req"><span class="id">${esc(r.id)}</span> <span class="lvl">${esc(r.level)}</span>${marks}<div class="q">${esc(r.quote ?? r.statement)}</div></th>${r.cells.map(cellHtml).join('')}</tr>`;
}

function changedTitle(r: Row): string {
  const parts: string[] = [];
  if (r.changed?.level) parts.push(`level: ${r.changed.level.join(' → ')}`);
  if (r.changed?.quote) parts.push(`quote: ${r.changed.quote.map((q) => JSON.stringify(q)).join(' → ')}`);
  return parts.join('; ');
}

function entryLine(e: DiffEntry): string {
  const why = e.blockedBy?.length ? `blocked by ${e.blockedBy.join(', ')}` : e.cause ? `cause: ${e.cause}` : '';
  return `<li><b>${esc(e.id)}</b> ${esc(e.was)} → ${esc(e.now)}${why ? ` <span class="why">(${esc(why)}${e.detail && !e.blockedBy ? `: ${esc(e.detail)}` : ''})</span>` : ''}</li>`;
}

function diffHtml(d: Diff, runs: RunColumn[]): string {
  const b = runs[d.base];
  const h = runs[d.head];
  const list = (title: string, xs: DiffEntry[], cls = '') =>
    `<h3 class="${cls}">${esc(title)} (${xs.length})</h3>${xs.length ? `<ul>${xs.map(entryLine).join('')}</ul>` : ''}`;
  const gate = !d.scope.compared
    ? '<p class="gate bad" id="gate">Gate: FAIL (exit 1): the two runs selected no requirement in common: nothing was compared</p>'
    : d.regressions.length
      ? `<p class="gate bad" id="gate">Gate: FAIL (exit 1): ${d.regressions
          .map(
            (r) =>
              `${esc(r.id)} ${r.kind === 'newly-failing' ? 'newly failing' : `no longer judged (${esc(r.cause ?? '')})`}${r.blocks?.length ? `, blocking ${esc(r.blocks.join(', '))}` : ''}`,
          )
          .join('; ')}</p>`
      : `<p class="gate ok" id="gate">Gate: pass (exit 0): nothing regressed or stopped being judged${d.allowed.length ? ` (allowed: ${esc(d.allowed.map((a) => `${a.id} ${a.cause}`).join(', '))})` : ''}</p>`;
  const changed = d.changedRequirements.length
    ? `<h3>Requirements whose quote or level changed (${d.changedRequirements.length})</h3><ul>${d.changedRequirements
        .map(
          (c) =>
            `<li><b>${esc(c.id)}</b>${c.level ? ` level ${esc(c.level.was)} → ${esc(c.level.now)}` : ''}${c.quote ? ` quote “${esc(c.quote.was ?? '')}” → “${esc(c.quote.now ?? '')}”` : ''}</li>`,
        )
        .join('')}</ul>`
    : '<h3>Requirements whose quote or level changed (0)</h3>';
  return `<section id="diff"><h2>What changed: ${esc(columnTitle(b))} (suite ${esc(b.suiteVersion)}) → ${esc(columnTitle(h))} (suite ${esc(h.suiteVersion)})</h2>
${gate}
<p>Compared on ${d.scope.compared} requirements both runs selected${d.scope.note ? ` (${esc(d.scope.note)})` : ''}${d.scope.onlyBase.length ? `; only in the first: ${esc(d.scope.onlyBase.join(', '))}` : ''}${d.scope.onlyHead.length ? `; only in the second: ${esc(d.scope.onlyHead.join(', '))}` : ''}.</p>
${list('Newly failing', d.newlyFailing, 'bad')}${list('Newly not judged', d.newlyNotJudged, 'bad')}${list('Newly passing', d.newlyPassing)}${list('Newly judged', d.newlyJudged)}${changed}</section>`;
}

const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:1rem 1.5rem;color:#1b1b1b}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.15rem;margin:1.2rem 0 .4rem}h3{font-size:1rem;margin:.8rem 0 .2rem}
table{border-collapse:collapse}th,td{border:1px solid #d0d0d0;padding:.2rem .4rem;vertical-align:top}
#runs td.n{text-align:right;font-variant-numeric:tabular-nums}
#runs td.src{word-break:break-all;max-width:16rem;font-size:.85em;color:#444}
#matrix{margin-top:.6rem}#matrix thead th{position:sticky;top:0;background:#f4f4f4;z-index:1;font-weight:600;text-align:left;min-width:7rem}
#matrix th.req{font-weight:normal;text-align:left;max-width:34rem;background:#fff}
.id{font-weight:600;font-family:ui-monospace,monospace}.lvl{color:#666;font-size:.8em}.q{color:#444;font-size:.85em}
tr.area th{background:#e9eef6;text-align:left;font-weight:600}
td.c{text-align:center;white-space:nowrap}td.c small{display:block;color:#444;font-size:.75em;white-space:normal;max-width:12rem}
.r-passed{background:#dff3e0}.r-failed{background:#f8c9c4;font-weight:700}.r-blocked{background:#fde2c8}.r-error{background:#f3d0f0}
.r-not-applicable,.r-untested,.r-precondition-failed{background:#f1f1f1}.r-not-testable{background:#fafafa;color:#888}.none{color:#bbb}
.tag{display:inline-block;margin-left:.4rem;padding:0 .3rem;border-radius:3px;font-size:.75em}.chg{background:#dbe8ff}.flaky{background:#ffe9a8}
.gate{padding:.4rem .6rem;border-radius:4px}.gate.bad{background:#f8c9c4}.gate.ok{background:#dff3e0}
h3.bad{color:#a01}.why{color:#555}.notes{color:#444}
#filters{margin:.6rem 0;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
`;

const SCRIPT = `
(function(){
  var diff=document.getElementById('f-diff'),fail=document.getElementById('f-fail'),area=document.getElementById('f-area'),count=document.getElementById('f-count');
  var rows=[].slice.call(document.querySelectorAll('#matrix tbody tr[data-area]'));
  var heads=[].slice.call(document.querySelectorAll('#matrix tbody tr.area'));
  function apply(){
    var shown=0,per={};
    rows.forEach(function(r){
      var ok=(!diff.checked||r.dataset.diff==='1')&&(!fail.checked||r.dataset.fail==='1')&&(!area.value||r.dataset.area===area.value);
      r.hidden=!ok; if(ok){shown++;per[r.dataset.area]=1;}
    });
    heads.forEach(function(h){h.hidden=!per[h.dataset.head];});
    count.textContent=shown+' of '+rows.length+' requirements shown';
  }
  [diff,fail,area].forEach(function(e){e.addEventListener('change',apply);});
  apply();
})();
`;

/** compare.html of a comparison. */
export function renderCompareHtml(c: Comparison): string {
  const runs = c.runs;
  const runRows = runs
    .map(
      (r) =>
        `<tr><td>${r.index + 1}</td><td>${esc(r.implementation)}</td><td>${esc(r.implementationVersion ?? '—')}</td><td>${esc(r.suiteVersion)}</td><td>${esc(r.profile)}${r.selection.requirements.length ? ` ${esc(r.selection.requirements.join(','))}` : ''}${r.selection.readOnly ? ' read-only' : ''}</td><td>${esc(r.startedAt.slice(0, 16).replace('T', ' '))}</td><td class="n">${r.judged.passed}</td><td class="n">${r.judged.judged}</td><td class="n">${r.judged.selected}</td><td class="n">${r.judged.notTestable}</td><td>${esc(r.verdict)} (exit ${r.exitCode})${r.runErrors ? `, ${r.runErrors} run error(s)` : ''}</td><td class="src">${esc(r.source)}${r.shards ? ` (${r.shards.length} shards)` : ''}</td></tr>`,
    )
    .join('\n');
  const areaOptions = c.areas
    .map((a) => `<option value="${esc(a.area)}">${esc(a.area)} (${a.rows.length})</option>`)
    .join('');
  const head = runs
    .map(
      (r) =>
        `<th title="${esc(r.source)}">${r.index + 1}. ${esc(columnTitle(r))}<br><small>suite ${esc(r.suiteVersion)} · ${esc(r.startedAt.slice(0, 16).replace('T', ' '))}</small></th>`,
    )
    .join('');
  const body = c.areas
    .map(
      (a) =>
        `<tr class="area" data-head="${esc(a.area)}"><th colspan="${runs.length + 1}">${esc(a.area)}</th></tr>\n${a.rows.map(rowHtml).join('\n')}`,
    )
    .join('\n');
  const rowsTotal = c.areas.reduce((n, a) => n + a.rows.length, 0);
  const flaky = c.areas.reduce((n, a) => n + a.rows.filter((r) => r.flaky).length, 0);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>Conformance compare: ${runs.length} run(s)</title><style>${CSS}</style></head>
<body>
<h1>Conformance compare: ${runs.length} run(s), ${rowsTotal} requirements</h1>
<table id="runs"><thead><tr><th>#</th><th>implementation</th><th>version</th><th>suite</th><th>selection</th><th>started (UTC)</th><th>passed</th><th>judged</th><th>selected</th><th>not testable</th><th>verdict</th><th>source</th></tr></thead>
<tbody>
${runRows}
</tbody></table>
<p class="notes">Judged: passed or failed. Not judged: any other result, with its cause (protocol, fixture, binding, selection, blocked by, error, untested, not-applicable).${flaky ? ` ${flaky} requirement(s) marked flaky: their result changed between runs of the same implementation version and suite version.` : ''}</p>
${c.notes.length ? `<ul class="notes">${c.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
${c.diff ? diffHtml(c.diff, runs) : ''}
<h2>Requirements × runs</h2>
<div id="filters"><label><input type="checkbox" id="f-diff"> only differences</label><label><input type="checkbox" id="f-fail"> only failures</label><label>area <select id="f-area"><option value="">all</option>${areaOptions}</select></label><span id="f-count"></span></div>
<table id="matrix"><thead><tr><th>requirement</th>${head}</tr></thead>
<tbody>
${body}
</tbody></table>
<script>${SCRIPT}</script>
</body></html>
`;
}
