// A `curl` command that reproduces a recorded request. The token is never in a report: the
// command reads it from the shell variable $TOKEN. Every other word is single-quoted for a POSIX
// shell, so vendor-controlled text (URLs, headers, bodies) cannot run anything.
import type { Exchange } from '../suite-api/client.js';
import type { AuthInfo } from './results.js';

export const TOKEN_VAR = 'TOKEN';
const REDACTED = '<redacted>';

/** Quotes one word for a POSIX shell: `it's` → `'it'\''s'`. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const SKIP_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive']);
const TRUNCATED = /… \[\d+ more characters\]$/;

export interface CurlCommand {
  command: string;
  /** Whether the command needs $TOKEN. */
  usesToken: boolean;
  /** Things the command cannot reproduce (a truncated body). */
  notes: string[];
}

export function curlCommand(
  ex: Pick<Exchange, 'method' | 'url' | 'requestHeaders' | 'requestBody'>,
  auth?: AuthInfo,
): CurlCommand {
  const parts: string[] = ['curl -sS -i'];
  const notes: string[] = [];
  const method = ex.method.toUpperCase();
  const hasBody = ex.requestBody !== undefined && ex.requestBody !== '';
  if (method === 'HEAD') parts.push('-I');
  else if (method !== 'GET' || hasBody) parts.push(`-X ${shQuote(method)}`);
  parts.push(shQuote(ex.url));
  let usesToken = false;
  const tokenHeader = auth?.header.toLowerCase();
  for (const [name, value] of Object.entries(ex.requestHeaders ?? {})) {
    if (SKIP_HEADERS.has(name.toLowerCase())) continue;
    if (name.toLowerCase() === tokenHeader || value === REDACTED) {
      usesToken = true;
      const header = name.toLowerCase() === tokenHeader ? auth!.header : name;
      const prefix = name.toLowerCase() === tokenHeader ? auth!.prefix : '';
      parts.push(`-H ${shQuote(`${header}: ${prefix}`)}"$${TOKEN_VAR}"`);
      continue;
    }
    parts.push(`-H ${shQuote(`${name}: ${value}`)}`);
  }
  if (hasBody) {
    const body = ex.requestBody!;
    if (TRUNCATED.test(body))
      notes.push('the request body was truncated in the report: this command does not send the whole body');
    if (body.includes('\u0000'))
      notes.push('the request body holds NUL characters, which a shell argument cannot carry: they are left out');
    // eslint-disable-next-line no-control-regex -- a shell argument cannot hold a NUL
    parts.push(`--data-raw ${shQuote(body.replace(TRUNCATED, '').replace(/\u0000/g, ''))}`);
  }
  return { command: parts.join(' \\\n  '), usesToken, notes };
}
