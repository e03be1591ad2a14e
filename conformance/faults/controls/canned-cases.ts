// The harness of the controls' canned cases (<area>.cases.ts beside each area's controls): a case runs
// one control's rewrite on a canned exchange and checks that the request the upstream receives and
// the answer the client gets change as the control intends. No network: `next` and side requests
// are stubs. Run by conformance/test/faults-controls.test.ts.
import { expect } from 'vitest';
import { controlByName } from './index.js';
import type { FaultContext } from '../fault.js';
import { rewriteReadsGrants } from '../operations.js';
import {
  bodyJson,
  type Grants,
  makeRequest,
  makeResponse,
  type ProxyRequest,
  type ProxyResponse,
} from '../exchange.js';

// ------------------------------------------------------------------------------------ harness

type Upstream = ProxyResponse | ((req: ProxyRequest) => ProxyResponse);

export interface Case {
  /** the client's request */
  req: ProxyRequest;
  /** the upstream's answer (default: 200 `{}`) */
  upstream?: Upstream;
  /** side requests (`METHOD path` prefix → JSON answer) */
  side?: Record<string, unknown>;
  /** grants of token → as noted by the proxy (default: every token is an administrator's) */
  grants?: Record<string, Grants | 'admin'>;
  expect(out: ProxyResponse, forwarded: ProxyRequest[]): void;
}

function context(name: string, c: Case, memory = new Map()): FaultContext {
  return {
    tokenHeader: 'token',
    memory,
    publicUrl: 'http://proxy.test',
    adminToken: async () => 'ADMIN',
    domainIds: async () => new Map(),
    grantsOf: (t) => {
      // the proxy knows grants only when the run sends provider states through it (operations.ts readsGrants)
      const tagged = rewriteReadsGrants(controlByName(name)?.rewrite);
      expect(tagged, `${name} reads grants: tag its rewrite with readsGrants`).toBe(true);
      return c.grants && t !== undefined ? c.grants[t] : 'admin';
    },
    async call(method, pathAndQuery) {
      const line = `${method} ${pathAndQuery}`;
      const hit = Object.keys(c.side ?? {}).find((k) => line.startsWith(k));
      if (!hit) return { status: 400, text: '{}', json: {} };
      return { status: 200, text: JSON.stringify(c.side![hit]), json: c.side![hit] };
    },
  };
}

/** A case that needs one memory across several exchanges (or time to pass), written out as steps. */
export interface ScriptedCase {
  control: string;
  title: string;
  run(): Promise<void>;
}

export async function run(name: string, c: Case, memory?: Map<string, any>): Promise<void> {
  const control = controlByName(name);
  expect(control, `control ${name} exists`).toBeDefined();
  expect(control!.rewrite, `control ${name} has a rewrite`).toBeDefined();
  const forwarded: ProxyRequest[] = [];
  const next = async (req: ProxyRequest) => {
    forwarded.push(req);
    const u = c.upstream ?? makeResponse(200, {});
    return typeof u === 'function' ? u(req) : u;
  };
  const out = await control!.rewrite!(c.req, context(name, c, memory), next);
  c.expect(out, forwarded);
}

// ------------------------------------------------------------------------------------ builders

export const T = { token: 'T' };
export const get = (p: string, headers: Record<string, string> = T) => makeRequest('GET', p, { headers });
export const post = (p: string, body?: unknown, headers: Record<string, string> = T) =>
  makeRequest('POST', p, { headers, body });
export const del = (p: string) => makeRequest('DELETE', p, { headers: T });
export const ok = (body: unknown) => makeResponse(200, body);
export const json = (r: { body: Buffer }) => bodyJson(r);
export const SCHED = '/api/Quotes/Proposals/12/Schedules/ProposalLocation';
export const result = (IsSuccessful: boolean, RecordID: number, OrderNumber: number | null, Message: string) => ({
  IsSuccessful,
  RecordID,
  OrderNumber,
  Message,
  Warnings: null,
});
export const notModifiable = makeResponse(
  409,
  result(
    false,
    0,
    null,
    'Cannot modify Proposal with ID# 12: the proposal cannot be modified because its status is B.',
  ),
);
export const status = (s: number) => (out: ProxyResponse) => expect(out.status).toBe(s);
export const codeAndStatus = (s: number, code: string) => (out: ProxyResponse) => {
  expect(out.status).toBe(s);
  expect(json(out)).toMatchObject({ status: s, code });
};
