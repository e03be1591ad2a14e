// Feature-pair coverage (issue 32, item 4: "the coverage gate counts ... pairs of features"): per
// listing (records Query, File/Query, the attached-files listing), every pair of levels its factor
// table declares (conformance/suite/support/pair-factors.ts), and whether the run judged covered it:
// the covering array of the run's seed holds the pair on a row where it can be seen (pairsOf), and
// the listing's tests (`pairs.<listing>-*`) passed. A pair of the LINQ level counts only where the
// LINQ test ran (not not-applicable). A declared pair not covered is a gap, which fails the gate.
import { allPairs, coveringArray, pairsOf } from '../../suite/support/pairwise.js';
import { LISTINGS, LISTING_WHERE, type Listing, declaredFactors, pairSeed } from '../../suite/support/pair-factors.js';
import type { RunRecord } from './operations.js';

interface ListingPairs {
  listing: Listing;
  where: string;
  factors: number;
  declared: number;
  covered: number;
  /** Rows of the covering array of the run's seed. */
  rows: number;
  /** The listing's pair tests that passed in the run. */
  passed: string[];
  /** Declared pairs not covered (at most 10 shown), or why none is. */
  gaps: string[];
}

export interface FeaturePairCoverage {
  seed?: number;
  listings: ListingPairs[];
  counts: { declared: number; covered: number; gaps: number };
  problems: string[];
}

/** The pairs each listing declares and the run covered; without a seed, none is covered. */
export function buildFeaturePairs(run: RunRecord): FeaturePairCoverage {
  const problems: string[] = [];
  const listings = LISTINGS.map((listing): ListingPairs => {
    const factors = declaredFactors(listing);
    const declared = allPairs(factors);
    const tests = Object.entries(run.tests).filter(([id]) => id.startsWith(`pairs.${listing}-`));
    const passed = tests.filter(([, t]) => t.result === 'passed').map(([id]) => id);
    const base = { listing, where: LISTING_WHERE[listing], factors: factors.length, declared: declared.size, passed };
    const why =
      run.seed === undefined
        ? `${run.file} records no seed: the rows of its covering arrays are unknown`
        : passed.length === 0
          ? `no test pairs.${listing}-* passed in ${run.file}`
          : undefined;
    if (why !== undefined) {
      problems.push(`feature pairs of ${LISTING_WHERE[listing]}: ${declared.size} declared, none covered (${why})`);
      return { ...base, covered: 0, rows: 0, gaps: [why] };
    }
    const { rows } = coveringArray(factors, pairSeed(run.seed!, listing));
    const linqRan = tests.some(([id, t]) => id === `pairs.${listing}-qry-010` && t.result === 'passed');
    const covered = new Set(
      rows.flatMap((r) => pairsOf(factors, r)).filter((k) => linqRan || !k.includes('select=linq')),
    );
    const missing = [...declared].filter((k) => !covered.has(k));
    if (missing.length)
      problems.push(
        `feature pairs of ${LISTING_WHERE[listing]}: ${missing.length} of ${declared.size} declared pairs not covered${linqRan ? '' : ` (pairs.${listing}-qry-010 did not pass: the LINQ level was not asked)`}, e.g. ${missing.slice(0, 3).join(', ')}`,
      );
    return { ...base, covered: declared.size - missing.length, rows: rows.length, gaps: missing.slice(0, 10) };
  });
  const sum = (f: (l: ListingPairs) => number) => listings.reduce((k, l) => k + f(l), 0);
  return {
    ...(run.seed !== undefined ? { seed: run.seed } : {}),
    listings,
    counts: {
      declared: sum((l) => l.declared),
      covered: sum((l) => l.covered),
      gaps: sum((l) => l.declared - l.covered),
    },
    problems,
  };
}

/** The count line of the coverage summary. */
export function featurePairsSummary(c: FeaturePairCoverage): string {
  const per = c.listings.map((l) => `${l.listing} ${l.covered}/${l.declared}`).join(', ');
  return `- feature pairs (pairwise, seed ${c.seed ?? 'none'}): ${c.counts.declared} declared over ${c.listings.length} listings; covered: ${c.counts.covered} (${per}); gaps: ${c.counts.gaps}`;
}

export function featurePairsMarkdown(c: FeaturePairCoverage): string[] {
  const out = ['', '## Feature pairs', ''];
  out.push(
    "Every pair of levels of the factor table of each listing (conformance/suite/support/pair-factors.ts), covered when a row of the covering array of the run's seed holds it where it can be seen and the listing's pair tests passed.",
  );
  out.push('');
  out.push('| listing | factors | declared pairs | covered | gaps | rows | tests passed |');
  out.push('|---|---|---|---|---|---|---|');
  for (const l of c.listings)
    out.push(
      `| ${l.where} | ${l.factors} | ${l.declared} | ${l.covered} | ${l.declared - l.covered} | ${l.rows} | ${l.passed.length} |`,
    );
  const gaps = c.listings.filter((l) => l.gaps.length);
  if (gaps.length) {
    out.push('');
    for (const l of gaps) out.push(`- ${l.where}: ${l.gaps.map((g) => `\`${g}\``).join(', ')}`);
  }
  return out;
}
