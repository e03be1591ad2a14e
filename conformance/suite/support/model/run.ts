// Runs the model-based property: fast-check generates sequences of steps (commands.ts), each run
// on fresh provider states (a proposal with three ProposalLocation records, two link parents, three
// contacts), and the model (oracle.ts) judges every answer and read-back. The run is bounded
// (numRuns, maxCommands, a time limit) and reproducible: the seed is the run's --seed. A failure
// throws one error whose message holds the seed, the shrunk counterexample and the concrete steps
// of that counterexample (IDs, bodies, answers), which is what results.json and report.html show.
import fc from 'fast-check';
import { BlockedError, PreconditionFailedError, TargetError } from '../../../src/suite-api/dsl.js';
import type { Ctx } from '../request.js';
import { deleteSchedule, readRecord, scheduleSet } from '../schedules.js';
import { blamed, interruptedUnjudged } from './blame.js';
import { commandArbitraries } from './commands.js';
import { checkSchedules, type Real } from './read-back.js';
import { curlCommand, TOKEN_VAR } from '../../../src/report/curl.js';
import type { Exchange } from '../../../src/suite-api/client.js';
import { applyLinkUpsert, relationshipIndex, slotKey, type LinkSlot } from './links-oracle.js';
import { expect } from 'vitest';
import { isRefusal } from '../../../src/suite-api/meaning.js';
import { mergeCoverage, newCoverage, SequenceTally, type ModelCoverage } from './coverage.js';
import { makeUsers, type Users } from './users.js';
import {
  LOC_FIELD_NAMES,
  applyDelete,
  newModel,
  type Flavour,
  type LocFields,
  type Model,
  type ProposalKind,
} from './oracle.js';

export interface ModelRunOptions {
  flavour: Flavour;
  /**
   * The requirements the test names. A failed check blamed on one of them (blame.ts) fails that
   * one and blocks the others (a BlockedError naming it); any other failure fails the test.
   */
  judges: readonly string[];
  numRuns: number;
  maxCommands: number;
  /** Stop generating (and shrinking) after this long; what was found so far is reported. */
  timeLimitMs: number;
  /**
   * Independent checks run at once, each of numRuns / shards runs on states of its own, check i
   * seeded with seed + i. The steps of one sequence depend on each other (the model judges each
   * after the one before), so a sequence is a chain of requests; running several at once keeps the
   * chain of the whole test to one check's (the run's critical path over a slow network).
   */
  shards?: number;
}

const OTHER_KINDS: ProposalKind[] = ['Quote', 'Application', 'Renewal', 'Rewrite', 'Reissue'];

/** Error classes that are not a wrong answer of the service: rethrown as they are. */
const PASS_THROUGH = new Set([
  'PreconditionFailedError',
  'TargetError',
  'NotApplicableError',
  'TimeoutError',
  // a step the model relies on but does not judge (reading a record back): blocked by its requirement
  'BlockedError',
]);

class ModelCheckError extends Error {
  override name = 'AssertionError';
}

/** The run's users by the parents' domain: made once (their grants name only domains), shared by every sequence. */
type UserPool = Map<string, Promise<Users>>;

async function setUp(
  t: Ctx,
  flavour: Flavour,
  kind: ProposalKind,
  relationships: string[],
  pool: UserPool,
  coverage: ModelCoverage,
) {
  // two proposals of one type (a record of one named through the other's path), two parents of one
  // domain (a Remove naming one of them by match field), three contacts; states and reads at once
  const [proposals, linkParents, contactStates] = await Promise.all([
    Promise.all([0, 1].map(() => t.given('a proposal', { type: kind, locations: 3 }))),
    Promise.all([0, 1].map(() => t.given('a link parent'))),
    Promise.all([0, 1, 2].map(() => t.given('a contact'))),
  ]);
  const real: Real = {
    t,
    proposals: proposals.map((p) => ({
      proposalId: p.proposalId,
      scheduleDomain: p.scheduleDomain,
      ...(p.scheduleKey ? { scheduleKey: p.scheduleKey } : {}),
      values: p,
    })),
    parents: linkParents.map((lp) => ({
      domain: lp.domain,
      domainId: lp.domainId,
      id: lp.id,
      textMatchField: lp.textMatchField,
      textMatchKey: lp.textMatchKey,
    })),
    contacts: contactStates.map((c) => c.contactId),
    relationships,
    users: undefined as unknown as Users,
    tally: new SequenceTally(coverage),
    log: [],
  };
  if (real.parents[0].domain !== real.parents[1].domain)
    throw new PreconditionFailedError("two 'a link parent' states without params gave parents of two domains");
  const parentDomain = real.parents[0].domain;
  if (parentDomain === 'Contact')
    throw new PreconditionFailedError(
      "'a link parent' gave a Contact parent: the users' grants on it and on the child would be one",
    );
  if (!pool.has(parentDomain)) pool.set(parentDomain, makeUsers(t, parentDomain));
  real.users = await pool.get(parentDomain)!;
  const initial = (
    await Promise.all(
      real.proposals.flatMap((p, proposal) =>
        p.values.locationIds.map(async (id) => {
          const rec = await readRecord(t, p, id, LOC_FIELD_NAMES);
          if (!rec) throw new PreconditionFailedError(`schedule record ${id} of the proposal state cannot be read`);
          return { id, proposal, fields: rec as unknown as LocFields };
        }),
      ),
    )
  ).flat();
  // the first listing of each proposal, before any step: it must hold every record the state made
  // (scheduleSet checks that only on a proposal's first listing)
  await Promise.all(
    real.proposals.map((p) => (p.values.scheduleFilter && p.values.scheduleKey ? scheduleSet(t, p.values) : undefined)),
  );
  const model: Model = newModel(flavour, kind, initial);
  // the links a run starts with: contact 0 linked to both parents, contact 1 to the first (a step
  // on one link of a contact linked to several parents meets the others at once)
  await linkAtStart(real, model);
  // an Endorsement run starts with a soft-deleted record (a Reinstate, right or through the wrong
  // proposal, and its repetition, have something to name from the first step)
  if (kind === 'Endorsement') await deleteAtStart(real, model);
  real.log.push(
    `proposals (${kind}) ${real.proposals.map((p) => `${p.proposalId}: records ${p.values.locationIds.join(', ')}`).join('; ')}; parents ${real.parents
      .map((x) => `${x.domain}/${x.id} (${x.textMatchField}=${x.textMatchKey})`)
      .join(', ')}; contacts ${real.contacts.join(', ')}`,
  );
  return { model, real };
}

