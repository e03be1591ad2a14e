// Privacy of recorded traffic: credentials (the configured token header, Authorization, cookies,
// API-key headers, token-like fields of JSON bodies and every occurrence of a credential seen in a
// header) never reach a report or a written HAR unless the user asks (--keep-credentials); file
// Contents is shortened in reports unless asked (--keep-contents).

const REDACTED = '<redacted>';

const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
]);
/** JSON body keys that carry credentials (a provider state's or a login's token, a password). */
const CREDENTIAL_KEY = /token|password|passwd|secret|api[-_]?key|authorization|cookie|session[-_]?id/i;

export interface Redactor {
  headers(h: Record<string, string>): Record<string, string>;
  /** A body or URL with every credential seen so far (and token-like JSON fields) replaced. */
  text(s: string | undefined): string | undefined;
}

/**
 * A redactor for one recording. `tokenHeader` is the bindings' token header. Credentials met in
 * headers are remembered, so the same value is also removed where it appears elsewhere (a login's
 * answer, a URL). With `keep` nothing is changed.
 */
export function redactor(tokenHeader: string, keep = false): Redactor {
  const secrets = new Set<string>();
  const token = tokenHeader.toLowerCase();
  const isCredential = (name: string) => CREDENTIAL_HEADERS.has(name.toLowerCase()) || name.toLowerCase() === token;
  const remember = (value: string) => {
    for (const part of value.split(/[;,]\s*|\s+/)) {
      const v = part.includes('=') ? part.slice(part.indexOf('=') + 1) : part;
      if (v.length >= 8) secrets.add(v);
    }
    if (value.length >= 8) secrets.add(value);
  };
  const scrub = (s: string) => {
    let out = s;
    for (const v of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(v).join(REDACTED);
    return out;
  };
  return {
    headers(h) {
      if (keep) return { ...h };
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(h)) {
        if (isCredential(k)) {
          remember(v);
          out[k] = REDACTED;
        } else out[k] = v;
      }
      return out;
    },
    text(s) {
      if (keep || s === undefined || s === '') return s;
      return scrub(redactJsonKeys(s, (v) => remember(v)));
    },
  };
}

/** A JSON text with the string values of credential-like keys replaced (other text unchanged). */
function redactJsonKeys(s: string, seen: (v: string) => void): string {
  let doc: unknown;
  try {
    doc = JSON.parse(s);
  } catch {
    return s;
  }
  let changed = false;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (CREDENTIAL_KEY.test(k) && typeof x === 'string' && x !== '') {
        seen(x);
        o[k] = REDACTED;
        changed = true;
      } else o[k] = walk(x);
    }
    return o;
  };
  const out = walk(doc);
  return changed ? JSON.stringify(out) : s;
}

const CONTENTS = /("Contents"\s*:\s*")([A-Za-z0-9+/=\s]{64,})(")/g;

/** A body with each long `Contents` value shortened to its start and its length (reports only). */
export function shortenContents(s: string | undefined, keep = false): string | undefined {
  if (keep || s === undefined) return s;
  return s.replace(
    CONTENTS,
    (_m, a: string, v: string, z: string) => `${a}${v.slice(0, 24)}… [${v.length} base64 characters]${z}`,
  );
}
