// Shared harness of the core server tests (app.request against an in-memory database).
import { expect } from 'vitest';
import { createApp, type CreateAppOptions, type CreatedApp } from '../src/app.js';
import { createUser, issueToken } from '../src/auth.js';
import { type Permission } from '../src/permissions.js';

export type Res = ReadResponse;

export interface Harness {
  created: CreatedApp;
  deps: CreatedApp['deps'];
  admin: string;
  call(
    method: string,
    path: string,
    init?: { body?: unknown; raw?: string; token?: string | null; headers?: Record<string, string> },
  ): Promise<Res>;
  get(path: string, token?: string | null): Promise<Res>;
  state(name: string, params?: Record<string, unknown>, action?: 'setup' | 'teardown'): Promise<Record<string, any>>;
  userToken(grants: Record<string, Permission[]>): string;
  count(table: string, where?: string, ...params: unknown[]): number;
  close(): void;
}

let seq = 0;

export function harness(opts: CreateAppOptions = {}): Harness {
  const created = createApp({ providerStates: true, bindWorker: false, log: () => {}, ...opts });
  const { app, deps } = created;
  const admin = issueToken(deps, createUser(deps.db, { name: `admin-${++seq}` })).token;
  async function call(
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; token?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Res> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    const token = init.token === undefined ? admin : init.token;
    if (token) headers.Token = token;
    let body: string | undefined;
    if (init.raw !== undefined) body = init.raw;
    else if (init.body !== undefined) body = JSON.stringify(init.body);
    if (body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
    const r = await app.request(path, { method, headers, body });
    return readResponse(r);
  }
  async function state(name: string, params: Record<string, unknown> = {}, action: 'setup' | 'teardown' = 'setup') {
    const p = { setupId: `t${++seq}`, ...params };
    const r = await call('POST', '/_provider-states', { body: { state: name, params: p, action }, token: null });
    expect(r.status, r.text).toBe(200);
    return { ...(r.json as Record<string, any>), __params: p };
  }
  return {
    created,
    deps,
    admin,
    call,
    get: (path, token) => call('GET', path, { token }),
    state,
    userToken(grants) {
      return issueToken(deps, createUser(deps.db, { name: `u${++seq}`, grants })).token;
    },
    count(table, where = '1=1', ...params) {
      return (deps.db.prepare(`SELECT COUNT(*) AS n FROM "${table}" WHERE ${where}`).get(...params) as { n: number }).n;
    },
    close: () => created.close(),
  };
}

/** Asserts a problem+json answer with the given status and code. */
export function expectProblem(r: Res, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.json).toMatchObject({
    status,
    code,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(r.text).not.toMatch(/at .*\.ts:\d+/); // no stack traces
}

export const enc = encodeURIComponent;

import { getSpecValidator } from '../src/validation.js';
import { readResponse, type ReadResponse } from './support/response.js';

/** GEN-002: the body matches the documented schema of (method, path template, status). */
export function expectDocumented(r: Res, method: string, path: string): void {
  const check = getSpecValidator()?.response(method, path, r.status);
  expect(check, `no documented ${r.status} response for ${method} ${path}`).toBeDefined();
  expect(r.headers.get('content-type') ?? '').toContain(check!.mediaType.split(';')[0]!);
  const ok = check!.validate(r.json);
  expect(ok, JSON.stringify(check!.validate.errors) + ' in ' + r.text.slice(0, 500)).toBe(true);
}
