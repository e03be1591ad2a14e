// Controls that the gate (`npm test`'s `test:faults:check`, --group-controls) runs together, in one
// run through one proxy: the costliest controls, those whose rewrite or setting touches every
// answer, so each alone is a run of the whole suite (or most of it).
//
// Why this is still a proof: every member is an allowed choice on a point the spec leaves open, and
// the members of a group choose on different points (the shape of the JSON text, extra keys and
// headers, the ID range; the token header, the link body's names, the Domains envelope, the query
// parameters' names, the total count's place). An implementation making all of them at once is as
// correct as one making each, so a suite that fails the group fails a correct implementation. When
// a group's run has a false alarm, the gate runs each member alone (as `npm run test:faults` always
// does), and the report names the member(s) the suite fails.
//
// What a group does not show: a test that fails one member alone but passes with the others (one
// choice hiding another). The members are chosen so that none undoes another's change (the order
// below is the proxy's: the first member sees the answer last), and `npm run test:faults` (the
// committed reports/mutation.json) runs each control alone.
import type { Control, FaultContext, Next } from '../fault.js';
import {
  errorsOnly,
  operationsRewritten,
  readsGrants,
  rewriteReadsGrants,
  rewriteTouchesErrorsOnly,
  rewritesOnly,
} from '../operations.js';

export interface ControlGroup {
  name: string;
  /** Control names, outermost first (the first member's rewrite sees the request first and the answer last). */
  members: readonly string[];
}

export const CONTROL_GROUPS: readonly ControlGroup[] = [
  {
    // the JSON text and the envelope around the documented values (pretty printing last, so its
    // whitespace and media-type parameter reach the client); records numbered from 1,000,001
    name: 'group:json-shape',
    members: [
      'pretty-printed-json',
      'extra-response-headers',
      'reversed-key-order',
      'extra-envelope-keys',
      'extra-result-keys',
      'problem-as-application-json',
      'ids-from-a-million',
    ],
  },
  {
    // each member's choice is a binding of its own (bindings with different keys)
    name: 'group:bindings',
    members: [
      'token-as-bearer',
      'link-body-camel-case',
      'domains-list-nested',
      'relationship-column-as-code',
      'total-count-nested',
    ],
  },
  {
    // the other forms of the same points, each again a binding of its own or an answer's shape
    // (the parameters renamed first, so the members inside see the reference's names)
    name: 'group:other-forms',
    members: [
      'token-in-x-api-key',
      'query-params-renamed',
      'link-query-params-renamed',
      'link-body-nested',
      'total-count-in-header',
    ],
  },
];

/** Why a set of controls cannot run as one (empty: it can). */
export function groupProblems(members: readonly Control[]): string[] {
  const out: string[] = [];
  for (const c of members) {
    if (c.judge) out.push(`${c.name}: judged as '${c.judge}', not by the default rule`);
    if (c.delaysMs) out.push(`${c.name}: holds answers back (${c.delaysMs} ms): its run's time is its own`);
  }
  const keys = new Map<string, string>();
  for (const c of members)
    for (const k of Object.keys(c.config?.bindings ?? {})) {
      if (keys.has(k)) out.push(`binding '${k}' set by both ${keys.get(k)} and ${c.name}`);
      keys.set(k, c.name);
    }
  const flags = new Map<string, string>();
  for (const c of members)
    for (const f of (c.serverFlags ?? []).filter((x) => x.startsWith('--'))) {
      if (flags.has(f)) out.push(`server flag ${f} set by both ${flags.get(f)} and ${c.name}`);
      flags.set(f, c.name);
    }
  return out;
}

/** One control doing what every member does: the rewrites chained (each with a memory of its own),
 * the bindings and the server flags together, the files of every member selected. */
export function composeControls(name: string, members: readonly Control[]): Control {
  const problems = groupProblems(members);
  if (problems.length) throw new Error(`${name} cannot run as one: ${problems.join('; ')}`);
  const rewrites = members.map((c) => c.rewrite);
  const memories = new WeakMap<FaultContext, FaultContext[]>();
  let rewrite: NonNullable<Control['rewrite']> = async (req, ctx, next) => {
    // a memory per member, kept from request to request as in a run of its own (the proxy gives
    // every request of a run the same context); the rest of the context is shared
    let own = memories.get(ctx);
    if (!own) {
      own = rewrites.map(() => Object.create(ctx, { memory: { value: new Map() } }) as typeof ctx);
      memories.set(ctx, own);
    }
    const step =
      (i: number): Next =>
      (r) => {
        const rw = rewrites[i];
        if (i >= rewrites.length) return next(r);
        return rw ? rw(r, own[i]!, step(i + 1)) : step(i + 1)(r);
      };
    return step(0)(req);
  };
  // the marks the runner reads hold for the chain only when they hold for every member
  const present = rewrites.filter((r): r is NonNullable<typeof r> => !!r);
  const ops = present.map((r) => operationsRewritten(r));
  if (present.length === members.length && ops.every((o) => o !== undefined))
    rewrite = rewritesOnly(ops.flat(), rewrite);
  if (present.length === members.length && present.every((r) => rewriteTouchesErrorsOnly(r)))
    rewrite = errorsOnly(rewrite);
  if (present.some((r) => rewriteReadsGrants(r))) rewrite = readsGrants(rewrite);
  const selects = members.map((c) => c.select);
  const bindings = Object.assign({}, ...members.map((c) => c.config?.bindings ?? {})) as Record<string, unknown>;
  return {
    name,
    area: members[0]!.area,
    description: `${members.length} controls at once: ${members.map((c) => c.name).join(', ')}`,
    allowedBy: members.map((c) => `${c.name}: ${c.allowedBy}`).join(' | '),
    ...(selects.every((s) => s !== undefined) ? { select: [...new Set(selects.flat())] } : {}),
    ...(Object.keys(bindings).length ? { config: { bindings } } : {}),
    ...(members.some((c) => c.serverFlags?.length) ? { serverFlags: members.flatMap((c) => c.serverFlags ?? []) } : {}),
    rewrite,
  };
}
