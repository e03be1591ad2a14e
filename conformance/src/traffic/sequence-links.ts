// Sequence rules of links (spec 4.3): a removed link leaves Link/Query, an upserted one is listed
// once.
import { after, isObject, recordsOf, type TrafficExchange } from './exchange.js';
import { isInt, type SequenceRule } from './rule.js';
import { between, op } from './sequence-records.js';

const LINK_SCOPE = new Set(['childDomain', 'childRecordID', 'parentDomain', 'columns']);

/** LINK-015, LINK-013: a removed link no longer appears in Link/Query; an upserted one does. */
export const linkThenQuery: SequenceRule = {
  name: 'link_write_then_query',
  requirements: ['LINK-013', 'LINK-015'],
  description:
    'after a successful Link/Remove (by primary keys), a later Link/Query of that child with ParentID in its rows lists no link to that parent; after a successful Link/Upsert, it lists it; unless another link write on that child (or on a child it names by match field) came between',
  judge(xs, ctx, emit) {
    const lb = ctx.bindings.link;
    const isWrite = (x: TrafficExchange) =>
      x.method === 'POST' && (x.path === ctx.bindings.paths.linkRemove || x.path === ctx.bindings.paths.linkUpsert);
    const field = (x: TrafficExchange, path: string) =>
      path.split('.').reduce<any>((o, k) => (isObject(o) ? o[k] : undefined), x.requestJson);
    const childOf = (x: TrafficExchange) =>
      `${field(x, lb.childDomain)}#${field(x, lb.childRecordId) ?? field(x, lb.childRecordKey)}`;
    const writes = xs.filter(isWrite);
    // a Link/Query whose answer is not a readable List is no evidence of what it lists
    const queries = xs.filter(
      (x) =>
        op(x) === 'queryLinks' &&
        x.status === 200 &&
        !x.bodyMissing &&
        Array.isArray((x.json as { List?: unknown } | undefined)?.List),
    );
    // indexed once: the link writes of each child, the queries of each child
    const writesByChild = new Map<string, TrafficExchange[]>();
    // a write naming its child by match field (or by no readable ID) may be on any child of its
    // domain (of any domain, when that is unreadable too): it may have touched the link
    const blindByDomain = new Map<string, TrafficExchange[]>();
    const blindAnywhere: TrafficExchange[] = [];
    for (const w of writes) {
      const id = field(w, lb.childRecordId);
      if (id === null || id === undefined || id === '' || !Number.isInteger(Number(id))) {
        const cd = field(w, lb.childDomain);
        if (typeof cd !== 'string') blindAnywhere.push(w);
        else if (blindByDomain.has(cd)) blindByDomain.get(cd)!.push(w);
        else blindByDomain.set(cd, [w]);
        continue;
      }
      const k = childOf(w);
      const l = writesByChild.get(k);
      if (l) l.push(w);
      else writesByChild.set(k, [w]);
    }
    const queriesByChild = new Map<string, TrafficExchange[]>();
    for (const x of queries) {
      const k = `${x.query.get('childDomain')}#${x.query.get('childRecordID')}`;
      const l = queriesByChild.get(k);
      if (l) l.push(x);
      else queriesByChild.set(k, [x]);
    }
    for (const w of writes) {
      if (w.status < 200 || w.status >= 300 || (w.json as { IsSuccessful?: unknown })?.IsSuccessful === false) continue;
      const pd = field(w, lb.parentDomain);
      const pid = field(w, lb.parentRecordId);
      const cd = field(w, lb.childDomain);
      const cid = field(w, lb.childRecordId);
      if (
        typeof pd !== 'string' ||
        typeof cd !== 'string' ||
        !Number.isInteger(Number(pid)) ||
        !Number.isInteger(Number(cid))
      )
        continue;
      const same = [...(writesByChild.get(childOf(w)) ?? []), ...(blindByDomain.get(cd) ?? []), ...blindAnywhere];
      const q = (queriesByChild.get(`${cd}#${String(cid)}`) ?? []).find(
        (x) => after(w, x) && !same.some((o) => o !== w && between(o, w, x)),
      );
      if (!q) continue;
      const removed = w.path === ctx.bindings.paths.linkRemove;
      // a further filter may leave out a link that exists: only an unfiltered query shows it is there
      if (!removed && [...q.query.keys()].some((k) => !LINK_SCOPE.has(k))) continue;
      const rows = recordsOf(q);
      if (!rows.every((r) => 'ParentID' in r)) continue;
      const pdId = ctx.domainIds.get(pd);
      const scoped = q.query.get('parentDomain') === pd;
      const canTell = scoped || (pdId !== undefined && rows.every((r) => 'ParentDomainID' in r));
      if (!canTell) continue;
      const hit = rows.some((r) => r.ParentID === Number(pid) && (scoped || r.ParentDomainID === pdId));
      emit(
        [removed ? 'LINK-015' : 'LINK-013'],
        removed ? !hit : hit,
        `link ${pd} ${pid} → ${cd} ${cid} ${removed ? 'removed' : 'upserted'}; the later Link/Query ${hit ? 'lists' : 'does not list'} it`,
        [w, q],
      );
    }
  },
};

