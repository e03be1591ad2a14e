// `conformance states`: a recording run of the selected tests against the reference lists, per
// provider state, the params the tests sent and the values the spec says to answer.
import { describe, expect, it } from 'vitest';
import { formatStates, summarize, type StateUse } from '../src/cli/states.js';
import { ONE_WORKER, runCli } from './helpers/cli.js';

describe('conformance states', () => {
  it('groups recorded setups by state, in spec order, params without setupId, most frequent first', () => {
    const uses = summarize([
      { state: 'a proposal', params: { type: 'Quote', locations: 3 }, keys: ['proposalId', 'extra'] },
      { state: 'a proposal', params: { locations: 3, type: 'Quote' }, keys: ['proposalId'] },
      { state: 'a proposal', params: { type: 'Endorsement' }, keys: ['proposalId'] },
      { state: 'a user', params: {}, keys: ['token', 'userId'] },
    ]);
    const proposal = uses.find((u) => u.state === 'a proposal')!;
    expect(proposal.calls).toBe(3);
    expect(proposal.params).toEqual([
      { params: { locations: 3, type: 'Quote' }, count: 2 },
      { params: { type: 'Endorsement' }, count: 1 },
    ]);
    expect(proposal.values.filter((v) => v.required).map((v) => v.name)).toContain('proposalId');
    expect(uses.findIndex((u) => u.state === 'a user')).toBeLessThan(uses.findIndex((u) => u.state === 'a proposal'));
    const text = formatStates(uses, 'core');
    expect(text).toMatch(/^a proposal {2}\(3 setups\)$/m);
    expect(text).toContain('{"locations":3,"type":"Quote"}  ×2');
    expect(text).toContain('(the reference also answers: extra)');
    expect(text).toMatch(/^an expired token {2}\(not used by the selected tests\)$/m);
  });

  it("marks a param taken from the reference's own answer as an example, not the spec's names nor echoes", () => {
    const uses = summarize([
      { state: 'a link parent', params: {}, keys: ['domain', 'id'], values: { domain: 'Custom.Inspection', id: 4 } },
      { state: 'a record with associations', params: {}, keys: ['domain'], values: { domain: 'Claim' } },
      {
        state: 'records',
        params: { domain: 'Custom.Inspection', count: 2 },
        keys: ['domain'],
        values: { domain: 'Custom.Inspection' },
      },
      { state: 'records', params: { domain: 'Claim', count: 1 }, keys: ['domain'], values: { domain: 'Claim' } },
      { state: 'a user', params: { grants: { 'Custom.Inspection': ['View'], Claim: ['View'] } }, keys: ['token'] },
    ]);
    const records = uses.find((u) => u.state === 'records')!.params;
    const example = { value: 'Custom.Inspection', fromState: 'a link parent', fromValue: 'domain' };
    expect(records.find((p) => p.params.domain === 'Custom.Inspection')!.examples).toEqual([example]);
    expect(records.find((p) => p.params.domain === 'Claim')!.examples).toBeUndefined();
    expect(uses.find((u) => u.state === 'a user')!.params[0].examples).toEqual([example]);
    const text = formatStates(uses, 'core');
    expect(text).toContain(
      `      ^ "Custom.Inspection" is an example: the reference's own answer to \`a link parent\` (domain); against you the tests send what your endpoint answers there`,
    );
  });

  it('records what the selected tests send to the reference', async () => {
    const r = await runCli(['states', '--requirements', 'PROP-', '--json'], ONE_WORKER);
    expect(r.code, r.stderr).toBe(0);
    const uses = JSON.parse(r.stdout) as StateUse[];
    const proposal = uses.find((u) => u.state === 'a proposal')!;
    expect(proposal.calls).toBeGreaterThan(0);
    expect(proposal.params.every((p) => typeof p.params.type === 'string')).toBe(true);
    expect(proposal.referenceKeys).toEqual(expect.arrayContaining(['proposalId']));
  }, 240_000);
});
