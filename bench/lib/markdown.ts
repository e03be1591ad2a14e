// The one Markdown renderer of the bench's figures: number formats, tables, and the table of
// targets, shared by bench/run.ts (reports/bench/README.md) and scripts/readme-figures.ts (the
// "Speed targets" table of README.md), so both say the same thing the same way.

export const ms = (v: number) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v.toFixed(1)) : 'n/a');
export const mib = (b: number | undefined) =>
  b === undefined || !Number.isFinite(b) ? 'n/a' : `${(b / 2 ** 20).toFixed(0)} MiB`;
export const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : 'n/a');
export const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');

/** 10k, 1M, 5000. */
export function label(n: number): string {
  return n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n);
}

/**
 * A Markdown table. `align`: `numbers` right-aligns every column but the first (the bench's
 * figures), `left` aligns all to the left (README.md).
 */
export function table(
  head: string[],
  rows: Array<Array<string | number>>,
  align: 'numbers' | 'left' = 'numbers',
): string {
  const rule = head.map((_, i) => (i === 0 || align === 'left' ? '---' : '---:')).join('|');
  const lines = [`| ${head.join(' | ')} |`, `|${rule}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

/** A speed target of the bench and what was measured for it. */
export interface Target {
  name: string;
  goal: string;
  measured: string;
  /** undefined: not judged (a quick run, a size too small to judge) */
  met: boolean | undefined;
  note?: string;
}

/** The table of targets: the same rows in the bench's report and in README.md. */
export function targetsTable(targets: readonly Target[], align: 'numbers' | 'left' = 'numbers'): string {
  return table(
    ['target', 'goal', 'measured', 'met'],
    targets.map((t) => [t.name, t.goal, t.measured, t.met === undefined ? 'n/a' : t.met ? 'yes' : '**no**']),
    align,
  );
}
