// The style and script of report.html (inline, so that the page is one file that opens anywhere),
// and the Content-Security-Policy that allows exactly them.
import crypto from 'node:crypto';

export const CSS = `
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--soft:#f6f8fa;--line:#d1d9e0;--pass:#1a7f37;--fail:#cf222e;--err:#8250df;--pre:#9a6700;--blk:#bc4c00;--na:#6e7781;--nt:#57606a;--warn:#bc4c00}
*{box-sizing:border-box}
html{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.86em}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
.muted{color:var(--muted)}
.wrap{word-break:break-all}
.top{display:flex;gap:1.5rem;align-items:center;padding:1.4rem 2rem;border-bottom:1px solid var(--line)}
.top.v-pass{background:#dafbe1}.top.v-fail{background:#ffebe9}.top.v-error{background:#fff1e5}.top.v-pass.v-partial{background:#f3f5d6}.top.v-inconclusive{background:#eaeef2}
.verdict{display:flex;flex-direction:column;align-items:center;justify-content:center;min-width:11rem;padding:.6rem 1.2rem;border-radius:12px;color:#fff}
.v-pass .verdict{background:var(--pass)}.v-fail .verdict{background:var(--fail)}.v-error .verdict{background:var(--warn)}.v-pass.v-partial .verdict{background:#7d8012}.v-inconclusive .verdict{background:var(--na)}.strength{margin:.2rem 0;color:var(--muted)}.strength.partial b{color:var(--fg)}
.verdict-word{font-size:3.2rem;font-weight:800;letter-spacing:.06em;line-height:1.05}
.exit{font-size:.85rem;opacity:.9}
.headline{flex:1;min-width:0}
.headline h1{margin:.1rem 0;font-size:1.6rem;word-break:break-word}
.kicker{margin:0;color:var(--muted);text-transform:uppercase;font-size:.78rem;letter-spacing:.08em}
.lead{margin:.2rem 0;font-size:1.1rem}
.scores{margin:.2rem 0}.score{display:inline-block;margin-right:1rem;color:var(--muted)}.score b{color:var(--fg);font-size:1.1rem}
.badge svg{display:block}
main{max-width:1200px;margin:0 auto;padding:1rem 2rem 4rem}
.counts{display:flex;flex-wrap:wrap;gap:.6rem;list-style:none;padding:0;margin:1rem 0}
.count{border:1px solid var(--line);border-left:6px solid var(--na);border-radius:8px;padding:.4rem .9rem;min-width:7.5rem;background:var(--soft)}
.count .n{display:block;font-size:1.7rem;font-weight:700;line-height:1.1}.count .k{font-size:.85rem;color:var(--muted)}
.count.zero{opacity:.55}
.c-passed{border-left-color:var(--pass)}.c-failed{border-left-color:var(--fail)}.c-blocked{border-left-color:var(--blk)}.c-error{border-left-color:var(--err)}.c-precondition-failed{border-left-color:var(--pre)}.c-untested{border-left-color:var(--fail)}.c-not-testable{border-left-color:var(--nt)}
.count.c-failed:not(.zero) .n,.count.c-untested:not(.zero) .n{color:var(--fail)}.count.c-passed .n{color:var(--pass)}
.cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.2rem;align-items:start}
@media (max-width:900px){.cols{grid-template-columns:1fr}.top{flex-wrap:wrap}}
.panel{border:1px solid var(--line);border-radius:8px;padding:.6rem 1rem;margin:1rem 0;background:#fff}
.panel h2{font-size:1.05rem;margin:.3rem 0 .5rem}
details.panel>summary{cursor:pointer}details.panel>summary h2{display:inline}
.fail-index{border-color:#ff8182;background:#fff8f8}.fail-index li{padding:.25rem 0}.why{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.8rem;color:#82071e;margin-left:.2rem;word-break:break-all}
.fail-index details>summary{cursor:pointer;color:#0969da;padding:.3rem 0}
details.req,section.sec{scroll-margin-top:3.5rem}
.meta{border-collapse:collapse;width:100%}.meta th{text-align:left;color:var(--muted);font-weight:500;padding:.2rem 1rem .2rem 0;vertical-align:top;white-space:nowrap}.meta td{padding:.2rem 0;word-break:break-word}
ul.plain,ol.plain{list-style:none;padding:0;margin:0}ul.plain li{padding:.15rem 0}
.toc ol{columns:2;column-gap:1.5rem}.toc li{break-inside:avoid;padding:.1rem 0}.toc .n{font-size:.8rem;white-space:nowrap}
.toc .dot{display:inline-block;background:var(--fail);color:#fff;border-radius:9px;padding:0 .45rem;font-size:.75rem;font-weight:700}
.secno{color:var(--muted);font-variant-numeric:tabular-nums}
.pill{display:inline-block;border-radius:10px;padding:0 .55rem;font-size:.78rem;font-weight:600;color:#fff;background:var(--na);white-space:nowrap;vertical-align:1px}
.p-passed{background:var(--pass)}.p-failed{background:var(--fail)}.p-blocked{background:var(--blk)}.p-error{background:var(--err)}.p-precondition-failed{background:var(--pre)}.p-untested{background:var(--fail)}.p-not-applicable{background:var(--na)}.p-not-testable{background:var(--nt)}
.chip{display:inline-block;border-radius:4px;padding:0 .4rem;font-size:.76rem;font-weight:600;border:1px solid;white-space:nowrap}
.chip-bad{color:var(--fail);border-color:var(--fail);background:#fff}.chip-good{color:var(--pass);border-color:var(--pass)}.chip-expected{color:var(--pre);border-color:var(--pre)}.chip-info{color:#0969da;border-color:#0969da}.chip-disputed{color:#8250df;border-color:#8250df}
.dispute{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:.4rem 0 .8rem}.dispute dt{font-weight:600;color:var(--muted)}.dispute dd{margin:0}h4.label{margin:.3rem 0 .1rem;font-size:.8rem;color:var(--muted);font-weight:600}
.toolbar{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;padding:.5rem 0;background:rgba(255,255,255,.96);border-bottom:1px solid var(--line)}
.toolbar[hidden]{display:none}
.toolbar button{font:inherit;font-size:.9rem;border:1px solid var(--line);background:var(--soft);border-radius:6px;padding:.25rem .7rem;cursor:pointer}
.toolbar button[aria-pressed=true]{background:#0969da;border-color:#0969da;color:#fff}
.toolbar input{font:inherit;font-size:.9rem;border:1px solid var(--line);border-radius:6px;padding:.25rem .6rem;min-width:16rem}
.toolbar .sep{flex:1}
.sec{margin-top:1.6rem}
.sec h2{font-size:1.25rem;margin:0;border-bottom:2px solid var(--line);padding-bottom:.2rem}
.sec h2 .parent{font-size:.85rem;font-weight:400;color:var(--muted)}
.sec-counts{margin:.3rem 0 .6rem;font-size:.85rem;color:var(--muted)}.sc{margin-right:.6rem}.sc.c-failed,.sc.c-untested{color:var(--fail);font-weight:600}
details.req{border:1px solid var(--line);border-radius:6px;margin:.3rem 0;background:#fff}
details.req>summary{cursor:pointer;padding:.35rem .7rem .35rem 1.7rem;list-style:none;position:relative}
details.req>summary::-webkit-details-marker{display:none}
details.req>summary::before{content:"\\25B8";position:absolute;left:.65rem;top:.35rem;color:var(--muted)}
details.req[open]>summary::before{content:"\\25BE"}
details.req.failing{border-color:#ff8182;border-left:5px solid var(--fail)}
details.req.r-error{border-left-color:var(--err)}details.req.r-blocked{border-left-color:var(--blk)}details.req.r-precondition-failed{border-left-color:var(--pre)}
details.req[open]>summary{border-bottom:1px solid var(--line);background:var(--soft)}
.rid{font-weight:700;font-size:.9rem}
.lvl{font-size:.72rem;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:0 .3rem}
.req-body{padding:.4rem 1rem .8rem}
.statement{margin:.3rem 0;font-weight:500}
blockquote{margin:.4rem 0;padding:.2rem .9rem;border-left:4px solid #d0d7de;color:#424a53;background:var(--soft)}blockquote p{margin:.2rem 0;font-style:italic}blockquote footer{font-size:.8rem;color:var(--muted)}
.test{border-top:1px dashed var(--line);margin-top:.8rem;padding-top:.5rem}
.test h4{margin:.2rem 0;font-size:1rem}.test .mark{color:var(--fail)}
.test-id{margin:0 0 .4rem;font-size:.85rem}
h5{margin:.7rem 0 .25rem;font-size:.9rem}h6{margin:.4rem 0 .2rem;font-size:.78rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.expectation{border-left:4px solid var(--fail);padding-left:.8rem}
.box{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:.5rem .7rem;overflow:auto;max-height:28rem;white-space:pre-wrap;word-break:break-word;margin:.2rem 0}
.msg{background:#fff5f5;border-color:#ffcecb}
.curl{background:#0d1117;color:#e6edf3;border-color:#0d1117}
.pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.8rem}
@media (max-width:900px){.pair{grid-template-columns:1fr}}
.status{font-weight:700}.s2xx{color:var(--pass)}.s4xx{color:var(--pre)}.s5xx{color:var(--fail)}
.cut{color:var(--warn);font-style:italic}
.ea{display:grid;grid-template-columns:auto 1fr;gap:.1rem .8rem;margin:.3rem 0}.ea dt{color:var(--muted)}.ea dd{margin:0;word-break:break-word}
.loc{margin:.3rem 0;font-size:.9rem}.src{background:#fff8c5;padding:0 .2rem}
.note{font-size:.85rem;color:var(--muted);margin:.2rem 0}
.earlier{margin-top:.5rem}.earlier>summary{cursor:pointer;color:#0969da}
.tests{margin:.2rem 0;padding-left:1.2rem;font-size:.92rem}.tests li{margin:.1rem 0}
.grid{border-collapse:collapse;width:100%;font-size:.9rem;margin:.3rem 0}.grid th,.grid td{border:1px solid var(--line);padding:.2rem .5rem;text-align:left;vertical-align:top}.grid th{background:var(--soft)}
.grid.bad td:first-child{border-left:4px solid var(--fail)}.grid.good td:first-child{border-left:4px solid var(--pass)}
.gate-msgs li.bad{color:var(--fail);font-weight:600}
tr.ef-expired td{background:#ffebe9}tr.ef-unexpectedly-passing td{background:#ddf4ff}
.run-errors{border-color:var(--warn)}
body.only-failures details.req:not(.failing),body.only-failures section.sec:not(.has-failing){display:none}
.nomatch{display:none}
.copy{float:right;font-size:.75rem;border:1px solid #30363d;background:#21262d;color:#e6edf3;border-radius:4px;padding:0 .4rem;cursor:pointer}
footer.foot{margin-top:3rem;color:var(--muted);font-size:.8rem;border-top:1px solid var(--line);padding-top:.6rem}
@media print{.toolbar{display:none}details.req{break-inside:avoid}}
`;

