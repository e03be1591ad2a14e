// Schedules of a proposal (spec 2.5, 3, 4.5, 6, 7):
//   POST   /api/Quotes/Proposals/{proposalId}/Schedules/{domain}/UpsertMulti?isAtomic=
//   DELETE /api/Quotes/Proposals/{proposalId}/Schedules/{domain}/{scheduleId}
//   POST   /api/Quotes/Proposals/{proposalId}/Schedules/{domain}/{scheduleId}/Reinstate
//
// Implementation-defined choices of the reference (docs/architecture.md section 2):
// - a non-modifiable proposal: HTTP 409 with the documented result body (SCHED-025);
// - an atomic batch without failure lists every item (SCHED-027); with a failure, HTTP 200 and only
//   the failed items;
// - at most 100 items over the three arrays, else 413 PayloadTooLarge (LIM-002);
// - a domain that is not a schedule domain: 404 InvalidScheduleDomain (SCHED-028);
// - a single DELETE naming a record that is not an active record of this proposal and domain:
//   HTTP 200 with a failed result (IsSuccessful false, RecordID 0), as spec/openapi.yaml documents
//   ("a delete that fails for another reason"); 404 problems are kept for a missing proposal and an
//   invalid schedule domain;
// - Reinstate of a record that is not soft-deleted (active, deleted permanently, or never there):
//   HTTP 409 with a failed result (SCHED-024);
// - policy change entries and Data Entry Events are rows of the read-only domains PolicyChange and
//   DataEntryEvent (SCHED-026).
import type { Hono } from 'hono';
import type Database from 'better-sqlite3';
import { timestamp, type AppEnv, type Deps } from '../deps.js';
import { ApiError } from '../errors.js';
import { MAX_ID } from '../validation.js';
import type { FieldDef } from '../dictionary.js';
import type { components } from '../../../spec/generated/openapi.js';
import { loadProposal, requireProposalPermission } from '../proposals/lookup.js';
import { ENDORSEMENT, SCHEDULE_DOMAINS, type ProposalRow } from '../proposals/model.js';
import { cannotModifyMessage, modifiability } from '../proposals/modifiability.js';
import { migrate } from '../proposals/tables.js';
import { parseBoolParam, parseIntParam, parseJsonText, readBodyText } from '../validation.js';
import { own } from '../own.js';
import { queryParam } from '../query-params.js';

/** Schedule operation result (spec 2.5); Warnings is always null in the reference. */
// REQ: SCHED-001
type ScheduleResult = components['schemas']['ScheduleOperationResult'] & { Warnings: null };
type UpsertMultiResponse = components['schemas']['UpsertMultiResponse'] & {
  Inserts: ScheduleResult[];
  Updates: ScheduleResult[];
  Deletes: ScheduleResult[];
};

const MAX_ITEMS_PER_UPSERT = 100;

/** Columns of a schedule domain that the caller cannot set. */
const SYSTEM_FIELDS = new Set(['ProposalID', 'Proposal', 'IsDeleted']);

// ---------------------------------------------------------------------------------------------
// Schedule domain description

interface ScheduleDomain {
  name: string;
  key: string;
  required: string[];
  /** settable fields by name */
  fields: Map<string, FieldDef>;
}

function scheduleDomain(deps: Deps, proposalId: number, name: string): ScheduleDomain {
  // The dictionary marks the schedule domains (ProposalLocation, ProposalVehicle); names are case-sensitive.
  const def = deps.dict.get(name);
  // REQ: SCHED-006
  // REQ: SCHED-028
  if (!def || !def.schedule) {
    throw new ApiError(
      404,
      'InvalidScheduleDomain',
      `'${name}' is not a schedule domain of Proposal with ID# ${proposalId}; schedule domains are ${deps.dict
        .all()
        .filter((d) => d.schedule)
        .map((d) => d.name)
        .join(', ')}.`,
    );
  }
  const fields = new Map<string, FieldDef>();
  for (const f of def.fields) {
    if (f.name === def.key || SYSTEM_FIELDS.has(f.name)) continue;
    fields.set(f.name, f);
  }
  const required = new Set<string>();
  const known = own(SCHEDULE_DOMAINS, name);
  if (known) required.add(known.required);
  for (const f of def.fields) if (f.required && fields.has(f.name)) required.add(f.name);
  return { name, key: def.key || `${name}ID`, required: [...required], fields };
}

function column(f: FieldDef): string {
  return f.type === 'association' || f.type === 'coded' ? `${f.name}ID` : f.name;
}

// ---------------------------------------------------------------------------------------------
// Item operations

