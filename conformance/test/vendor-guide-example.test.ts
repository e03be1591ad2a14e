// The vendor guide's worked example (conformance/examples/provider-states.ts, shown whole in
// conformance/README.md section 2) is run here against the protocol: its answers are checked value
// by value as the suite reads them, its params confirmed, and the fixture it builds (ranks, the one
// sparse value) read back from its data. An example that drifts from the protocol fails here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { providerStates, type Db } from '../examples/provider-states.js';
import { compareVersions, loadProtocol, negotiate, unconfirmedParams } from '../src/suite-api/protocol.js';
import { guardedValues } from '../src/suite-api/state-values.js';
import { ROOT } from '../src/paths.js';

/** An in-memory store: what the example needs of a database. */
function memoryDb() {
  const claims = new Map<number, Record<string, unknown>>();
  const users = new Map<number, { name: string; tag: string }>();
  const grants: Array<{ userId: number; domain: string; permissions: string[] }> = [];
  let next = 1000;
  const db: Db = {
    users: {
      create: async (u) => {
        const id = next++;
        users.set(id, u);
        return { id };
      },
      deleteByTag: async (tag) => {
        for (const [id, u] of users) if (u.tag === tag) users.delete(id);
      },
    },
    permissions: { grant: async (userId, domain, permissions) => void grants.push({ userId, domain, permissions }) },
    domains: { names: async () => ['Claim', 'Contact', 'File'] },
    claims: {
      insert: async (row) => {
        const id = next++;
        claims.set(id, { ClaimID: id, ...row });
        return id;
      },
      deleteByTag: async (tag) => {
        for (const [id, c] of claims) if (c.tag === tag) claims.delete(id);
      },
    },
  };
  return { db, claims, users, grants };
}

async function post(app: ReturnType<typeof providerStates>, body: unknown) {
  const res = await app.request('/_provider-states', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** Every value of `state` the protocol names, read as the suite reads it (validated, required ones present),
 * at the version the example declares: 1.1.0, which it implements whole; a newer minor version only
 * adds optional params and values (1.2.0: the stored values of the data classes), which the example
 * leaves out, so it must not declare them. */
const EXAMPLE_PROTOCOL = '1.1.0';
function readAll(state: string, values: Record<string, unknown>) {
  const n = negotiate(values.protocol);
  expect(n).toEqual({ version: EXAMPLE_PROTOCOL });
  const v = guardedValues(state, values, EXAMPLE_PROTOCOL);
  for (const [name, value] of loadProtocol().states.get(state)!.values)
    if (compareVersions(value.since, EXAMPLE_PROTOCOL) <= 0) void v[name];
}

describe('the vendor guide’s worked example', () => {
  it('is shown whole in the guide', () => {
    const guide = fs.readFileSync(path.join(ROOT, 'conformance/README.md'), 'utf8');
    const file = fs.readFileSync(path.join(ROOT, 'conformance/examples/provider-states.ts'), 'utf8');
    const block = /### Worked example[^\n]*\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(block).toBe(file);
  });

  it('a user: declares the protocol, answers the values of the protocol, tears down what it made', async () => {
    const m = memoryDb();
    const app = providerStates(m.db, async (id) => `token-${id}`);
    const params = { setupId: 's-1', grants: { Claim: ['View'] } };
    const up = await post(app, { state: 'a user', action: 'setup', params });
    expect(up.status).toBe(200);
    readAll('a user', up.json);
    expect(m.grants).toEqual([{ userId: up.json.userId, domain: 'Claim', permissions: ['View'] }]);
    expect(await post(app, { state: 'a user', action: 'teardown', params })).toEqual({ status: 200, json: {} });
    expect(m.users.size).toBe(0);
  });

  it('records: honours and confirms sortRanks and sparseAt, and builds that fixture', async () => {
    const m = memoryDb();
    const app = providerStates(m.db, async (id) => `token-${id}`);
    const params = { setupId: 's-2', count: 5, sortRanks: [3, 0, 4, 2, 1], sparseAt: 2 };
    const up = await post(app, { state: 'records', action: 'setup', params });
    expect(up.status).toBe(200);
    readAll('records', up.json);
    expect(unconfirmedParams('records', params, up.json)).toEqual([]);
    const rows = (up.json.ids as number[]).map((id) => m.claims.get(id)!);
    const order = [...rows].sort((a, b) => String(a.ClaimNumber).localeCompare(String(b.ClaimNumber)));
    expect(rows.map((r) => order.indexOf(r))).toEqual(params.sortRanks);
    expect(rows.map((r) => r.ReserveAmount !== null)).toEqual([false, false, true, false, false]);
    await post(app, { state: 'records', action: 'teardown', params });
    expect(m.claims.size).toBe(0);
  });

  it('records of another domain: a 400 the protocol allows', async () => {
    const app = providerStates(memoryDb().db, async (id) => `token-${id}`);
    const res = await post(app, {
      state: 'records',
      action: 'setup',
      params: { setupId: 's-3', domain: 'File', count: 3 },
    });
    expect(res.status).toBe(400);
    expect(res.json.detail).toMatch(/not supported/);
  });
});
