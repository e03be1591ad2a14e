// Which operation of spec/openapi.yaml a request through the fault-injecting proxy addresses, and
// which operations a fault or a control rewrites. The proxy has no router of its own: it resolves a
// request with the OpenAPI index that the traffic verifier uses (src/spec/openapi.ts), so a
// rewrite of an operationId sees exactly the exchanges the runner counted as calls of it.
//
// The fault runner runs a fault only against the tests that call the operations it rewrites (a
// rewrite of an operation cannot change a test that never calls it), so the claim must hold by
// construction: a rewrite is tagged only by the helpers that pass every other operation through
// untouched (catalogue/util.ts `on` and what is built on it, controls/util.ts), never by hand. An
// untagged rewrite counts as rewriting every operation.
import type { operations } from '../../spec/generated/openapi.js';
import { loadOpenApi } from '../src/spec/openapi.js';
import type { ProxyRequest } from './exchange.js';

/** An operationId of spec/openapi.yaml. */
type OperationId = keyof operations;

/** The path parameters of an operation, as the document names them (values as sent, decoded). */
type PathParams<O extends OperationId> = operations[O]['parameters'] extends { path: infer P }
  ? { [K in keyof P]-?: string }
  : unknown;

/** `GET /api/File/{id}` and `GET /api/File/Query` are the generic reads with domain `File`
 * (spec/openapi.yaml, "Route resolution" 3). */
type FileDomain<O extends OperationId> = O extends 'getFile' | 'queryFiles' ? { domain: 'File' } : unknown;

/** The operation a request addresses: its operationId and path parameters; `providerStates` for the
 * provider-state endpoint (provider-states.yaml), `other` for anything the document does not declare. */
export type Operation =
  | { [O in OperationId]: { op: O } & PathParams<O> & FileDomain<O> }[OperationId]
  | { op: 'providerStates' }
  | { op: 'other' };

export type Op = Operation['op'];
export type OperationOf<O extends Op> = Extract<Operation, { op: O }>;

const FILE_OPERATIONS: readonly Op[] = ['getFile', 'queryFiles'];

/** The operation `req` addresses, resolved by the spec's OpenAPI index (literal segments win). */
export function operationOf(req: Pick<ProxyRequest, 'method' | 'path'>): Operation {
  if (firstSegment(req.path) === '_provider-states') return { op: 'providerStates' };
  const match = loadOpenApi().match(req.method, req.path);
  if (!match) return { op: 'other' };
  const op = match.operationId as OperationId;
  return { ...(FILE_OPERATIONS.includes(op) ? { domain: 'File' } : {}), ...match.pathParams, op } as Operation;
}

/** Reads of file records: GET /api/File/{id}, GET /api/File/Query and GET /api/{domain}/{id}/Files. */
export const FILE_READS = ['getFile', 'queryFiles', 'listAttachedFiles'] as const;

function firstSegment(path: string): string {
  const s = path.split('/')[1] ?? '';
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

type AnyRewrite = (...args: never[]) => unknown;

const TAGS = new WeakMap<AnyRewrite, readonly Op[]>();
/** Tags `rewrite` as one that touches only `ops` (call it only where everything else passes through). */
export function rewritesOnly<F extends AnyRewrite>(ops: readonly Op[], rewrite: F): F {
  TAGS.set(rewrite, [...new Set(ops)]);
  return rewrite;
}

/** A mark a rewrite carries (a claim about what it does): `mark` tags it, `has` asks. */
function rewriteMark() {
  const marked = new WeakSet<AnyRewrite>();
  return {
    mark: <F extends AnyRewrite>(rewrite: F): F => {
      marked.add(rewrite);
      return rewrite;
    },
    has: (rewrite: AnyRewrite | undefined): boolean => !!rewrite && marked.has(rewrite),
  };
}

/** Rewrites that change error answers (any status but 2xx) only: requests and successful answers pass untouched. */
const ERRORS_ONLY = rewriteMark();

/**
 * Tags `rewrite` as one that changes only error answers (controls/util.ts onError does, by
 * construction): a test whose requests met no error answer in the baseline cannot be changed by it,
 * so its run leaves such tests out (runner/select.ts).
 */
export const errorsOnly = ERRORS_ONLY.mark;

/** Whether `rewrite` was tagged with errorsOnly. */
export const rewriteTouchesErrorsOnly = ERRORS_ONLY.has;

/** Rewrites that read users' grants (FaultContext.grantsOf), which the proxy learns from provider states. */
const READS_GRANTS = rewriteMark();

/**
 * Tags `rewrite` as one that reads users' grants: its run sends provider states through the proxy,
 * which notes the grants of each user set up. Every other run sends them to the server directly (a
 * third of the suite's requests, which no rewrite sees), and there grantsOf throws, so a rewrite
 * that reads grants untagged fails loudly; the canned cases check the tag as well.
 */
export const readsGrants = READS_GRANTS.mark;

/** Whether `rewrite` was tagged with readsGrants. */
export const rewriteReadsGrants = READS_GRANTS.has;

/** The operations a rewrite touches; undefined: any (untagged, or no rewrite of its own but server flags or bindings). */
export function operationsRewritten(rewrite: AnyRewrite | undefined): readonly Op[] | undefined {
  return rewrite ? TAGS.get(rewrite) : undefined;
}

/** The operationIds a rewrite touches; undefined: any (see operationsRewritten). */
export function operationIdsRewritten(rewrite: AnyRewrite | undefined): string[] | undefined {
  if (!rewrite) return undefined;
  const ops = TAGS.get(rewrite);
  return ops ? operationIdsOf(ops) : undefined;
}

/** The operationIds of `ops`; undefined when one of them is no operation of the document (a test may still send it). */
function operationIdsOf(ops: readonly Op[]): string[] | undefined {
  if (ops.some((op) => op === 'other' || op === 'providerStates')) return undefined;
  return [...new Set(ops)].sort();
}
