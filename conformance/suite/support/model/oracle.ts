// The oracle of the model-based tests: a small model of one proposal's ProposalLocation schedule
// records and of the links between a few contacts and parents, written from the spec alone
// (2.3, 2.5, 3, 4.4, 4.5). It knows nothing about HTTP: commands.ts runs the same steps against the
// service and compares the answers and what the interface shows with what this model predicts.
//
// What the model claims is kept to what the spec documents (the `core` rules). Where the spec
// leaves a choice open, the model says "unknown" unless the `reference` flavour is asked for,
// which adds the reference server's documented choices (profile implementation-defined):
//   - a Deletes item of UpsertMulti on an Endorsement proposal: core does not say whether it is a
//     soft delete (spec 3 names the single DELETE); the reference soft-deletes it;
//   - a soft-deleted record: core does not say what a read shows; the reference answers 404;
//   - an atomic batch without failure: core does not say which items the answer lists; the
//     reference lists every item (SCHED-027).

// Endorsement deletes softly; the other five delete permanently (spec 3).
export type ProposalKind = 'Endorsement' | 'Quote' | 'Application' | 'Renewal' | 'Rewrite' | 'Reissue';
export type Flavour = 'core' | 'reference';

/** The ProposalLocation fields the spec names (2.5); LocationName is required. */
export interface LocFields {
  LocationName: string;
  Address1: string;
  City: string;
  StateCode: string;
  ZipCode: string;
}
export const LOC_FIELD_NAMES = ['LocationName', 'Address1', 'City', 'StateCode', 'ZipCode'] as const;

/**
 * active: readable with its fields. soft-deleted: DELETE on an Endorsement (reinstatable).
 * deleted: permanently deleted (not readable, not reinstatable). unknown: deleted in a way whose
 * effect core does not document (a batch delete on an Endorsement): no claim is made about it.
 */
export type RecordState = 'active' | 'soft-deleted' | 'deleted' | 'unknown';

export interface ScheduleRecord {
  id: number;
  /** The proposal it belongs to (0 or 1: the model runs two proposals of one type). */
  proposal: number;
  fields: LocFields;
  state: RecordState;
  /** Restored by a Reinstate once already: a second Reinstate of it is a repetition (nothing may change). */
  reinstated?: boolean;
  /**
   * What a read by ID showed while the model makes no claim about it (soft-deleted, unknown):
   * the spec does not say what it shows, but a step that does not name the record through its own
   * proposal must not change it, so every later read must show the same.
   */
  seenRead?: string;
  /** The same for the proposal's listing: whether it listed the record (and with which values). */
  seenListed?: string;
}

export interface Model {
  flavour: Flavour;
  kind: ProposalKind;
  /** Every record the model has seen, in creation order. */
  records: ScheduleRecord[];
  /** Inserted records whose IDs the answer did not give (an atomic batch may leave them out). */
  untracked: number;
  /**
   * Their values, by proposal: a listing of the proposal's records that shows a record the model
   * does not know adopts it when it holds the values of such an insert (values are unique per run).
   */
  pendingInserts: Array<{ proposal: number; fields: LocFields }>;
  /** Linked (parent, contact) pairs, as `p:c` (links-oracle.ts). */
  links: Set<string>;
  /** Counter for distinct field values (deterministic for a seed). */
  seq: number;
  /**
   * The arrays of a batch answer (Inserts, Updates, Deletes) whose OrderNumbers an answer listing
   * every item has shown to be the items' indexes (SCHED-003). A partial listing (an atomic batch)
   * names its items by OrderNumber alone: a listing that differs would be a wrong listing or a wrong
   * numbering, which that answer cannot tell apart, so the model sends one only once the numbering
   * is shown (BatchCommand.check).
   */
  ordersShown: Set<BatchArray>;
}

export type BatchArray = 'Inserts' | 'Updates' | 'Deletes';

export function newModel(
  flavour: Flavour,
  kind: ProposalKind,
  initial: Array<{ id: number; proposal: number; fields: LocFields }>,
) {
  const m: Model = {
    flavour,
    kind,
    records: initial.map((r) => ({ ...r, fields: { ...r.fields }, state: 'active' as RecordState })),
    untracked: 0,
    pendingInserts: [],
    links: new Set(),
    seq: 0,
    ordersShown: new Set(),
  };
  return m;
}

// ------------------------------------------------------------------------- schedule batches

/** Generated shape of an UpsertMulti item, resolved against the model when the step runs. */
type InsertKind = 'valid' | 'missing-name';
type UpdateKind = 'valid' | 'empty-name';
export interface BatchSpec {
  /** The proposal whose path the batch is sent to (0 or 1). */
  proposal: number;
  /** undefined = the isAtomic parameter left out (non-atomic, SCHED-013). */
  atomic: boolean | undefined;
  inserts: InsertKind[];
  updates: Array<{ pick: number; kind: UpdateKind }>;
  deletes: number[];
}

