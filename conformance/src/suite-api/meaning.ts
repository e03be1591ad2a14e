// Assert meaning, not wording.
import type { RawResponse } from './client.js';

class MeaningAssertionError extends Error {
  override name = 'AssertionError';
}

function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** Each needle must occur in `text` (case-insensitive; objects are searched as JSON). */
export function expectMentions(text: unknown, ...needles: Array<string | number | RegExp>): void {
  const hay = asText(text);
  const lower = hay.toLowerCase();
  const missing = needles.filter((n) =>
    n instanceof RegExp
      ? !new RegExp(n.source, n.flags.includes('i') ? n.flags : `${n.flags}i`).test(hay)
      : !lower.includes(String(n).toLowerCase()),
  );
  if (missing.length > 0) {
    throw new MeaningAssertionError(
      `expected the text to mention ${missing.map((n) => (n instanceof RegExp ? String(n) : JSON.stringify(String(n)))).join(', ')}; text: ${JSON.stringify(hay.slice(0, 500))}`,
    );
  }
}

/** The shape of an openapi-fetch result. */
export interface FetchResponseLike {
  response: Response;
  data?: unknown;
  error?: unknown;
}

/** A refusal: a non-2xx status, or a 2xx whose body says `IsSuccessful: false`. */
export function isRefusal(res: RawResponse | FetchResponseLike): boolean {
  let status: number;
  let body: unknown;
  if ('response' in res && res.response instanceof Response) {
    status = res.response.status;
    body = res.data ?? res.error;
  } else {
    const r = res as RawResponse;
    status = r.status;
    body = r.json;
  }
  if (status < 200 || status >= 300) return true;
  return typeof body === 'object' && body !== null && (body as { IsSuccessful?: unknown }).IsSuccessful === false;
}
