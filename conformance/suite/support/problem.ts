// The reference server's error shape (implementation-defined, README "Implementation-defined
// choices"): RFC 9457 problem details with a stable `code`. Only implementation-defined tests use it.
import { expect } from 'vitest';

interface Answer {
  status: number;
  headers: Headers;
  text?: string;
  json: unknown;
}

/** `res` is a problem+json answer with this status, all RFC 9457 members, and `code` (any string when undefined). */
export function expectProblem(res: Answer, status: number, code: string | undefined, what: string) {
  expect(res.status, `${what}: ${(res.text ?? '').slice(0, 300)}`).toBe(status);
  expect(res.headers.get('content-type') ?? '', what).toMatch(/^application\/problem\+json/);
  const body: unknown = res.json;
  expect(typeof body === 'object' && body !== null && !Array.isArray(body), `${what}: body is an object`).toBe(true);
  // an object (just checked); each member's type is what the checks below are about
  const b = body as Record<string, unknown>;
  expect(typeof b.type, `${what}: type`).toBe('string');
  expect(typeof b.title, `${what}: title`).toBe('string');
  expect(b.status, `${what}: status`).toBe(status);
  expect(typeof b.detail, `${what}: detail`).toBe('string');
  if (code === undefined) expect(typeof b.code, `${what}: code`).toBe('string');
  else expect(b.code, `${what}: code`).toBe(code);
}