export interface ResolvedBatch {
  proposal: number;
  atomic: boolean | undefined;
  inserts: Array<{ kind: InsertKind; fields: Partial<LocFields> }>;
  updates: Array<{ kind: UpdateKind; id: number; fields: Partial<LocFields> }>;
  deletes: Array<{ id: number }>;
}

/** IDs a new record must not get: those of records that may still exist (soft-deleted included). */
export function takenIds(m: Model): Set<number> {
  return new Set(m.records.filter((r) => r.state === 'active' || r.state === 'soft-deleted').map((r) => r.id));
}

/** The active records, of one proposal when `proposal` is given. */
export function activeRecords(m: Model, proposal?: number): ScheduleRecord[] {
  return m.records.filter((r) => r.state === 'active' && (proposal === undefined || r.proposal === proposal));
}

/** A record changes state: what was seen of it while the model made no claim no longer holds. */
function setState(r: ScheduleRecord, state: RecordState) {
  if (r.state === state) return;
  r.state = state;
  delete r.seenRead;
  delete r.seenListed;
}

export function freshFields(m: Model, what: string): LocFields {
  const n = ++m.seq;
  return {
    LocationName: `M${n} ${what}`,
    Address1: `${n} Model Street`,
    City: `City ${n}`,
    StateCode: ['CA', 'NY', 'TX', 'WA'][n % 4],
    ZipCode: String(10000 + n),
  };
}

/** Takes the `pick`-th (modulo) of `pool`, removing it, so one batch never names a record twice. */
function take<T>(pool: T[], pick: number): T | undefined {
  if (pool.length === 0) return undefined;
  return pool.splice(pick % pool.length, 1)[0];
}

/**
 * Turns the generated batch into concrete items. Updates and deletes name distinct active records
 * (an update and a delete of one record in one batch would depend on an order the spec does not
 * give); items that find no record are dropped. Invalid items are the documented ones (4.5 rule 6):
 * an insert without LocationName, an update of LocationName to empty.
 */
export function resolveBatch(m: Model, spec: BatchSpec): ResolvedBatch {
  const pool = activeRecords(m, spec.proposal).map((r) => r.id);
  const updates: ResolvedBatch['updates'] = [];
  for (const u of spec.updates) {
    const id = take(pool, u.pick);
    if (id === undefined) break;
    // A valid update sends all five fields, so replace and merge semantics give the same record.
    updates.push({
      kind: u.kind,
      id,
      fields: u.kind === 'valid' ? freshFields(m, `upd ${id}`) : { LocationName: '' },
    });
  }
  const deletes: ResolvedBatch['deletes'] = [];
  for (const d of spec.deletes) {
    const id = take(pool, d);
    if (id === undefined) break;
    deletes.push({ id });
  }
  const inserts = spec.inserts.map((kind) => {
    const f = freshFields(m, 'ins');
    if (kind === 'valid') return { kind, fields: f };
    const { LocationName: _drop, ...rest } = f;
    return { kind, fields: rest };
  });
  return { proposal: spec.proposal, atomic: spec.atomic, inserts, updates, deletes };
}

/** The arrays of a resolved batch that hold items. */
export function filledArrays(b: ResolvedBatch): BatchArray[] {
  const out: BatchArray[] = [];
  if (b.inserts.length) out.push('Inserts');
  if (b.updates.length) out.push('Updates');
  if (b.deletes.length) out.push('Deletes');
  return out;
}

/** The predicted result of one item: its position, outcome and RecordID ('new' = a fresh ID). */
export interface Expected {
  order: number;
  ok: boolean;
  recordId: number | 'new';
}

export interface BatchExpectation {
  anyFails: boolean;
  inserts: Expected[];
  updates: Expected[];
  deletes: Expected[];
  /**
   * all: every item is answered (non-atomic, SCHED-012). failed-only: exactly the failed items
   * (atomic with a failure, SCHED-015). successful-subset: core does not say which items an atomic
   * batch without failure answers; any answered item is successful (the reference: all, SCHED-027).
   */
  answered: 'all' | 'failed-only' | 'successful-subset';
}

export function expectBatch(m: Model, b: ResolvedBatch): BatchExpectation {
  const inserts = b.inserts.map((it, order) => ({
    order,
    ok: it.kind === 'valid',
    recordId: it.kind === 'valid' ? ('new' as const) : 0,
  }));
  const updates = b.updates.map((it, order) => ({ order, ok: it.kind === 'valid', recordId: it.id }));
  const deletes = b.deletes.map((it, order) => ({ order, ok: true, recordId: it.id }));
  const anyFails = [...inserts, ...updates, ...deletes].some((x) => !x.ok);
  const answered =
    b.atomic !== true ? 'all' : anyFails ? 'failed-only' : m.flavour === 'reference' ? 'all' : 'successful-subset';
  return { anyFails, inserts, updates, deletes, answered };
}