export const JS = `
(function () {
  var body = document.body;
  var bar = document.getElementById('toolbar');
  if (!bar) return;
  bar.hidden = false;
  var all = document.getElementById('show-all');
  var only = document.getElementById('show-failures');
  function setOnly(on) {
    body.classList.toggle('only-failures', on);
    all.setAttribute('aria-pressed', String(!on));
    only.setAttribute('aria-pressed', String(on));
  }
  all.addEventListener('click', function () { setOnly(false); });
  only.addEventListener('click', function () { setOnly(true); });
  function each(sel, fn) { Array.prototype.forEach.call(document.querySelectorAll(sel), fn); }
  document.getElementById('expand-all').addEventListener('click', function () { each('details.req', function (d) { d.open = true; }); });
  document.getElementById('collapse-all').addEventListener('click', function () { each('details.req', function (d) { d.open = false; }); });
  var q = document.getElementById('search');
  q.addEventListener('input', function () {
    var v = q.value.trim().toLowerCase();
    each('details.req', function (d) { d.classList.toggle('nomatch', v !== '' && (d.getAttribute('data-text') || '').indexOf(v) < 0); });
    each('section.sec', function (s) { s.classList.toggle('nomatch', v !== '' && !s.querySelector('details.req:not(.nomatch)')); });
  });
  each('pre.curl', function (pre) {
    var b = document.createElement('button');
    b.type = 'button';
    b.className = 'copy';
    b.textContent = 'copy';
    b.addEventListener('click', function () {
      var text = pre.getAttribute('data-text') || '';
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(function () { b.textContent = 'copied'; }, function () { b.textContent = 'select and copy'; });
    });
    pre.setAttribute('data-text', pre.textContent || '');
    pre.insertBefore(b, pre.firstChild);
  });
})();
`;

function sha256(s: string): string {
  return crypto.createHash('sha256').update(s, 'utf8').digest('base64');
}

/** The Content-Security-Policy of the page: nothing but its own inline style and script (by hash). */
export const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'sha256-${sha256(CSS)}'; script-src 'sha256-${sha256(JS)}'; img-src data:; base-uri 'none'; form-action 'none'`;
