// The markdown table of class rows, shared by the equivalence classes (partitions.ts) and the data
// classes (data-classes.ts): a row's own cells, then its status and the tests that exercise it, the
// reason it is exempt or not testable, or **no test** for a gap.

/** Text safe in a markdown table cell. */
export function md(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

interface ClassRowLike {
  status: string;
  tests: string[];
  reason?: string;
}

/** The table: `head` names the row's own cells, which `cells` gives; status and detail follow. */
export function classTable<R extends ClassRowLike>(head: string[], rows: R[], cells: (r: R) => string[]): string[] {
  const out = [`| ${[...head, 'status', 'tests or reason'].join(' | ')} |`, `|${'---|'.repeat(head.length + 2)}`];
  for (const x of rows) {
    const detail =
      x.status === 'exercised'
        ? x.tests.map((t) => `\`${t}\``).join(', ')
        : x.status === 'gap'
          ? '**no test**'
          : md(x.reason ?? '');
    out.push(`| ${[...cells(x), x.status, detail].join(' | ')} |`);
  }
  return out;
}