class ItemFailure extends Error {
  constructor(
    message: string,
    readonly recordId: number,
  ) {
    super(message);
  }
}

function ok(recordId: number, order: number | null, message: string): ScheduleResult {
  return { IsSuccessful: true, RecordID: recordId, OrderNumber: order, Message: message, Warnings: null };
}
function failed(recordId: number, order: number | null, message: string): ScheduleResult {
  return { IsSuccessful: false, RecordID: recordId, OrderNumber: order, Message: message, Warnings: null };
}

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
}

/** Checks field names and value types against the dictionary; returns [column, value] pairs. */
function checkFields(
  sd: ScheduleDomain,
  fields: Record<string, unknown>,
  mode: 'insert' | 'update',
): { values: Array<[string, unknown]>; errors: string[] } {
  const errors: string[] = [];
  const values: Array<[string, unknown]> = [];
  // REQ: SCHED-016
  // REQ: SCHED-017
  for (const r of sd.required) {
    const present = Object.prototype.hasOwnProperty.call(fields, r);
    if (
      (mode === 'insert' && (!present || isBlank(fields[r]))) ||
      (mode === 'update' && present && isBlank(fields[r]))
    ) {
      errors.push(`${r} is required.`);
    }
  }
  for (const [name, value] of Object.entries(fields)) {
    if (SYSTEM_FIELDS.has(name) || name === sd.key) {
      errors.push(`Field '${name}' of ${sd.name} cannot be set.`);
      continue;
    }
    const f = sd.fields.get(name);
    if (!f) {
      errors.push(`Unknown field '${name}' for ${sd.name}.`);
      continue;
    }
    const problem = typeProblem(f, value);
    if (problem) {
      errors.push(`Field '${name}' of ${sd.name} ${problem}.`);
      continue;
    }
    if (sd.required.includes(name) && isBlank(value)) continue; // already reported
    values.push([column(f), normalise(f, value)]);
  }
  return { values, errors };
}

function typeProblem(f: FieldDef, v: unknown): string | undefined {
  if (v === null) return undefined;
  switch (f.type) {
    case 'text':
      return typeof v === 'string' ? undefined : 'must be a string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : 'must be a number';
    case 'integer':
    case 'association':
    case 'coded':
      return typeof v === 'number' && Number.isSafeInteger(v) ? undefined : 'must be an integer';
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'must be a boolean';
    case 'date':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v))
        ? undefined
        : 'must be a date (yyyy-MM-dd)';
    case 'timestamp':
      return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? undefined : 'must be an ISO 8601 timestamp';
    default:
      return undefined;
  }
}