/**
 * LINK-014: Link/Upsert of an existing link updates it. A pair of records upserted (by primary keys,
 * always with the same relationship or none) is listed once by a later Link/Query, never twice.
 */
export const upsertDoesNotDuplicate: SequenceRule = {
  name: 'link_upsert_does_not_duplicate',
  requirements: ['LINK-014'],
  description:
    'after a successful Link/Upsert by primary keys of a parent and child (every upsert of that pair with the same relationship, or none), a later Link/Query row of that pair appears once; listed twice with all four IDs equal, it fails',
  judge(xs, ctx, emit) {
    const ups = new Map<string, { at: TrafficExchange[]; rel: Set<string> }>();
    const keyOf = (pd: unknown, p: unknown, cd: unknown, c: unknown) => `${pd}/${p}/${cd}/${c}`;
    for (const x of xs) {
      if (op(x) === 'upsertLink' && x.status === 200 && isObject(x.requestJson)) {
        if ((x.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful !== true) continue;
        const b = x.requestJson;
        const pd = ctx.domainIds.get(String(b.ParentDomain));
        const cd = ctx.domainIds.get(String(b.ChildDomain));
        if (pd === undefined || cd === undefined || !isInt(b.ParentRecordID) || !isInt(b.ChildRecordID)) continue;
        const k = keyOf(pd, b.ParentRecordID, cd, b.ChildRecordID);
        const u = ups.get(k) ?? { at: [], rel: new Set<string>() };
        u.at.push(x);
        u.rel.add(JSON.stringify(b.Relationship ?? null));
        ups.set(k, u);
        continue;
      }
      if (op(x) !== 'queryLinks' || x.status !== 200) continue;
      const rows = recordsOf(x);
      const seen = new Map<string, number>();
      for (const r of rows) {
        if (![r.ParentDomainID, r.ParentID, r.ChildDomainID, r.ChildID].every(isInt)) continue;
        const k = keyOf(r.ParentDomainID, r.ParentID, r.ChildDomainID, r.ChildID);
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
      for (const [k, n] of seen) {
        const u = ups.get(k);
        if (!u || u.rel.size !== 1 || !u.at.some((w) => after(w, x))) continue;
        if (n === 1 && u.at.filter((w) => after(w, x)).length < 2) continue;
        emit(
          ['LINK-014'],
          n === 1,
          n === 1
            ? `link ${k} upserted ${u.at.length} time(s), listed once`
            : `link ${k} (parent domain/ID/child domain/ID) upserted ${u.at.filter((w) => after(w, x)).length} time(s) with one relationship, listed ${n} times`,
          [u.at[u.at.length - 1], x],
        );
      }
    }
  },
};
