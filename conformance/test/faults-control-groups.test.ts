// The gate's groups of controls (faults/runner/control-groups.ts): every group is made of controls
// of the catalogue that can run as one, and their composition does what each member does, in the
// order given, each with a memory of its own. No network: `next` is a stub.
import { describe, expect, it } from 'vitest';
import { CONTROLS } from '../faults/controls/index.js';
import { bodyJson, makeRequest, makeResponse, type ProxyRequest } from '../faults/exchange.js';
import type { Control, FaultContext } from '../faults/fault.js';
import { errorsOnly, rewriteReadsGrants, rewriteTouchesErrorsOnly, readsGrants } from '../faults/operations.js';
import { CONTROL_GROUPS, composeControls, groupProblems } from '../faults/runner/control-groups.js';

const byName = (n: string) => CONTROLS.find((c) => c.name === n);

const ctx: FaultContext = {
  tokenHeader: 'token',
  memory: new Map(),
  publicUrl: 'http://proxy.test',
  adminToken: async () => 'ADMIN',
  domainIds: async () => new Map([['Claim', 1]]),
  grantsOf: () => 'admin',
  call: async () => ({ status: 200, text: '{}', json: {} }),
};

/** A control that appends its name to the answer's `Trail` and counts its own calls in its memory. */
function tracer(name: string, extra: Partial<Control> = {}): Control {
  return {
    name,
    area: 'GEN',
    description: name,
    allowedBy: 'test',
    rewrite: async (req, c, next) => {
      const n = ((c.memory.get('n') as number | undefined) ?? 0) + 1;
      c.memory.set('n', n);
      const res = await next({ ...req, headers: { ...req.headers, [`x-seen-${name}`]: String(n) } });
      const body = bodyJson(res) as { Trail: string[] };
      return makeResponse(res.status, { Trail: [...body.Trail, `${name}${n}`] });
    },
    ...extra,
  };
}

describe('the groups of controls the gate runs as one', () => {
  it('name controls of the catalogue, each in one group, and can run as one', () => {
    const seen = new Set<string>();
    for (const g of CONTROL_GROUPS) {
      const members = g.members.map(byName);
      expect(members.every(Boolean), `${g.name}: ${g.members.join(', ')}`).toBe(true);
      expect(groupProblems(members as Control[]), g.name).toEqual([]);
      for (const m of g.members) {
        expect(seen.has(m), `${m} in two groups`).toBe(false);
        seen.add(m);
      }
    }
  });

  it('refuse what cannot run as one: another judge, held-back answers, one binding or server flag set twice', () => {
    const problems = groupProblems([
      tracer('a', { judge: 'state-endpoint' }),
      tracer('b', { delaysMs: 100 }),
      tracer('c', { config: { bindings: { tokenHeader: 'X' } }, serverFlags: ['--id-start', '5'] }),
      tracer('d', { config: { bindings: { tokenHeader: 'Y' } }, serverFlags: ['--id-start', '7'] }),
    ]);
    expect(problems).toEqual([
      "a: judged as 'state-endpoint', not by the default rule",
      "b: holds answers back (100 ms): its run's time is its own",
      "binding 'tokenHeader' set by both c and d",
      'server flag --id-start set by both c and d',
    ]);
    expect(() => composeControls('g', [tracer('a', { judge: 'state-endpoint' })])).toThrow(/cannot run as one/);
  });

  it('chain the rewrites, the first outermost, each with a memory of its own; merge bindings, flags and files', async () => {
    const g = composeControls('g', [
      tracer('a', { select: ['DOM-'], config: { bindings: { tokenHeader: 'X' } } }),
      { ...tracer('b', { select: ['REC-'], serverFlags: ['--single-id-sequence'] }) },
    ]);
    let upstream: ProxyRequest | undefined;
    const next = async (r: ProxyRequest) => ((upstream = r), makeResponse(200, { Trail: [] }));
    const first = await g.rewrite!(makeRequest('GET', '/api/Domains'), ctx, next);
    // the answer passes b first, then a; the request a first, then b
    expect(bodyJson(first)).toEqual({ Trail: ['b1', 'a1'] });
    expect(upstream!.headers).toMatchObject({ 'x-seen-a': '1', 'x-seen-b': '1' });
    // each member's memory lasts the run: a second request is each member's second
    const second = await g.rewrite!(makeRequest('GET', '/api/Domains'), ctx, next);
    expect(bodyJson(second)).toEqual({ Trail: ['b2', 'a2'] });
    expect(upstream!.headers).toMatchObject({ 'x-seen-a': '2', 'x-seen-b': '2' });
    expect(g.select).toEqual(['DOM-', 'REC-']);
    expect(g.config).toEqual({ bindings: { tokenHeader: 'X' } });
    expect(g.serverFlags).toEqual(['--single-id-sequence']);
    // a member whose select is every core file makes the group's every core file
    expect(composeControls('h', [tracer('a', { select: ['DOM-'] }), tracer('b')]).select).toBeUndefined();
  });

  it("keep a mark only when every member's rewrite carries it (reading grants: when any does)", () => {
    const e = (n: string) => ({ ...tracer(n), rewrite: errorsOnly(tracer(n).rewrite!) });
    expect(rewriteTouchesErrorsOnly(composeControls('g', [e('a'), e('b')]).rewrite)).toBe(true);
    expect(rewriteTouchesErrorsOnly(composeControls('g', [e('a'), tracer('b')]).rewrite)).toBe(false);
    const r = { ...tracer('r'), rewrite: readsGrants(tracer('r').rewrite!) };
    expect(rewriteReadsGrants(composeControls('g', [tracer('a'), r]).rewrite)).toBe(true);
    expect(rewriteReadsGrants(composeControls('g', [tracer('a'), tracer('b')]).rewrite)).toBe(false);
  });

  it("the JSON-shape group leaves every member's change in the answer (none undoes another)", async () => {
    const group = CONTROL_GROUPS.find((x) => x.name === 'group:json-shape')!;
    const g = composeControls(
      group.name,
      group.members.map((m) => byName(m)!),
    );
    const res = await g.rewrite!(makeRequest('GET', '/api/Claim/1'), ctx, async () =>
      makeResponse(200, { Record: { ClaimID: 1, ClaimNumber: 'C-1' }, Domain: 'Claim', Id: 1 }),
    );
    const text = res.body.toString('utf8');
    // pretty-printed-json: indented, a final newline, charset in the media type
    expect(text).toMatch(/^\{\n {2}"/);
    expect(text.endsWith('\n')).toBe(true);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    // extra-response-headers
    expect(res.headers).toMatchObject({ 'x-powered-by': 'control', 'cache-control': 'no-store' });
    const body = JSON.parse(text) as Record<string, unknown>;
    // extra-envelope-keys: a key beside Record, Domain and Id
    expect(Object.keys(body).length).toBeGreaterThan(3);
    // reversed-key-order: the record's keys in reverse order
    expect(Object.keys(body.Record as object)).toEqual(['ClaimNumber', 'ClaimID']);
  });
});
