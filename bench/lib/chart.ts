// A small dependency-free SVG chart: panels of grouped horizontal bars, stacked vertically.

interface Bar {
  name: string;
  value: number;
  /** text after the value, e.g. "62% of ceiling" */
  note?: string;
}

interface Group {
  label: string;
  bars: Bar[];
}

export interface Panel {
  title: string;
  unit: string;
  groups: Group[];
  /** digits after the decimal point in value labels */
  digits?: number;
}

const COLORS = ['#9aa5b1', '#2f6fb0', '#e08a2c', '#3c9a5f', '#b0413e', '#7a5bb0'];
const W = 860;
const LABEL_W = 200;
const BAR_H = 16;
const GAP = 4;
const GROUP_GAP = 12;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function fmt(v: number, digits: number): string {
  if (!Number.isFinite(v)) return 'n/a';
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function panel(p: Panel, y0: number): { svg: string; height: number } {
  const names = [...new Set(p.groups.flatMap((g) => g.bars.map((b) => b.name)))];
  const color = (n: string) => COLORS[names.indexOf(n) % COLORS.length]!;
  const max = Math.max(1e-9, ...p.groups.flatMap((g) => g.bars.map((b) => (Number.isFinite(b.value) ? b.value : 0))));
  const plotW = W - LABEL_W - 190;
  const parts: string[] = [];
  let y = y0;
  parts.push(`<text x="10" y="${y + 16}" font-size="15" font-weight="bold">${esc(p.title)}</text>`);
  // legend
  let lx = LABEL_W;
  for (const n of names) {
    parts.push(`<rect x="${lx}" y="${y + 24}" width="10" height="10" fill="${color(n)}"/>`);
    parts.push(`<text x="${lx + 14}" y="${y + 33}" font-size="11">${esc(n)}</text>`);
    lx += 24 + n.length * 6.5;
  }
  y += 44;
  for (const g of p.groups) {
    const gh = g.bars.length * (BAR_H + GAP);
    parts.push(
      `<text x="${LABEL_W - 8}" y="${y + gh / 2 + 4}" font-size="12" text-anchor="end">${esc(g.label)}</text>`,
    );
    for (const b of g.bars) {
      const w = Number.isFinite(b.value) ? Math.max(1, (b.value / max) * plotW) : 0;
      parts.push(
        `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${color(b.name)}"><title>${esc(`${g.label} ${b.name}: ${fmt(b.value, p.digits ?? 0)} ${p.unit}`)}</title></rect>`,
      );
      const label = `${fmt(b.value, p.digits ?? 0)} ${p.unit}${b.note ? ` (${b.note})` : ''}`;
      parts.push(`<text x="${LABEL_W + w + 5}" y="${y + BAR_H - 4}" font-size="11">${esc(label)}</text>`);
      y += BAR_H + GAP;
    }
    y += GROUP_GAP;
  }
  return { svg: parts.join('\n'), height: y - y0 + 10 };
}

export function renderChart(title: string, subtitle: string, panels: Panel[]): string {
  const body: string[] = [];
  let y = 56;
  for (const p of panels) {
    const r = panel(p, y);
    body.push(r.svg);
    y += r.height;
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${y}" viewBox="0 0 ${W} ${y}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="10" y="24" font-size="18" font-weight="bold">${esc(title)}</text>`,
    `<text x="10" y="44" font-size="11" fill="#555">${esc(subtitle)}</text>`,
    ...body,
    `</svg>`,
    '',
  ].join('\n');
}
