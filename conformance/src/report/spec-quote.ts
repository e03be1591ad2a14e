// Whether a vendor's quote of the interface specification is verbatim (a disputed expected-failures
// entry rests on one): compared after markup, quote marks and white space are normalised, so a
// sentence copied from the rendered page matches the markdown source.
import fs from 'node:fs';
import path from 'node:path';
import { SPEC_DIR } from '../paths.js';

/** The text with markdown emphasis and code marks removed, typographic quotes plain, white space single. */
function normaliseQuote(s: string): string {
  return s.replace(/[`*_]/g, '').replace(/[‘’]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim();
}

let specText: string | null | undefined;

/** The normalised spec (spec/interface-spec.md); null when it cannot be read. */
function normalisedSpec(): string | null {
  if (specText === undefined) {
    try {
      specText = normaliseQuote(fs.readFileSync(path.join(SPEC_DIR, 'interface-spec.md'), 'utf8'));
    } catch {
      specText = null;
    }
  }
  return specText;
}

/** true: the quote is in the spec; false: it is not; undefined: the spec cannot be read here. */
export function quoteInSpec(quote: string): boolean | undefined {
  const spec = normalisedSpec();
  return spec === null ? undefined : spec.includes(normaliseQuote(quote));
}
