// What the recording's provider-state calls say the implementation holds (issue 34). A run of the
// suite recorded through a proxy holds its `POST /_provider-states` exchanges (spec/
// provider-states.yaml): the state asked for, its params, and the values the implementation
// confirmed. Between the setup's answer and the teardown's request, those are evidence of stored
// data, read only where the state's documented meaning makes the expectation certain. Only
// "a proposal" is read so far: its ID, type, modifiability (status, boundSet, pendingExpiryChange)
// and the schedule records it created.
import { isObject, type StateCall, type TrafficExchange } from './exchange.js';

/** A proposal a state set up, and the span in which the implementation holds it as set up. */
export interface StateProposal {
  proposalId: string;
  type: string;
  /** The causes of non-modifiability the state asked for (section 3), by the requirement of each. */
  notModifiable: Array<{ requirement: 'PROP-002' | 'PROP-003' | 'PROP-004'; cause: string }>;
  scheduleDomain?: string;
  locationIds: number[];
  /** From the setup's answer to the teardown's request (Infinity when the recording has none). */
  from: number;
  to: number;
  setup: StateCall;
}

/** Records a "records" state created: `filter` selects exactly them, `linqFilter` exactly those at odd positions short of the last. */
interface StateRecords {
  domain: string;
  ids: number[];
  filter?: string;
  linqFilter?: string;
  from: number;
  to: number;
  setup: StateCall;
}

/** A file a state created ("a file", "a record with files"): its decoded size, whether it is linked. */
interface StateFile {
  fileId: number;
  size?: number;
  linked?: boolean;
  from: number;
  to: number;
  setup: StateCall;
}

/** A parent record with files ("a record with files"), and the twin of the same ID in another domain. */
interface StateParent {
  domain: string;
  id: number;
  fileIds: number[];
  twinFileIds: number[];
  from: number;
  to: number;
  setup: StateCall;
}

export interface StateLedger {
  proposals: StateProposal[];
  records: StateRecords[];
  files: StateFile[];
  parents: StateParent[];
  /** Every setup that answered, in recorded order (records may have been created by any of them). */
  setups: StateCall[];
  /** Start of the first BindQuote or QueueBindQuote request, by proposal ID (binding may change its status). */
  firstBind: Map<string, number>;
}