/** The state a deleted record goes to (spec 3; core leaves a batch delete on an Endorsement open). */
function deletedState(m: Model, how: 'single' | 'batch'): RecordState {
  if (m.kind !== 'Endorsement') return 'deleted';
  if (how === 'single' || m.flavour === 'reference') return 'soft-deleted';
  return 'unknown';
}

/**
 * Applies a batch to the model. `newIds[i]` is the RecordID answered for insert i (undefined when
 * the answer left it out). Atomic with a failure: nothing changes (SCHED-014). Otherwise every
 * successful item is applied and the failed ones change nothing (SCHED-011, 016, 017).
 */
export function applyBatch(m: Model, b: ResolvedBatch, e: BatchExpectation, newIds: Array<number | undefined>) {
  if (b.atomic === true && e.anyFails) return;
  b.inserts.forEach((it, i) => {
    if (it.kind !== 'valid') return;
    const id = newIds[i];
    if (id === undefined) {
      m.untracked++;
      m.pendingInserts.push({ proposal: b.proposal, fields: it.fields as LocFields });
      return;
    }
    // The spec does not say IDs of deleted records are never given again: a new record replaces it.
    m.records = m.records.filter((x) => x.id !== id);
    m.records.push({ id, proposal: b.proposal, fields: it.fields as LocFields, state: 'active' });
  });
  for (const u of b.updates) {
    if (u.kind !== 'valid') continue;
    const r = m.records.find((x) => x.id === u.id)!;
    r.fields = { ...r.fields, ...u.fields };
  }
  for (const d of b.deletes)
    setState(
      m.records.find((x) => x.id === d.id)!,
      deletedState(m, 'batch'),
    );
}

/**
 * A record of the listing the model does not know: adopted when it holds the values of an insert
 * whose ID the answer left out (then it is that insert's record), else undefined.
 */
export function adoptListed(m: Model, proposal: number, id: number, fields: unknown): ScheduleRecord | undefined {
  const i = m.pendingInserts.findIndex(
    (p) => p.proposal === proposal && JSON.stringify(p.fields) === JSON.stringify(fields),
  );
  if (i < 0) return undefined;
  const [p] = m.pendingInserts.splice(i, 1);
  const rec: ScheduleRecord = { id, proposal, fields: p.fields, state: 'active' };
  m.records = m.records.filter((x) => x.id !== id);
  m.records.push(rec);
  return rec;
}

// ------------------------------------------------------------------------- DELETE and Reinstate

export function applyDelete(m: Model, id: number) {
  setState(
    m.records.find((x) => x.id === id)!,
    deletedState(m, 'single'),
  );
}

/**
 * Reinstate of a record: a soft-deleted record becomes active with its values (SCHED-021); a
 * permanently deleted one is refused and stays gone (SCHED-022). Other cases are the reference's
 * choice (SCHED-024: refused with 409) and are only generated in the reference flavour.
 */
export function reinstateOutcome(m: Model, r: ScheduleRecord): 'restored' | 'refused' | 'unknown' {
  if (r.state === 'soft-deleted') return 'restored';
  if (r.state === 'deleted') return 'refused';
  // a repeated Reinstate of a restored record: the spec gives no answer (the reference: 409,
  // SCHED-024), only that nothing changes (no copy, no other record touched)
  if (r.state === 'active') return m.flavour === 'reference' ? 'refused' : 'unknown';
  return 'unknown';
}

export function applyReinstate(r: ScheduleRecord) {
  if (r.state !== 'soft-deleted') return;
  setState(r, 'active');
  r.reinstated = true;
}

/**
 * Records a Reinstate step may name in this flavour: soft-deleted and deleted ones, and restored
 * ones again (a repetition, which must change nothing); in the reference any record but those in
 * an unknown state.
 */
export function reinstateCandidates(m: Model): ScheduleRecord[] {
  return m.records.filter((r) =>
    m.flavour === 'reference'
      ? r.state !== 'unknown'
      : r.state === 'soft-deleted' || r.state === 'deleted' || (r.state === 'active' && r.reinstated === true),
  );
}

/** What a read by ID must show: the fields, 'absent', or undefined (no claim). */
export function expectedRead(m: Model, r: ScheduleRecord): LocFields | 'absent' | undefined {
  switch (r.state) {
    case 'active':
      return r.fields;
    case 'deleted':
      return 'absent';
    case 'soft-deleted':
      return m.flavour === 'reference' ? 'absent' : undefined;
    case 'unknown':
      return undefined;
  }
}
