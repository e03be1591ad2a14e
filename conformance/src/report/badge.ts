// badge.svg: a shields-style badge of the core verdict and score (a public format: conformance/README.md
// section 7):
//   green        "core 130/130": every selected testable core requirement judged, and passed
//   yellow-green "core 94/130 judged": a pass that judged (passed) 94 of the 130 selected testable
//                core requirements; the rest were not judged (the title says why), never the full green
//   orange       core requirements fail, but the gate excuses all of them (expected failures, baseline)
//   red          "core 90/100": a core requirement fails, or the strength gate did not hold (exit 1)
//   light grey   "core inconclusive": the run judged nothing (exit 4)
//   grey         the run ended with a usage or harness error
// The score of a failing run counts requirements with a verdict: passed / (passed + failed + blocked
// + error + precondition-failed + untested); not-applicable and not-testable are left out. Without
// core requirements in the run (--profile implementation-defined), the badge shows that profile.
import { isGatingFailure, type RequirementReport, type RunResults } from './results.js';
import { strengthOf } from './strength.js';

export interface BadgeInfo {
  label: string;
  message: string;
  color: string;
  /** What the message means, for the SVG title. */
  title: string;
}

const GREEN = '#3fb618';
const RED = '#d9322b';
const ORANGE = '#e8700f';
const GREY = '#8a8a8a';
/** A pass that judged less than it selected: not the green of a full pass. */
const PARTIAL = '#a4a61d';
const LIGHT_GREY = '#9f9f9f';

export function badgeScore(reqs: RequirementReport[]): {
  passed: number;
  counted: number;
  failing: RequirementReport[];
} {
  const counted = reqs.filter((q) => q.result === 'passed' || isGatingFailure(q.result));
  return {
    passed: counted.filter((q) => q.result === 'passed').length,
    counted: counted.length,
    failing: counted.filter((q) => q.result !== 'passed'),
  };
}

export function badgeInfo(r: RunResults): BadgeInfo {
  const core = r.requirements.filter((q) => q.level === 'core');
  const scope = core.length ? core : r.requirements;
  const name = core.length ? 'core' : r.profile === 'implementation-defined' ? 'impl-defined' : r.profile;
  const s = badgeScore(scope);
  if (r.exitCode === 2 || r.exitCode === 3) {
    return {
      label: 'conformance',
      message: `${name} error`,
      color: GREY,
      title: `conformance: the run ended with an error (exit ${r.exitCode})`,
    };
  }
  // how much was judged, over the badge's own scope (core, or the profile shown)
  const st = strengthOf({ requirements: scope, profile: scope[0]?.level ?? r.profile });
  const causes = st.notJudgedBy.map((c) => `${c.count} ${c.cause}`).join(', ');
  const notJudged = st.notJudged ? `; ${st.notJudged} not judged (${causes})` : '';
  if (r.exitCode === 4 || st.judged === 0) {
    return {
      label: 'conformance',
      message: `${name} inconclusive`,
      color: LIGHT_GREY,
      title: `conformance: the run judged none of the ${st.selected} selected testable ${name} requirements${notJudged}`,
    };
  }
  const excused = new Set((r.gate?.excused ?? []).map((x) => x.id));
  let color = GREEN;
  if (s.failing.length) color = s.failing.every((q) => excused.has(q.id)) && r.exitCode === 0 ? ORANGE : RED;
  if (r.exitCode !== 0) color = RED;
  const partial = !st.full;
  if (color === GREEN && partial) color = PARTIAL;
  const message = color === PARTIAL ? `${name} ${st.passed}/${st.selected} judged` : `${name} ${s.passed}/${s.counted}`;
  const title = `conformance: ${s.passed} of ${s.counted} ${name} requirements with a verdict passed; ${st.judged} of ${st.selected} selected testable requirements judged${notJudged}${color === ORANGE ? ' (the failures are expected or known)' : ''}${r.exitCode !== 0 ? ` (exit ${r.exitCode})` : ''}`;
  return { label: 'conformance', message, color, title };
}

// Approximate advance widths of Verdana 11px (what shields.io measures with).
function textWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    if ("ijl.,:;!|'".includes(ch)) w += 3.5;
    else if ('frt() /'.includes(ch)) w += 4.8;
    else if ('mwMW'.includes(ch)) w += 10.5;
    else if (/[A-Z]/.test(ch)) w += 7.6;
    else w += 6.9;
  }
  return Math.ceil(w);
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderBadgeSvg(b: BadgeInfo): string {
  const lw = textWidth(b.label) + 12;
  const rw = textWidth(b.message) + 12;
  const w = lw + rw;
  const text = (s: string, x: number, tw: number) =>
    `<text aria-hidden="true" x="${x * 10}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="${tw * 10}">${esc(s)}</text>` +
    `<text x="${x * 10}" y="140" transform="scale(.1)" fill="#fff" textLength="${tw * 10}">${esc(s)}</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${esc(`${b.label}: ${b.message}`)}">` +
    `<title>${esc(b.title)}</title>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${rw}" height="20" fill="${b.color}"/><rect width="${w}" height="20" fill="url(#s)"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">` +
    text(b.label, lw / 2, lw - 12) +
    text(b.message, lw + rw / 2, rw - 12) +
    `</g></svg>\n`
  );
}

export function renderBadge(r: RunResults): string {
  return renderBadgeSvg(badgeInfo(r));
}
