// The harness of the faults' canned cases (<area>.cases.ts beside each area's faults): a case runs one
// fault's rewrite on canned exchanges and checks that the request the upstream receives and the
// answer the client gets change as the fault intends. No network: `next` and the side requests of
// the fault context are stubs. Run by conformance/test/faults-rewrites.test.ts.
import { expect } from 'vitest';
import { CORE_DOMAIN_IDS } from '../../../spec/generated/facts.js';
import { faultByName } from './index.js';
import type { FaultContext, SideResponse } from '../fault.js';
import { rewriteReadsGrants } from '../operations.js';
import {
  bodyJson,
  type Grants,
  makeRequest,
  makeResponse,
  parseColumns,
  type ProxyRequest,
  type ProxyResponse,
} from '../exchange.js';

// ------------------------------------------------------------------------------------ harness

type Upstream = ProxyResponse | ((req: ProxyRequest, n: number) => ProxyResponse);

interface Step {
  req: ProxyRequest;
  upstream?: Upstream;
  expect(out: ProxyResponse, forwarded: ProxyRequest[], side: string[]): void;
}

export interface Case {
  fault: string;
  title: string;
  /** side requests of the fault: `METHOD path?query` prefix → answer */
  side?: Record<string, SideResponse | { status: number; json: unknown }>;
  grants?: Record<string, Grants | 'admin'>;
  steps: Step[];
}

const DOMAINS = new Map([
  ...Object.entries(CORE_DOMAIN_IDS),
  ['Member', 20],
  ['Proposal', 21],
  ['ProposalLocation', 22],
  ['Custom.Inspection', 1001],
]);

export function context(c: Case, sideLog: string[]): FaultContext {
  const fault = faultByName(c.fault);
  return {
    tokenHeader: 'token',
    memory: new Map(),
    publicUrl: 'http://proxy.test',
    adminToken: async () => 'ADMIN',
    domainIds: async () => DOMAINS,
    grantsOf: (t) => {
      // the proxy knows grants only when the run sends provider states through it (operations.ts readsGrants)
      expect(rewriteReadsGrants(fault?.rewrite), `${c.fault} reads grants: tag its rewrite with readsGrants`).toBe(
        true,
      );
      return t === undefined ? undefined : c.grants?.[t];
    },
    async call(method, pathAndQuery, opts = {}) {
      const line = `${method} ${pathAndQuery}`;
      sideLog.push(`${line} [${opts.token === undefined ? 'ADMIN' : opts.token}]`);
      const keys = Object.keys(c.side ?? {}).sort((a, b) => b.length - a.length);
      const hit = keys.find((k) => line === k || line.startsWith(k));
      if (!hit) return { status: 404, text: '{}', json: {} };
      const r = c.side![hit]!;
      // a copy per call: a fault may change what it got (a later step must see the case as written)
      return { status: r.status, text: JSON.stringify(r.json), json: structuredClone(r.json) };
    },
  };
}

export async function runCase(c: Case): Promise<void> {
  const fault = faultByName(c.fault);
  expect(fault, `fault ${c.fault} exists`).toBeDefined();
  const side: string[] = [];
  const ctx = context(c, side);
  for (const step of c.steps) {
    const forwarded: ProxyRequest[] = [];
    side.length = 0;
    const next = async (req: ProxyRequest) => {
      forwarded.push(req);
      const u = step.upstream ?? makeResponse(200, {});
      return typeof u === 'function' ? u(req, forwarded.length - 1) : u;
    };
    const out = await fault!.rewrite(step.req, ctx, next);
    step.expect(out, forwarded, [...side]);
  }
}

// ------------------------------------------------------------------------------------ builders

const T = { token: 'T' };
export const get = (p: string, headers: Record<string, string> = T) => makeRequest('GET', p, { headers });
export const post = (p: string, body?: unknown, headers: Record<string, string> = T) =>
  makeRequest('POST', p, { headers, body });
export const del = (p: string) => makeRequest('DELETE', p, { headers: T });
export const ok = (body: unknown) => makeResponse(200, body, { 'content-type': 'application/json; charset=UTF-8' });
export const json = (r: { body: Buffer }) => bodyJson(r);
export const cols = (r: ProxyRequest) => parseColumns(r.query.get('columns')) ?? [];
/** The upstream's answer for one record, built from the forwarded columns (`value(field)`). */
export const recordFrom =
  (value: (field: string) => unknown, list = false) =>
  (req: ProxyRequest) => {
    const rec = Object.fromEntries(cols(req).map((c) => [c.key, value(c.field)]));
    return ok(list ? { List: [rec] } : { Record: rec, Domain: 'File', Id: 5 });
  };
export const result = (
  ok: boolean,
  id: number,
  order: number | null,
  msg = ok ? 'Done.' : 'LocationName is required.',
) => ({
  IsSuccessful: ok,
  RecordID: id,
  OrderNumber: order,
  Message: msg,
  Warnings: null,
});
export const SCHED = '/api/Quotes/Proposals/5/Schedules/ProposalLocation';
export const proposal = (p: Record<string, unknown>) => ({
  status: 200,
  json: { Record: p, Domain: 'Proposal', Id: 5 },
});
export const record = (p: Record<string, unknown>) => ({ status: 200, json: { Record: p, Domain: 'X', Id: 1 } });
export const untouched = (f: ProxyRequest[]) => expect(f).toHaveLength(0);
