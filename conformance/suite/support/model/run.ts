// Runs the model-based property: fast-check generates sequences of steps (commands.ts), each run
// on fresh provider states (a proposal with three ProposalLocation records, two link parents, three
// contacts), and the model (oracle.ts) judges every answer and read-back. The run is bounded
// (numRuns, maxCommands, a time limit) and reproducible: the seed is the run's --seed. A failure
// throws one error whose message holds the seed, the shrunk counterexample and the concrete steps
// of that counterexample (IDs, bodies, answers), which is what results.json and report.html show.
import fc from 'fast-check';
import { PreconditionFailedError } from '../../../src/suite-api/dsl.js';
import type { Ctx } from '../request.js';
import { readRecord } from '../schedules.js';
import { commandArbitraries, type Real } from './commands.js';
import { LOC_FIELD_NAMES, newModel, type Flavour, type LocFields, type Model, type ProposalKind } from './oracle.js';

export interface ModelRunOptions {
  flavour: Flavour;
  numRuns: number;
  maxCommands: number;
  /** Stop generating (and shrinking) after this long; what was found so far is reported. */
  timeLimitMs: number;
}

const OTHER_KINDS: ProposalKind[] = ['Quote', 'Application', 'Renewal', 'Rewrite', 'Reissue'];

/** Error classes that are not a wrong answer of the service: rethrown as they are. */
const PASS_THROUGH = new Set(['PreconditionFailedError', 'TargetError', 'NotApplicableError', 'TimeoutError']);

class ModelCheckError extends Error {
  override name = 'AssertionError';
}

async function setUp(t: Ctx, flavour: Flavour, kind: ProposalKind, relationships: string[]) {
  const p = await t.given('a proposal', { type: kind, locations: 3 });
  const initial: Array<{ id: number; fields: LocFields }> = [];
  for (const id of p.locationIds) {
    const rec = await readRecord(t, p.scheduleDomain, id, LOC_FIELD_NAMES);
    if (!rec) throw new PreconditionFailedError(`schedule record ${id} of the proposal state cannot be read`);
    initial.push({ id, fields: rec as unknown as LocFields });
  }
  const parents = [];
  for (let i = 0; i < 2; i++) {
    const lp = await t.given('a link parent');
    parents.push({ domain: lp.domain, domainId: lp.domainId, id: lp.id });
  }
  const contacts = [];
  for (let i = 0; i < 3; i++) contacts.push((await t.given('a contact')).contactId);
  const model: Model = newModel(flavour, kind, initial);
  const real: Real = {
    t,
    proposalId: p.proposalId,
    scheduleDomain: p.scheduleDomain,
    parents,
    contacts,
    relationships,
    log: [
      `proposal ${p.proposalId} (${kind}), records ${p.locationIds.join(', ')}; parents ${parents.map((x) => `${x.domain}/${x.id}`).join(', ')}; contacts ${contacts.join(', ')}`,
    ],
  };
  return { model, real };
}

export async function runModel(t: Ctx, o: ModelRunOptions): Promise<{ seed: number; runs: number }> {
  const seed = t.run.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rels = (await t.given('contact relationships')).relationships;
  if (!Array.isArray(rels) || rels.length < 2)
    throw new PreconditionFailedError('state "contact relationships" gives fewer than two codes');
  let failingLog: string[] = [];
  const kind = fc.oneof(
    { weight: 3, arbitrary: fc.constant<ProposalKind>('Endorsement') },
    { weight: 2, arbitrary: fc.constantFrom(...OTHER_KINDS) },
  );
  const property = fc.asyncProperty(
    kind,
    // size 'max': sequences up to maxCommands long (the default size keeps them much shorter)
    fc.commands(commandArbitraries(), { maxCommands: o.maxCommands, size: 'max' }),
    async (k, cmds) => {
      const s = await setUp(t, o.flavour, k, rels);
      try {
        await fc.asyncModelRun(() => s, cmds);
      } catch (e) {
        failingLog = s.real.log;
        throw e;
      }
    },
  );
  const out = await fc.check(property, {
    seed,
    numRuns: o.numRuns,
    interruptAfterTimeLimit: o.timeLimitMs,
  });
  if (!out.failed) return { seed, runs: out.numRuns };
  const cause = out.errorInstance as Error | undefined;
  const [k, cmds] = out.counterexample ?? [];
  const message = [
    `model-based run failed (seed ${seed}: repeat with --seed ${seed}; ${out.numRuns} run(s), ${out.numShrinks} shrink(s))`,
    `cause: ${cause?.message ?? String(cause)}`,
    `shrunk counterexample: proposal type ${String(k)}; steps ${String(cmds)}`,
    'steps of the counterexample as sent:',
    ...failingLog.map((l) => `  ${l}`),
  ].join('\n');
  if (cause && PASS_THROUGH.has(cause.name)) {
    try {
      cause.message = message;
    } catch {
      /* read-only */
    }
    throw cause;
  }
  throw new ModelCheckError(message);
}
