// disputes.md: for each disputed failure of a run, the text of an issue to the project, ready to
// paste (the fields of .github/ISSUE_TEMPLATE/dispute.md): the spec's words, the suite's reading,
// the vendor's quote and reason, the failure and the request and answer it rests on.
import type { DisputeReport, RunResults } from './results.js';

function exchangeText(r: RunResults, d: DisputeReport): string {
  const q = r.requirements.find((x) => x.id === d.id);
  const t = q?.tests.find((x) => x.error?.exchanges.length);
  const ex = t?.error?.exchanges.at(-1);
  if (!ex) return '(no exchange recorded)';
  const body = (s: string | undefined) => (s ? `\n\n${s.length > 4000 ? `${s.slice(0, 4000)}… (cut)` : s}` : '');
  return `${ex.method} ${ex.url}${body(ex.requestBody)}\n\n→ ${ex.status ?? ex.error ?? 'no answer'}${body(ex.responseBody)}`;
}

/** One dispute as the issue template asks for it. */
function disputeText(r: RunResults, d: DisputeReport): string {
  return [
    `## Dispute: ${d.id} (spec §${d.section})`,
    '',
    `Suite ${r.suiteVersion}, spec ${r.specVersion}, catalogue ${r.catalogueVersion}; result: ${d.result}.`,
    '',
    '### The spec sentence the test rests on (spec/requirements.yaml, verbatim)',
    '',
    `> ${d.specQuote ?? '(the requirement has no quote)'}`,
    '',
    "### The suite's reading of it (the requirement's statement)",
    '',
    d.statement,
    '',
    '### The spec sentence our reading rests on (verbatim)',
    '',
    `> ${d.quote}`,
    '',
    '### The request: why the suite misreads the spec',
    '',
    d.reason,
    '',
    '### The failure',
    '',
    '```',
    ...d.tests.map((t) => `${t.id}: ${t.result}: ${t.message}`),
    '```',
    '',
    '### The request and answer it judged',
    '',
    '```',
    exchangeText(r, d),
    '```',
    '',
    "### The project's answer",
    '',
    "(left for the project: upheld, the suite changes and the requirement passes; or refused, with the sentence that forces the suite's reading)",
    '',
  ].join('\n');
}

/** The whole disputes.md of a run; undefined when nothing was disputed. */
export function disputesMarkdown(r: RunResults): string | undefined {
  if (!r.disputes?.length) return undefined;
  return `# Disputed failures of this run\n\nOpen one issue per dispute with the template .github/ISSUE_TEMPLATE/dispute.md and paste its section below.\n\n${r.disputes.map((d) => disputeText(r, d)).join('\n')}`;
}
