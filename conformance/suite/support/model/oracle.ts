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
  fields: LocFields;
  state: RecordState;
}

export interface LinkSlot {
  parent: number;
  contact: number;
}

export interface Model {
  flavour: Flavour;
  kind: ProposalKind;
  /** Every record the model has seen, in creation order. */
  records: ScheduleRecord[];
  /** Inserted records whose IDs the answer did not give (an atomic batch may leave them out). */
  untracked: number;
  /** Linked (parent, contact) pairs, as `p:c`. */
  links: Set<string>;
  parents: number;
  contacts: number;
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

export function newModel(flavour: Flavour, kind: ProposalKind, initial: Array<{ id: number; fields: LocFields }>) {
  const m: Model = {
    flavour,
    kind,
    records: initial.map((r) => ({ ...r, fields: { ...r.fields }, state: 'active' as RecordState })),
    untracked: 0,
    links: new Set(),
    parents: 2,
    contacts: 3,
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
  /** undefined = the isAtomic parameter left out (non-atomic, SCHED-013). */
  atomic: boolean | undefined;
  inserts: InsertKind[];
  updates: Array<{ pick: number; kind: UpdateKind }>;
  deletes: number[];
}

export interface ResolvedBatch {
  atomic: boolean | undefined;
  inserts: Array<{ kind: InsertKind; fields: Partial<LocFields> }>;
  updates: Array<{ kind: UpdateKind; id: number; fields: Partial<LocFields> }>;
  deletes: Array<{ id: number }>;
}

/** IDs a new record must not get: those of records that may still exist (soft-deleted included). */
export function takenIds(m: Model): Set<number> {
  return new Set(m.records.filter((r) => r.state === 'active' || r.state === 'soft-deleted').map((r) => r.id));
}

export function activeRecords(m: Model): ScheduleRecord[] {
  return m.records.filter((r) => r.state === 'active');
}

function freshFields(m: Model, what: string): LocFields {
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
  const pool = activeRecords(m).map((r) => r.id);
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
  return { atomic: spec.atomic, inserts, updates, deletes };
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
      return;
    }
    // The spec does not say IDs of deleted records are never given again: a new record replaces it.
    m.records = m.records.filter((x) => x.id !== id);
    m.records.push({ id, fields: it.fields as LocFields, state: 'active' });
  });
  for (const u of b.updates) {
    if (u.kind !== 'valid') continue;
    const r = m.records.find((x) => x.id === u.id)!;
    r.fields = { ...r.fields, ...u.fields };
  }
  for (const d of b.deletes) m.records.find((x) => x.id === d.id)!.state = deletedState(m, 'batch');
}

// ------------------------------------------------------------------------- DELETE and Reinstate

export function applyDelete(m: Model, id: number) {
  m.records.find((x) => x.id === id)!.state = deletedState(m, 'single');
}

/**
 * Reinstate of a record: a soft-deleted record becomes active with its values (SCHED-021); a
 * permanently deleted one is refused and stays gone (SCHED-022). Other cases are the reference's
 * choice (SCHED-024: refused with 409) and are only generated in the reference flavour.
 */
export function reinstateOutcome(r: ScheduleRecord): 'restored' | 'refused' | 'unknown' {
  if (r.state === 'soft-deleted') return 'restored';
  if (r.state === 'deleted' || r.state === 'active') return 'refused';
  return 'unknown';
}

export function applyReinstate(r: ScheduleRecord) {
  if (r.state === 'soft-deleted') r.state = 'active';
}

/** Records a Reinstate step may name in this flavour. */
export function reinstateCandidates(m: Model): ScheduleRecord[] {
  return m.records.filter((r) =>
    m.flavour === 'reference' ? r.state !== 'unknown' : r.state === 'soft-deleted' || r.state === 'deleted',
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

// ------------------------------------------------------------------------- links

export const slotKey = (s: LinkSlot) => `${s.parent}:${s.contact}`;

/**
 * The relationship a (parent, contact) link is always upserted and removed with: fixed per pair,
 * so the model does not depend on whether the relationship is part of a link's identity (not
 * shown). Some pairs have none; one contact has different relationships to the two parents (2.3:
 * "The same contact can be linked to many parents with different relationships").
 */
export function relationshipIndex(s: LinkSlot): number | undefined {
  const k = (s.parent + 2 * s.contact) % 3;
  return k === 0 ? undefined : k - 1;
}

/** Upsert creates the link or updates the existing one: afterwards exactly one link (LINK-013/014). */
export function applyLinkUpsert(m: Model, s: LinkSlot) {
  m.links.add(slotKey(s));
}

/** Remove deletes an existing link (LINK-015); removing a link that is not there changes nothing. */
export function applyLinkRemove(m: Model, s: LinkSlot): boolean {
  return m.links.delete(slotKey(s));
}

/** The parents each contact must be linked to, exactly once each. */
export function linkedParents(m: Model, contact: number): number[] {
  const out: number[] = [];
  for (let p = 0; p < m.parents; p++) if (m.links.has(slotKey({ parent: p, contact }))) out.push(p);
  return out;
}
