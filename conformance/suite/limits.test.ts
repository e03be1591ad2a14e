// LIM-*: limits the spec leaves open ("Rate limits and maximum body sizes: not shown"), so every
// test here is implementation-defined and asserts the reference's choices (architecture section 2).
import { expect } from 'vitest';
import { conformance } from '../src/suite-api/dsl.js';
import { type Ctx, enc } from './support/request.js';
import { expectProblem } from './support/problem.js';
import type { components } from '../../spec/generated/openapi.js';
import type { ProviderStates } from '../../spec/generated/provider-states.js';

type Proposal = ProviderStates['a proposal']['values'];
type ListEnvelope = components['schemas']['ListEnvelope'];
type RecordEnvelope = components['schemas']['RecordEnvelope'];
type UpsertMultiResponse = components['schemas']['UpsertMultiResponse'];

const MB = 1024 * 1024;

/** Number of schedule records of a proposal (reference filter grammar and TotalCount). */
async function scheduleCount(t: Ctx, domain: string, proposalId: number): Promise<number> {
  const res = await t.raw(
    `/api/${enc(domain)}/Query?filter=${enc(`ProposalID:eq:${proposalId}`)}&includeTotalCount=true&take=1`,
  );
  expect(res.status, res.text.slice(0, 200)).toBe(200);
  return (res.json as ListEnvelope).TotalCount ?? Number.NaN;
}

function upsertMulti(t: Ctx, p: Pick<Proposal, 'proposalId' | 'scheduleDomain'>, body: unknown) {
  return t.raw(`/api/Quotes/Proposals/${p.proposalId}/Schedules/${enc(p.scheduleDomain)}/UpsertMulti`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

conformance(
  {
    id: 'limits.reference-body-and-url-size',
    title: 'the reference refuses a body over 10 MB with 413 and a URL over 10,000 characters with 414',
    requirements: ['LIM-001', 'GEN-003'],
    profile: 'implementation-defined',
    mutates: true,
    timeoutMs: 60_000,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', locations: 1 });
    const before = await scheduleCount(t, p.scheduleDomain, p.proposalId);
    expect(before).toBe(1);

    // over 10 MB (over both 10,000,000 and 10 MiB)
    const huge = 'x'.repeat(Math.ceil(10.5 * MB));
    const big = await upsertMulti(t, p, {
      Inserts: [{ Fields: { [p.requiredField]: huge } }],
      Updates: [],
      Deletes: [],
    });
    expectProblem(big, 413, 'PayloadTooLarge', 'UpsertMulti with an 10.5 MB body');
    expect(await scheduleCount(t, p.scheduleDomain, p.proposalId)).toBe(before);

    const bigLink = await t.raw(t.bindings.paths.linkUpsert, {
      method: 'POST',
      body: JSON.stringify({
        ParentDomain: 'Claim',
        ParentRecordID: 1,
        ChildDomain: 'Contact',
        ChildRecordID: 1,
        Padding: huge,
      }),
    });
    expectProblem(bigLink, 413, 'PayloadTooLarge', 'Link/Upsert with an 10.5 MB body');

    // under the limit: not refused for size
    const nine = await t.raw(t.bindings.paths.linkUpsert, {
      method: 'POST',
      body: JSON.stringify({
        ParentDomain: 'NoSuchDomainXyz',
        ParentRecordID: 1,
        ChildDomain: 'Contact',
        ChildRecordID: 1,
        Padding: 'y'.repeat(9 * MB),
      }),
    });
    expect(nine.status, 'a 9 MB body is not refused for its size').not.toBe(413);

    // URL length
    const longUrl = `/api/Claim/Query?columns=${'A'.repeat(10_100)}`;
    expectProblem(await t.raw(longUrl), 414, 'UriTooLong', 'a 10,100+ character URL');
    const longRecordUrl = `/api/Claim/1?columns=${'B'.repeat(10_100)}`;
    expectProblem(await t.raw(longRecordUrl), 414, 'UriTooLong', 'a 10,100+ character URL (getRecord)');
    const shortish = await t.raw(`/api/Claim/Query?columns=${'C'.repeat(9_000)}`);
    expect(shortish.status, 'a 9,000 character URL is not refused for its length').not.toBe(414);
  },
);

conformance(
  {
    id: 'limits.reference-no-rate-limit',
    title: 'the reference has no rate limit: a burst of requests is served',
    requirements: ['LIM-001'],
    profile: 'implementation-defined',
  },
  async (t) => {
    const burst = await Promise.all(Array.from({ length: 80 }, () => t.raw('/api/Domains')));
    for (const r of burst) {
      expect(r.status).toBe(200);
    }
    expect(burst.filter((r) => r.status === 429)).toHaveLength(0);
  },
);

conformance(
  {
    id: 'limits.reference-upsert-multi-100-items',
    title: 'the reference accepts 100 items in one UpsertMulti call and refuses 101 with 413, changing nothing',
    requirements: ['LIM-002', 'GEN-003'],
    profile: 'implementation-defined',
    mutates: true,
    timeoutMs: 60_000,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', locations: 2 });
    const f = p.requiredField as string;
    const ins = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ Fields: { [f]: `${tag} ${i}` } }));

    // 101 inserts
    const r1 = await upsertMulti(t, p, { Inserts: ins(101, 'Over'), Updates: [], Deletes: [] });
    expectProblem(r1, 413, 'PayloadTooLarge', '101 inserts');
    expect(await scheduleCount(t, p.scheduleDomain, p.proposalId)).toBe(2);

    // 101 items over the three arrays
    const r2 = await upsertMulti(t, p, {
      Inserts: ins(99, 'Mixed'),
      Updates: [{ ID: p.locationIds[0], Fields: { [f]: 'Changed by an oversized batch' } }],
      Deletes: [{ ID: p.locationIds[1] }],
    });
    expectProblem(r2, 413, 'PayloadTooLarge', '99 inserts + 1 update + 1 delete');
    expect(await scheduleCount(t, p.scheduleDomain, p.proposalId)).toBe(2);
    const kept = await t.raw(`/api/${enc(p.scheduleDomain)}/${p.locationIds[0]}?columns=${enc(f)}`);
    expect(kept.status).toBe(200);
    expect((kept.json as RecordEnvelope).Record[f]).not.toBe('Changed by an oversized batch');
    expect((await t.raw(`/api/${enc(p.scheduleDomain)}/${p.locationIds[1]}`)).status).toBe(200);

    // exactly 100 is accepted
    const r3 = await upsertMulti(t, p, {
      Inserts: ins(98, 'Fits'),
      Updates: [{ ID: p.locationIds[0], Fields: { [f]: 'Changed by a full batch' } }],
      Deletes: [{ ID: p.locationIds[1] }],
    });
    expect(r3.status, r3.text.slice(0, 300)).toBe(200);
    const body = r3.json as UpsertMultiResponse;
    expect(body.Inserts).toHaveLength(98);
    expect(body.Updates).toHaveLength(1);
    expect(body.Deletes).toHaveLength(1);
    for (const item of [...body.Inserts, ...body.Updates, ...body.Deletes]) expect(item.IsSuccessful).toBe(true);
    expect(await scheduleCount(t, p.scheduleDomain, p.proposalId)).toBe(99);
  },
);
