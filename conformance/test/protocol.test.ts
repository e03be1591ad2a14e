// The provider-state protocol as a versioned contract (spec/provider-states.yaml): versions, the
// negotiation, params newer than declared, confirmations, and a setup answer's values guarded where
// a test reads them.
import { describe, expect, it } from 'vitest';
import {
  meaningChanged,
  allowedRefusal,
  compareVersions,
  loadProtocol,
  negotiate,
  newerParams,
  unconfirmedParams,
} from '../src/suite-api/protocol.js';
import { guardedValues, ProtocolNeedError } from '../src/suite-api/state-values.js';
import { NotApplicableError, PreconditionFailedError } from '../src/model/errors.js';

const protocol = loadProtocol();

describe('the protocol document', () => {
  it('is versioned, with a changelog entry for every version up to its own', () => {
    expect(protocol.version).toMatch(/^\d+\.\d+\.\d+$/);
    const versions = protocol.changelog.map((c) => c.version);
    expect(versions[0]).toBe('1.0.0');
    expect(versions.at(-1)).toBe(protocol.version);
    for (const c of protocol.changelog) expect(c['vendor-must'], c.version).toBeTruthy();
  });

  it('names the version of every param and value, none newer than the document', () => {
    for (const s of protocol.states.values()) {
      for (const p of s.params.values())
        expect(compareVersions(p.since, protocol.version), `${s.name}.${p.name}`).toBeLessThanOrEqual(0);
      for (const v of s.values.values())
        expect(compareVersions(v.since, protocol.version), `${s.name}.${v.name}`).toBeLessThanOrEqual(0);
    }
  });

  it('adds only optional params and values after 1.0.0 (a required one would be a new major version)', () => {
    for (const s of protocol.states.values()) {
      for (const p of s.params.values())
        if (p.since !== '1.0.0') expect(p.required, `${s.name} param ${p.name}`).toBe(false);
      for (const v of s.values.values())
        if (v.since !== '1.0.0') expect(v.required, `${s.name} value ${v.name}`).toBe(false);
    }
  });

  it('names, for every param that shapes a fixture, a value of the answer that confirms it', () => {
    for (const s of protocol.states.values())
      for (const p of s.params.values())
        for (const by of p.confirmedBy ?? []) expect(s.values.has(by), `${s.name}.${p.name} -> ${by}`).toBe(true);
  });
});

describe('negotiation', () => {
  it('takes an endpoint that declares nothing as 1.0.0', () => {
    expect(negotiate(undefined)).toEqual({ version: '1.0.0' });
  });
  it('caps a newer minor version at the suite’s', () => {
    expect(negotiate('1.99.0')).toEqual({ version: protocol.version });
    expect(negotiate('1.0.0')).toEqual({ version: '1.0.0' });
  });
  it('refuses another major version and what is not a version', () => {
    expect(negotiate('2.0.0')).toHaveProperty('problem', expect.stringMatching(/declared protocol 2\.0\.0/));
    expect(negotiate(1.1)).toHaveProperty('problem', expect.stringMatching(/not a version/));
  });
});

describe('params', () => {
  it('newer than the declared version are named with their version', () => {
    expect(newerParams('a file', { kind: 'internal', touched: true }, '1.0.0')).toEqual([
      { since: '1.1.0', what: 'param `touched` of `a file`' },
    ]);
    expect(newerParams('a file', { kind: 'internal', touched: true }, '1.1.0')).toEqual([]);
    // a param at its default asks nothing new
    expect(newerParams('a file', { kind: 'internal', touched: false }, '1.0.0')).toEqual([]);
  });

  it('that shape the fixture must be confirmed by the answer', () => {
    expect(unconfirmedParams('records', { count: 3 }, { ids: [1, 2, 3] })).toEqual([]);
    expect(unconfirmedParams('records', { count: 3 }, { ids: [1, 2] })[0]).toMatch(/`count`.*holds 2/);
    expect(unconfirmedParams('records', { count: 3, sortRanks: [2, 0, 1] }, { ids: [1, 2, 3] })[0]).toMatch(
      /`sortRanks` \(since 1\.1\.0\).*not confirmed/,
    );
    expect(unconfirmedParams('a file', { touched: true }, { touched: true })).toEqual([]);
    expect(unconfirmedParams('a file', { touched: true }, {})[0]).toMatch(/touched/);
    expect(unconfirmedParams('a record with files', { files: [{}, {}] }, { fileIds: [4, 5] })).toEqual([]);
    expect(unconfirmedParams('a file', { linked: true }, { parentDomain: 'Claim', parentId: 4 })).toEqual([]);
    expect(unconfirmedParams('a file', { linked: true }, { parentDomain: 'Claim' })[0]).toMatch(/no `parentId`/);
  });

  it('a 400 is allowed only to a param marked x-may-refuse, away from its default', () => {
    expect(allowedRefusal('records', { count: 3, domain: 'File' })).toMatch(
      /^provider state 'records' refused \(400\) its param `domain` = "File"/,
    );
    expect(allowedRefusal('records', { count: 3, domain: 'Claim' })).toBeUndefined();
    expect(allowedRefusal('a file', { kind: 'internal' })).toBeUndefined();
  });
});