export function stateLedger(calls: StateCall[], xs: TrafficExchange[]): StateLedger {
  const sorted = [...calls].sort((a, b) => a.startMs - b.startMs);
  const setups = sorted.filter((c) => c.action === 'setup' && c.values);
  const proposals: StateProposal[] = [];
  const records: StateRecords[] = [];
  const end = (s: StateCall) =>
    sorted.find(
      (c) =>
        c.action === 'teardown' && c.state === s.state && c.params.setupId === s.params.setupId && c.startMs >= s.endMs,
    )?.startMs ?? Infinity;
  const files: StateFile[] = [];
  const parents: StateParent[] = [];
  const ints = (v: unknown): number[] | undefined =>
    Array.isArray(v) && v.every((n) => Number.isInteger(n)) ? (v as number[]) : undefined;
  const decoded = (f: unknown) =>
    isObject(f) && typeof f.contentsBase64 === 'string' ? Buffer.from(f.contentsBase64, 'base64').length : undefined;
  for (const s of setups) {
    const v = s.values!;
    if (s.state === 'a file' && Number.isInteger(v.fileId)) {
      files.push({
        fileId: v.fileId as number,
        ...(Number.isInteger(v.fileSize) ? { size: v.fileSize as number } : {}),
        ...(typeof s.params.linked === 'boolean' ? { linked: s.params.linked } : {}),
        from: s.endMs,
        to: end(s),
        setup: s,
      });
      continue;
    }
    if (s.state === 'a record with files') {
      const ids = ints(v.fileIds);
      const twins = ints(v.twinFileIds) ?? [];
      if (!ids || typeof v.domain !== 'string' || !Number.isInteger(v.id)) continue;
      const asked = [
        ...(Array.isArray(s.params.files) ? s.params.files : []).map((f, i) => [ids[i], decoded(f)] as const),
        ...(Array.isArray(s.params.twinFiles) ? s.params.twinFiles : []).map((f, i) => [twins[i], decoded(f)] as const),
      ];
      for (const [fileId, size] of asked)
        if (fileId !== undefined)
          files.push({
            fileId,
            ...(size !== undefined ? { size } : {}),
            linked: true,
            from: s.endMs,
            to: end(s),
            setup: s,
          });
      parents.push({
        domain: v.domain,
        id: v.id as number,
        fileIds: ids,
        twinFileIds: twins,
        from: s.endMs,
        to: end(s),
        setup: s,
      });
      continue;
    }
    if (s.state === 'records') {
      if (typeof v.domain !== 'string' || !Array.isArray(v.ids) || !v.ids.every((n) => Number.isInteger(n))) continue;
      records.push({
        domain: v.domain,
        ids: v.ids as number[],
        ...(typeof v.filter === 'string' ? { filter: v.filter } : {}),
        ...(typeof v.linqFilter === 'string' ? { linqFilter: v.linqFilter } : {}),
        from: s.endMs,
        to: end(s),
        setup: s,
      });
      continue;
    }
    if (s.state !== 'a proposal') continue;
    if (!(typeof v.proposalId === 'number' && Number.isInteger(v.proposalId))) continue;
    const setupId = s.params.setupId;
    const teardown = sorted.find(
      (c) => c.action === 'teardown' && c.state === s.state && c.params.setupId === setupId && c.startMs >= s.endMs,
    );
    const p = s.params;
    const notModifiable: StateProposal['notModifiable'] = [];
    if (p.status === 'B' || p.status === 'R' || p.status === '0')
      notModifiable.push({ requirement: 'PROP-002', cause: `status ${p.status}` });
    else if (p.status !== undefined && p.status !== 'open') continue;
    if (p.boundSet === true) notModifiable.push({ requirement: 'PROP-003', cause: 'its proposal set is bound' });
    if (p.pendingExpiryChange === true)
      notModifiable.push({ requirement: 'PROP-004', cause: 'a pending expiry-date-change endorsement' });
    proposals.push({
      proposalId: String(v.proposalId),
      type: typeof v.type === 'string' ? v.type : String(p.type),
      notModifiable,
      ...(typeof v.scheduleDomain === 'string' ? { scheduleDomain: v.scheduleDomain } : {}),
      locationIds: Array.isArray(v.locationIds) ? v.locationIds.filter((n): n is number => Number.isInteger(n)) : [],
      from: s.endMs,
      to: teardown ? teardown.startMs : Infinity,
      setup: s,
    });
  }
  const firstBind = new Map<string, number>();
  for (const x of xs) {
    const id = x.operation?.operationId;
    if (id !== 'bindQuote' && id !== 'queueBindQuote') continue;
    const pid = x.operation!.pathParams.proposalId;
    if (!firstBind.has(pid) || firstBind.get(pid)! > x.startMs) firstBind.set(pid, x.startMs);
  }
  return { proposals, records, files, parents, setups, firstBind };
}

/**
 * The state proposal `x` (an exchange on proposal `proposalId`) ran against: `x` lies wholly in the
 * state's span, no other state claims the same ID in it, and (for `modifiable`) nothing asked to
 * bind the proposal before `x`.
 */
export function proposalOf(
  ledger: StateLedger | undefined,
  proposalId: string,
  x: TrafficExchange,
): StateProposal | undefined {
  if (!ledger) return undefined;
  const hits = ledger.proposals.filter((p) => p.proposalId === proposalId && x.startMs >= p.from && x.endMs <= p.to);
  if (hits.length !== 1) return undefined;
  const bind = ledger.firstBind.get(proposalId);
  if (bind !== undefined && bind <= x.startMs) return undefined;
  return hits[0];
}