function normalise(f: FieldDef, v: unknown): unknown {
  if (f.type === 'boolean' && typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

interface Ctx {
  deps: Deps;
  db: Database.Database;
  proposal: ProposalRow;
  sd: ScheduleDomain;
}

function activeRecord(ctx: Ctx, id: number): Record<string, unknown> | undefined {
  return ctx.db
    .prepare(
      `SELECT * FROM "${ctx.sd.name}" WHERE "${ctx.sd.key}" = ? AND "ProposalID" = ? AND COALESCE("IsDeleted", 0) = 0`,
    )
    .get(id, ctx.proposal.ProposalID) as Record<string, unknown> | undefined;
}

function notFoundMessage(ctx: Ctx, id: number): string {
  return `${ctx.sd.name} schedule with id ${id} was not found on Proposal with ID# ${ctx.proposal.ProposalID}.`;
}

function doInsert(ctx: Ctx, fields: Record<string, unknown>): number {
  const { values, errors } = checkFields(ctx.sd, fields, 'insert');
  // REQ: SCHED-023 (RecordID 0 for a failed insert)
  if (errors.length) throw new ItemFailure(errors.join(' '), 0);
  // REQ: SCHED-007 (every given field of the schedule domain is stored as sent)
  const cols = ['ProposalID', 'IsDeleted', ...values.map(([c]) => c)];
  const args = [ctx.proposal.ProposalID, 0, ...values.map(([, v]) => v)];
  const info = ctx.db
    .prepare(
      `INSERT INTO "${ctx.sd.name}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    )
    .run(...args);
  return Number(info.lastInsertRowid);
}

function doUpdate(ctx: Ctx, id: number, fields: Record<string, unknown>): void {
  // REQ: SCHED-010
  if (!activeRecord(ctx, id)) throw new ItemFailure(notFoundMessage(ctx, id), id);
  const { values, errors } = checkFields(ctx.sd, fields, 'update');
  // REQ: SCHED-023 (the record's ID for a failed update)
  if (errors.length) throw new ItemFailure(errors.join(' '), id);
  if (values.length === 0) return;
  ctx.db
    .prepare(`UPDATE "${ctx.sd.name}" SET ${values.map(([c]) => `"${c}" = ?`).join(', ')} WHERE "${ctx.sd.key}" = ?`)
    .run(...values.map(([, v]) => v), id);
}

/** Deletes one active schedule record by the proposal's type (spec 3, 6). */
function doDelete(ctx: Ctx, id: number): 'soft' | 'permanent' {
  // REQ: SCHED-010
  // REQ: SCHED-002 (RecordID 0 for a failed delete)
  if (!activeRecord(ctx, id)) throw new ItemFailure(notFoundMessage(ctx, id), 0);
  const now = timestamp(ctx.deps.clock());
  const pid = ctx.proposal.ProposalID;
  if (ctx.proposal.ProposalType === ENDORSEMENT) {
    // REQ: SCHED-019
    // REQ: SCHED-020
    // REQ: EVT-002 (no Data Entry Event on a soft delete)
    ctx.db.prepare(`UPDATE "${ctx.sd.name}" SET "IsDeleted" = 1 WHERE "${ctx.sd.key}" = ?`).run(id);
    ctx.db
      .prepare(
        `INSERT INTO "PolicyChange" ("ProposalID", "ScheduleDomain", "ScheduleID", "ChangeType", "EntryDate") VALUES (?, ?, ?, 'Delete', ?)`,
      )
      .run(pid, ctx.sd.name, id, now);
    return 'soft';
  }
  // REQ: SCHED-022
  ctx.db.prepare(`DELETE FROM "${ctx.sd.name}" WHERE "${ctx.sd.key}" = ?`).run(id);
  // REQ: EVT-001
  // REQ: SCHED-026 (the Data Entry Event fires after the deletion)
  ctx.db
    .prepare(
      `INSERT INTO "DataEntryEvent" ("EventName", "Domain", "RecordID", "ProposalID", "EntryDate") VALUES ('ScheduleDeleted', ?, ?, ?, ?)`,
    )
    .run(ctx.sd.name, id, pid, now);
  return 'permanent';
}

/** Runs one item in its own transaction (a savepoint inside an atomic batch). */
function runItem(ctx: Ctx, order: number, fallbackRecordId: number, op: () => ScheduleResult): ScheduleResult {
  try {
    return ctx.db.transaction(op)();
  } catch (e) {
    if (e instanceof ItemFailure) return failed(e.recordId, order, e.message);
    // A constraint the item breaks fails the item alone (without SQLite's text: no table or column
    // names go out); anything else (SQLITE_BUSY after the busy timeout, I/O) is a server error.
    if (
      e instanceof Error &&
      e.name === 'SqliteError' &&
      String((e as { code?: unknown }).code ?? '').startsWith('SQLITE_CONSTRAINT')
    ) {
      return failed(
        fallbackRecordId,
        order,
        'The operation failed: the record breaks a constraint of the schedule domain.',
      );
    }
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Body parsing

interface UpsertBody {
  Inserts: Array<{ Fields: Record<string, unknown> }>;
  Updates: Array<{ ID: number; Fields: Record<string, unknown> }>;
  Deletes: Array<{ ID: number }>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function malformed(detail: string): ApiError {
  return new ApiError(400, 'MalformedRequest', detail);
}

// REQ: GEN-004
// REQ: SCHED-008
function parseUpsertBody(text: string): UpsertBody {
  if (text.trim() === '') throw malformed('A JSON body with Inserts, Updates and Deletes arrays is required.');
  const raw = parseJsonText(text);
  if (!isObject(raw))
    throw malformed('The request body must be a JSON object with Inserts, Updates and Deletes arrays.');
  const arr = (name: 'Inserts' | 'Updates' | 'Deletes'): unknown[] => {
    // all three arrays are required (any may be empty): a missing or misspelt one (`Insert`) is
    // refused rather than read as empty, which answered 200 and did nothing (issue 35)
    const v = Object.hasOwn(raw, name) ? raw[name] : undefined;
    if (v === undefined) throw malformed(`${name} is required: an array, which may be empty.`);
    if (!Array.isArray(v)) throw malformed(`${name} must be an array.`);
    return v;
  };
  const fieldsOf = (item: Record<string, unknown>, where: string): Record<string, unknown> => {
    const f = Object.hasOwn(item, 'Fields') ? item.Fields : undefined;
    if (f === undefined) throw malformed(`${where}.Fields is required: an object of field name to value.`);
    if (!isObject(f)) throw malformed(`${where}.Fields must be an object of field name to value.`);
    return f;
  };
  const idOf = (item: Record<string, unknown>, where: string): number => {
    const id = item.ID;
    if (typeof id !== 'number' || !Number.isInteger(id)) throw malformed(`${where}.ID must be an integer.`);
    // beyond 2^53 - 1 JSON numbers are rounded: the documented bound of IDs (validation.ts MAX_ID)
    if (!Number.isSafeInteger(id)) throw malformed(`${where}.ID must be an integer from 1 to ${MAX_ID}, got ${id}.`);
    return id;
  };
  const Inserts = arr('Inserts').map((it, i) => {
    if (!isObject(it)) throw malformed(`Inserts[${i}] must be an object.`);
    return { Fields: fieldsOf(it, `Inserts[${i}]`) };
  });
  const Updates = arr('Updates').map((it, i) => {
    if (!isObject(it)) throw malformed(`Updates[${i}] must be an object.`);
    return { ID: idOf(it, `Updates[${i}]`), Fields: fieldsOf(it, `Updates[${i}]`) };
  });
  const Deletes = arr('Deletes').map((it, i) => {
    if (!isObject(it)) throw malformed(`Deletes[${i}] must be an object.`);
    return { ID: idOf(it, `Deletes[${i}]`) };
  });
  return { Inserts, Updates, Deletes };
}

// ---------------------------------------------------------------------------------------------
// Operations

const ROLLBACK = Symbol('rollback');

function upsertMulti(
  deps: Deps,
  proposal: ProposalRow,
  sd: ScheduleDomain,
  body: UpsertBody,
  isAtomic: boolean,
): { status: 200 | 409; body: UpsertMultiResponse } {
  const db = deps.db;
  const pid = proposal.ProposalID;
  const m = modifiability(db, proposal);
  if (!m.modifiable) {
    // REQ: PROP-005
    // REQ: SCHED-025
    const msg = cannotModifyMessage(pid, m);
    return {
      status: 409,
      body: {
        Inserts: body.Inserts.map((_, i) => failed(0, i, msg)),
        Updates: body.Updates.map((u, i) => failed(u.ID, i, msg)),
        Deletes: body.Deletes.map((_, i) => failed(0, i, msg)),
      },
    };
  }
  const ctx: Ctx = { deps, db, proposal, sd };
  const run = (): UpsertMultiResponse => {
    // REQ: SCHED-003
    const Inserts = body.Inserts.map((it, i) =>
      runItem(ctx, i, 0, () => {
        const id = doInsert(ctx, it.Fields);
        return ok(id, i, `Inserted schedule with id ${id} successfully.`);
      }),
    );
    const Updates = body.Updates.map((it, i) =>
      runItem(ctx, i, it.ID, () => {
        doUpdate(ctx, it.ID, it.Fields);
        return ok(it.ID, i, `Updated schedule with id ${it.ID} successfully.`);
      }),
    );
    const Deletes = body.Deletes.map((it, i) =>
      runItem(ctx, i, 0, () => {
        doDelete(ctx, it.ID);
        return ok(it.ID, i, `Deleted schedule with id ${it.ID} successfully.`);
      }),
    );
    return { Inserts, Updates, Deletes };
  };
  if (!isAtomic) {
    // REQ: SCHED-011
    // REQ: SCHED-012
    // REQ: SCHED-013
    return { status: 200, body: run() };
  }
  // REQ: SCHED-014
  // REQ: SCHED-015
  // REQ: SCHED-027
  // REQ: SCHED-029 (no failure: the transaction commits)
  let out: UpsertMultiResponse | undefined;
  try {
    db.transaction(() => {
      out = run();
      const anyFailed = [...out.Inserts, ...out.Updates, ...out.Deletes].some((r) => !r.IsSuccessful);
      if (anyFailed) throw ROLLBACK;
    })();
  } catch (e) {
    if (e !== ROLLBACK) throw e;
    const onlyFailed = (rs: ScheduleResult[]) => rs.filter((r) => !r.IsSuccessful);
    return {
      status: 200,
      body: { Inserts: onlyFailed(out!.Inserts), Updates: onlyFailed(out!.Updates), Deletes: onlyFailed(out!.Deletes) },
    };
  }
  return { status: 200, body: out! };
}

// ---------------------------------------------------------------------------------------------
// Routes

const BASE = '/api/Quotes/Proposals/:proposalId/Schedules/:domain';

export function register(app: Hono<AppEnv>, deps: Deps): void {
  migrate(deps.db);

  app.post(`${BASE}/UpsertMulti`, async (c) => {
    requireProposalPermission(c.get('user'), 'Edit');
    const pid = parseIntParam(c.req.param('proposalId'), 'proposalId');
    // REQ: SCHED-013 (default false)
    const isAtomic = parseBoolParam(queryParam(c, 'isAtomic'), 'isAtomic', false);
    const proposal = loadProposal(deps.db, pid);
    const sd = scheduleDomain(deps, pid, c.req.param('domain'));
    const body = parseUpsertBody(await readBodyText(c));
    const count = body.Inserts.length + body.Updates.length + body.Deletes.length;
    // REQ: LIM-002
    if (count > MAX_ITEMS_PER_UPSERT) {
      throw new ApiError(
        413,
        'PayloadTooLarge',
        `UpsertMulti accepts at most ${MAX_ITEMS_PER_UPSERT} items over Inserts, Updates and Deletes; got ${count}.`,
      );
    }
    // REQ: SCHED-009
    const r = upsertMulti(deps, proposal, sd, body, isAtomic);
    return c.json(r.body, r.status);
  });

  // REQ: SCHED-004
  // REQ: SCHED-005
  app.delete(`${BASE}/:scheduleId`, (c) => {
    requireProposalPermission(c.get('user'), 'Edit');
    const pid = parseIntParam(c.req.param('proposalId'), 'proposalId');
    const sid = parseIntParam(c.req.param('scheduleId'), 'scheduleId');
    const proposal = loadProposal(deps.db, pid);
    const sd = scheduleDomain(deps, pid, c.req.param('domain'));
    const m = modifiability(deps.db, proposal);
    // REQ: SCHED-018
    // REQ: SCHED-025
    if (!m.modifiable) return c.json(failed(0, null, cannotModifyMessage(pid, m)), 409);
    const ctx: Ctx = { deps, db: deps.db, proposal, sd };
    try {
      // REQ: PROP-001 (soft delete on an Endorsement, permanent delete on the other five types)
      const kind = deps.db.transaction(() => doDelete(ctx, sid))();
      const how = kind === 'soft' ? ' It can be reinstated.' : '';
      return c.json(ok(sid, null, `Deleted schedule with id ${sid} successfully.${how}`), 200);
    } catch (e) {
      // Implementation-defined: a record that is not an active record of this proposal and domain is
      // answered HTTP 200 with a failed result, RecordID 0 (spec/openapi.yaml deleteSchedule 200).
      // REQ: SCHED-002
      if (e instanceof ItemFailure) return c.json(failed(0, null, e.message), 200);
      throw e;
    }
  });

  // REQ: SCHED-021
  // REQ: SCHED-024
  app.post(`${BASE}/:scheduleId/Reinstate`, (c) => {
    requireProposalPermission(c.get('user'), 'Edit');
    const pid = parseIntParam(c.req.param('proposalId'), 'proposalId');
    const sid = parseIntParam(c.req.param('scheduleId'), 'scheduleId');
    const proposal = loadProposal(deps.db, pid);
    const sd = scheduleDomain(deps, pid, c.req.param('domain'));
    const m = modifiability(deps.db, proposal);
    if (!m.modifiable) return c.json(failed(0, null, cannotModifyMessage(pid, m)), 409);
    const db = deps.db;
    const outcome = db.transaction((): { status: 200 | 409; result: ScheduleResult } => {
      const row = db
        .prepare(`SELECT COALESCE("IsDeleted", 0) AS d FROM "${sd.name}" WHERE "${sd.key}" = ? AND "ProposalID" = ?`)
        .get(sid, pid) as { d: number } | undefined;
      if (!row) {
        // Implementation-defined: a record that is not there (deleted permanently, or never on this
        // proposal) is not soft-deleted either → 409 (SCHED-022: it cannot be reinstated).
        return {
          status: 409,
          result: failed(
            0,
            null,
            `${sd.name} schedule with id ${sid} is not a soft-deleted record of Proposal with ID# ${pid}, so it cannot be reinstated.`,
          ),
        };
      }
      if (!row.d) {
        return {
          status: 409,
          result: failed(0, null, `${sd.name} schedule with id ${sid} is not deleted, so it cannot be reinstated.`),
        };
      }
      db.prepare(`UPDATE "${sd.name}" SET "IsDeleted" = 0 WHERE "${sd.key}" = ?`).run(sid);
      db.prepare(
        `INSERT INTO "PolicyChange" ("ProposalID", "ScheduleDomain", "ScheduleID", "ChangeType", "EntryDate") VALUES (?, ?, ?, 'Reinstate', ?)`,
      ).run(pid, sd.name, sid, timestamp(deps.clock()));
      return { status: 200, result: ok(sid, null, `Reinstated schedule with id ${sid} successfully.`) };
    })();
    return c.json(outcome.result, outcome.status);
  });
}