/** The links every run starts with, made through Link/Upsert (a step the model needs: LINK-013). */
const START_LINKS: LinkSlot[] = [
  { parent: 0, contact: 0 },
  { parent: 1, contact: 0 },
  { parent: 0, contact: 1 },
];

async function linkAtStart(real: Real, model: Model): Promise<void> {
  for (const slot of START_LINKS) {
    const rel = relationshipIndex(slot);
    const p = real.parents[slot.parent];
    await real.t.needs('LINK-013', `link contact ${real.contacts[slot.contact]} to ${p.domain} ${p.id}`, async () => {
      const res = await real.t.links.upsert({
        parentDomain: p.domain,
        parentId: p.id,
        childDomain: 'Contact',
        childId: real.contacts[slot.contact],
        ...(rel === undefined ? {} : { relationship: real.relationships[rel] }),
      });
      expect(isRefusal(res), `Link/Upsert: ${res.status} ${res.text.slice(0, 200)}`).toBe(false);
    });
    applyLinkUpsert(model.links, slot);
  }
  real.log.push(`links at the start (Link/Upsert): ${START_LINKS.map(slotKey).join(', ')} (parent:contact)`);
}

async function deleteAtStart(real: Real, model: Model): Promise<void> {
  const p = real.proposals[0];
  const id = p.values.locationIds[0];
  await real.t.needs('SCHED-019', `soft-delete record ${id} of Endorsement ${p.proposalId}`, async () => {
    const res = await deleteSchedule(real.t, p.proposalId, p.scheduleDomain, id);
    expect(res.body, `DELETE ${id}: ${res.status}`).toMatchObject({ IsSuccessful: true, RecordID: id });
  });
  applyDelete(model, id);
  real.log.push(`soft-deleted at the start (DELETE): record ${id} of proposal ${p.proposalId}`);
  // what the interface shows of it now is what later steps must leave as it is (read-back.ts)
  await checkSchedules(model, real, 'SCHED-019');
}

/**
 * The writes of one run as curl commands a person can replay (report/curl.ts): the requests of
 * this test that are not reads and name one of the run's own objects (its proposals in the path,
 * its contacts in the body), so the other checks running at once are left out.
 */
function replayLines(t: Ctx, real: Real): string[] {
  const auth = { header: t.bindings.tokenHeader, prefix: t.bindings.tokenPrefix };
  const ours = (x: Exchange) =>
    real.proposals.some((p) => x.url.includes(`/Proposals/${p.proposalId}/`)) ||
    real.contacts.some((c) => new RegExp(`\\b${c}\\b`).test(x.requestBody ?? ''));
  return t.exchanges
    .filter((x) => x.method !== 'GET' && ours(x))
    .map((x) => `  ${curlCommand(x, auth).command.replace(/\n/g, '\n  ')}`);
}

