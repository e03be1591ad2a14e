// Which operations a fault or a control rewrites, and which operationIds of spec/openapi.yaml those
// are. The fault runner runs a fault only against the tests that call them (a rewrite of an
// operation cannot change a test that never calls it), so the claim must hold by construction: a
// rewrite is tagged only by the helpers that pass every other operation through untouched
// (catalogue/util.ts `on` and what is built on it, controls/util.ts), never by hand. An untagged
// rewrite counts as rewriting every operation.
import type { Op } from './exchange.js';

type AnyRewrite = (...args: never[]) => unknown;

const TAGS = new WeakMap<AnyRewrite, readonly Op[]>();
/** Rewrites of a route of the proxy that touch only some of the operationIds it can be. */
const NARROWED = new WeakMap<AnyRewrite, readonly string[]>();

/** Tags `rewrite` as one that touches only `ops` (call it only where everything else passes through). */
export function rewritesOnly<F extends AnyRewrite>(ops: readonly Op[], rewrite: F): F {
  TAGS.set(rewrite, [...new Set(ops)]);
  return rewrite;
}

/**
 * Tags `rewrite` as one that touches only `operationIds` among those its routes can be: a file read
 * (`GET /api/File/{id}` is getFile, a route of the proxy's getRecord) that passes every other
 * domain through. Call it only where the rewrite itself tells them apart (isFileRead).
 */
export function rewritesOnlyOperations<F extends AnyRewrite>(
  ops: readonly Op[],
  operationIds: string[],
  rewrite: F,
): F {
  const possible = operationIdsOf(ops) ?? [];
  const outside = operationIds.filter((id) => !possible.includes(id));
  if (outside.length)
    throw new Error(`rewritesOnlyOperations: ${outside.join(', ')} are no operations of ${ops.join(', ')}`);
  NARROWED.set(rewrite, [...new Set(operationIds)].sort());
  return rewritesOnly(ops, rewrite);
}

/** Rewrites that read users' grants (FaultContext.grantsOf), which the proxy learns from provider states. */
const READS_GRANTS = new WeakSet<AnyRewrite>();

/**
 * Tags `rewrite` as one that reads users' grants: its run sends provider states through the proxy,
 * which notes the grants of each user set up. Every other run sends them to the server directly (a
 * third of the suite's requests, which no rewrite sees), and there grantsOf throws, so a rewrite
 * that reads grants untagged fails loudly; the canned cases check the tag as well.
 */
export function readsGrants<F extends AnyRewrite>(rewrite: F): F {
  READS_GRANTS.add(rewrite);
  return rewrite;
}

/** Whether `rewrite` was tagged with readsGrants. */
export function rewriteReadsGrants(rewrite: AnyRewrite | undefined): boolean {
  return !!rewrite && READS_GRANTS.has(rewrite);
}

/** The operations a rewrite touches; undefined: any (untagged, or no rewrite of its own but server flags or bindings). */
export function operationsRewritten(rewrite: AnyRewrite | undefined): readonly Op[] | undefined {
  return rewrite ? TAGS.get(rewrite) : undefined;
}

/** The operationIds a rewrite touches; undefined: any (see operationsRewritten). */
export function operationIdsRewritten(rewrite: AnyRewrite | undefined): string[] | undefined {
  if (!rewrite) return undefined;
  const narrowed = NARROWED.get(rewrite);
  if (narrowed) return [...narrowed];
  const ops = TAGS.get(rewrite);
  return ops ? operationIdsOf(ops) : undefined;
}

/** The operationIds (spec/openapi.yaml) a route of the proxy can be: file reads are separate operations there. */
const OPERATION_IDS: Partial<Record<Op, string[]>> = {
  getRecord: ['getRecord', 'getFile'],
  queryRecords: ['queryRecords', 'queryFiles'],
};

/** The operationIds of `ops`; undefined when one of them is no operation of the document (a test may still send it). */
function operationIdsOf(ops: readonly Op[]): string[] | undefined {
  const out = new Set<string>();
  for (const op of ops) {
    if (op === 'other' || op === 'providerStates' || op === 'health') return undefined;
    for (const id of OPERATION_IDS[op] ?? [op]) out.add(id);
  }
  return [...out].sort();
}