describe('a setup answer read by a test', () => {
  const answer: Record<string, unknown> = {
    proposalId: 7,
    type: 'Quote',
    scheduleDomain: '',
    locationIds: [1],
    scheduleKey: 'K',
  };

  it('gives a valid value as it is', () => {
    const v = guardedValues('a proposal', { ...answer }, '1.1.0');
    expect(v.proposalId).toBe(7);
    expect(v.locationIds).toEqual([1]);
    expect(v.scheduleKey).toBe('K');
  });

  it('ends the test precondition-failed on an empty or missing required value, naming state, value and version', () => {
    const v = guardedValues('a proposal', { ...answer }, '1.1.0');
    expect(() => v.scheduleDomain).toThrow(PreconditionFailedError);
    expect(() => v.scheduleDomain).toThrow(/'a proposal'.*`scheduleDomain` \(since 1\.0\.0\)/);
    expect(() => v.applicantName).toThrow(/answered no `applicantName`, a required value \(since 1\.0\.0\)/);
    expect(() => guardedValues('a proposal', { proposalId: '7' }, '1.1.0').proposalId).toThrow(PreconditionFailedError);
  });

  it('gives undefined for a missing optional value (recorded as missing), and a newer value only when it is there', () => {
    const optional: Record<string, unknown> = { ...answer, scheduleKey: undefined };
    const missing: string[] = [];
    expect(
      guardedValues('a proposal', optional, '1.1.0', undefined, (m) => missing.push(m)).scheduleFilter,
    ).toBeUndefined();
    expect(missing).toEqual(['a proposal.scheduleFilter']);
    // an endpoint that declares 1.0.0 (or nothing) but answers a newer value, valid, whose meaning never
    // changed: the value is used (never weaker without a word)
    const old = guardedValues('a proposal', { ...answer }, '1.0.0');
    expect(old.scheduleKey).toBe('K');
    // absent: the test needs a newer protocol, and the need names every newer value the answer lacks
    const without = guardedValues('a proposal', { ...answer, scheduleKey: undefined }, '1.0.0');
    expect(() => without.scheduleKey).toThrow(ProtocolNeedError);
    expect(() => without.scheduleKey).toThrow(NotApplicableError);
    expect(() => without.scheduleKey).toThrow(
      /needs provider-state protocol 1\.1\.0: value `scheduleKey` of `a proposal`.*; it also lacks value `scheduleFilter` of `a proposal` \(1\.1\.0\)/,
    );
    // present but not valid for its schema: not used from an older endpoint either
    const invalid = guardedValues('a proposal', { ...answer, scheduleKey: 7 }, '1.0.0');
    expect(() => invalid.scheduleKey).toThrow(ProtocolNeedError);
  });

  it('never reads a newer value whose meaning changed between versions (x-changelog `changed`)', () => {
    expect(meaningChanged('records', 'sometimesNullField')).toBe(true);
    expect(meaningChanged('records', 'sparseAt')).toBe(true);
    expect(meaningChanged('a proposal', 'scheduleKey')).toBe(false);
    // sparseAt is newer than 1.0.0 and named in a `changed` entry: an older endpoint's answer is not read
    const recs = guardedValues('records', { domain: 'Claim', sparseAt: 1 } as Record<string, unknown>, '1.0.0');
    expect(() => recs.sparseAt).toThrow(ProtocolNeedError);
  });

  it('records every value read, and lets promises and unknown keys through untouched', async () => {
    const used: string[] = [];
    const v = guardedValues('a proposal', { ...answer }, '1.1.0', (u) => used.push(u));
    void v.proposalId;
    void (v as Record<string, unknown>).somethingElse;
    expect(await Promise.resolve(v)).toBe(v); // `then` is not a value: the answer is no thenable
    expect(used).toEqual(['a proposal.proposalId']);
  });
});
