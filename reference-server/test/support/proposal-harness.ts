// The in-process harness shared by the proposal-area tests: a fresh in-memory app with provider
// states on and the bind worker off, an admin token, and small helpers to call routes and set up
// provider states.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createApp } from '../../src/app.js';
import { createUser, issueToken } from '../../src/auth.js';
import { type Permission } from '../../src/permissions.js';
import { readResponse, type ReadResponse } from './response.js';

export type Res = ReadResponse;
export function harness(opts: Parameters<typeof createApp>[0] = {}) {
  const created = createApp({ providerStates: true, bindWorker: false, ...opts });
  const { app, deps } = created;
  const admin = issueToken(deps, createUser(deps.db, { name: `admin-${randomUUID()}` })).token;
  let n = 0;
  async function call(
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; token?: string | null } = {},
  ): Promise<Res> {
    const headers: Record<string, string> = {};
    const token = init.token === undefined ? admin : init.token;
    if (token) headers.Token = token;
    let body: string | undefined;
    if (init.raw !== undefined) body = init.raw;
    else if (init.body !== undefined) body = JSON.stringify(init.body);
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const r = await app.request(path, { method, headers, body });
    return readResponse(r);
  }
  async function state(name: string, params: Record<string, unknown>, action = 'setup') {
    const r = await call('POST', '/_provider-states', { body: { state: name, params, action }, token: null });
    expect(r.status, r.text).toBe(200);
    return r.json as Record<string, any>;
  }
  async function proposal(params: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const p = { setupId: `t${++n}`, type: 'Quote', ...params };
    return { ...(await state('a proposal', p)), params: p };
  }
  function userToken(grants: Record<string, Permission[]>) {
    return issueToken(deps, createUser(deps.db, { name: `user-${randomUUID()}`, grants })).token;
  }
  return { created, deps, call, state, proposal, userToken };
}
export type H = ReturnType<typeof harness>;