export async function runModel(
  t: Ctx,
  o: ModelRunOptions,
): Promise<{ seed: number; runs: number; coverage: ModelCoverage }> {
  const seed = t.run.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rels = (await t.given('contact relationships')).relationships;
  if (!Array.isArray(rels) || rels.length < 2)
    throw new PreconditionFailedError("provider state 'contact relationships' gives fewer than two codes");
  // --model-runs: more sequences for a nightly run (the reference flavour makes half as many), with
  // the time limit scaled along (the test's own timeout is the run's --test-timeout)
  const scale = t.run.modelRuns !== undefined ? t.run.modelRuns / 8 : 1;
  o = { ...o, numRuns: Math.max(1, Math.round(o.numRuns * scale)), timeLimitMs: o.timeLimitMs * Math.max(1, scale) };
  const shards = Math.max(1, Math.min(o.shards ?? 1, o.numRuns));
  const pool: UserPool = new Map();
  const tallies = Array.from({ length: shards }, () => newCoverage());
  const checks = await Promise.all(
    Array.from({ length: shards }, (_, i) =>
      check(t, o, {
        runSeed: seed,
        seed: seed + i,
        numRuns: Math.ceil(o.numRuns / shards),
        rels,
        which: shards > 1 ? ` (check ${i + 1} of ${shards}, seeded ${seed} + ${i})` : '',
        pool,
        coverage: tallies[i],
      }),
    ),
  );
  // what the sequences drew, kept whatever the verdict (results.json `modelCoverage`)
  const coverage = mergeCoverage(tallies);
  t.modelCoverage(coverage);
  // the first failing check decides; the others passed or failed on their own sequences
  const failed = checks.find((c) => c.failed);
  if (failed) throw failed.error;
  return { seed, runs: checks.reduce((n, c) => n + c.runs, 0), coverage };
}

/** One fast-check run of `numRuns` sequences from `seed`. */
async function check(
  t: Ctx,
  o: ModelRunOptions,
  {
    runSeed,
    seed,
    numRuns,
    rels,
    which,
    pool,
    coverage,
  }: {
    runSeed: number;
    seed: number;
    numRuns: number;
    rels: string[];
    which: string;
    pool: UserPool;
    coverage: ModelCoverage;
  },
): Promise<{ failed: false; runs: number } | { failed: true; runs: number; error: Error }> {
  let failingLog: string[] = [];
  let failingReplay: string[] = [];
  const kind = fc.oneof(
    { weight: 4, arbitrary: fc.constant<ProposalKind>('Endorsement') },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_KINDS) },
  );
  const property = fc.asyncProperty(
    kind,
    // size 'max': sequences up to maxCommands long (the default size keeps them much shorter)
    fc.commands(commandArbitraries(), { maxCommands: o.maxCommands, size: 'max' }),
    async (k, cmds) => {
      const s = await setUp(t, o.flavour, k, rels, pool, coverage);
      try {
        await fc.asyncModelRun(() => s, cmds);
      } catch (e) {
        failingLog = s.real.log;
        failingReplay = replayLines(t, s.real);
        throw e;
      }
    },
  );
  const out = await fc.check(property, {
    seed,
    numRuns,
    interruptAfterTimeLimit: o.timeLimitMs,
    // --skip-shrink: the verdict without the search for a shorter counterexample (each shrink step
    // runs sequences against the target again: 6 steps took a fault's run from ~5 s to 23 s)
    endOnFailure: t.run.skipShrink === true,
  });
  if (!out.failed) return { failed: false, runs: out.numRuns };
  // fast-check counts a run its time limit interrupted before any sequence ended as failed: that is
  // a slow target (no latency is a requirement), never a failure of the interface, and no pass
  // either (no sequence was judged): the test ends `error`, with what to change
  if (interruptedUnjudged(out))
    return {
      failed: true,
      runs: out.numRuns,
      error: new TargetError(
        `model-based run${which} interrupted by its time limit (${Math.round(o.timeLimitMs / 1000)} s) before any sequence ended (seed ${runSeed}): the target answered too slowly for it, which is no verdict on the interface (a quieter machine, or a nearer target)`,
      ),
    };
  const cause = out.errorInstance as Error | undefined;
  const [k, cmds] = out.counterexample ?? [];
  const message = [
    `model-based run failed${which} (seed ${runSeed}: repeat with --seed ${runSeed}; ${out.numRuns} run(s), ${out.numShrinks} shrink(s))`,
    `cause: ${cause?.message ?? String(cause)}`,
    `${t.run.skipShrink ? 'counterexample (not shrunk: --skip-shrink)' : 'shrunk counterexample'}: proposal type ${String(k)}; steps ${String(cmds)}`,
    'steps of the counterexample as sent:',
    ...failingLog.map((l) => `  ${l}`),
    `the writes of the counterexample as curl commands (set $${TOKEN_VAR}; the provider states are not included):`,
    ...failingReplay,
  ].join('\n');
  const requirement = blamed(cause);
  if (requirement && o.judges.includes(requirement)) {
    const step = `a generated sequence, judged by ${requirement}`;
    return {
      failed: true,
      runs: out.numRuns,
      error: new BlockedError(requirement, step, `blocked by ${requirement}: ${message}`),
    };
  }
  if (cause && PASS_THROUGH.has(cause.name)) {
    try {
      cause.message = message;
    } catch {
      /* read-only */
    }
    return { failed: true, runs: out.numRuns, error: cause };
  }
  return { failed: true, runs: out.numRuns, error: new ModelCheckError(message) };
}
