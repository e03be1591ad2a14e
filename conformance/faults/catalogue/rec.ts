// Faults of record access (REC): the record envelope and the record read (spec 4.2).
import type { Fault, FaultContext } from '../fault.js';
import { bodyJson, isOk, makeResponse, type ProxyRequest } from '../exchange.js';
import { on, onJsonResponse, tokenOf } from './util.js';

/** A record read kept by the cache of `record-read-cached-by-id-alone`. */
interface CachedRead {
  domain: string;
  record: unknown;
}

/**
 * The cache key of that bug: the record ID, the query and the caller, but not the domain. Reads of
 * one domain always go to the store (nothing stale within a domain); only another domain's record
 * with the same ID, read with the same query by the same caller, is answered from the cache.
 */
function cacheKeyWithoutDomain(req: ProxyRequest, id: string, ctx: FaultContext): string {
  const q = [...req.query.entries()].sort(([a], [b]) => a.localeCompare(b));
  return `${id}?${new URLSearchParams(q).toString()}|${tokenOf(req, ctx) ?? ''}`;
}

export const REC_FAULTS: Fault[] = [
  {
    name: 'record-envelope-without-id',
    area: 'REC',
    description: 'GET /api/{domain}/{id} answers Record and Domain but leaves out Id.',
    requirements: ['REC-001', 'FILE-009'],
    rewrite: onJsonResponse(['getRecord', 'getFile'], (body) => {
      if (body && typeof body === 'object') delete body.Id;
    }),
  },
  {
    name: 'record-read-ignores-id',
    area: 'REC',
    description:
      'GET /api/{domain}/{id} loses its WHERE clause and answers the first record of the domain under the asked Id.',
    requirements: ['REC-002'],
    rewrite: onJsonResponse(['getRecord', 'getFile'], async (body, req, route, ctx) => {
      if (route.domain === 'File' || !body?.Record) return;
      const q = new URLSearchParams();
      for (const k of ['columns', 'resolveAssociationNames']) if (req.query.has(k)) q.set(k, req.query.get(k)!);
      q.set('take', '1');
      const first = await ctx.call('GET', `/api/${encodeURIComponent(route.domain)}/Query?${q}`, {
        token: tokenOf(req, ctx) ?? null,
      });
      if (first.status === 200 && first.json?.List?.[0]) body.Record = first.json.List[0];
    }),
  },
  {
    // issue 44: two records of two domains with the same ID
    name: 'record-read-cached-by-id-alone',
    area: 'REC',
    description:
      "GET /api/{domain}/{id} is cached by ID and query but not domain: a read of another domain's record with the same ID answers the first one read.",
    // a record of one domain answered for another: the record read (REC-002), and, where that ID
    // is missing in the domain read (a deleted record), data for a missing record (REC-004); which
    // shows depends on which IDs other tests read first
    requirements: ['REC-002', 'REC-004'],
    rewrite: on(['getRecord'], async (req, route, ctx, next) => {
      const cache: Map<string, CachedRead> = ctx.memory.get('reads') ?? new Map();
      ctx.memory.set('reads', cache);
      const key = cacheKeyWithoutDomain(req, String(route.id), ctx);
      const hit = cache.get(key);
      // the cache sits behind the routing: a domain name the service does not know is still refused
      if (hit && hit.domain !== route.domain && (await ctx.domainIds()).has(route.domain))
        return makeResponse(
          200,
          { Record: hit.record, Domain: route.domain, Id: Number(route.id) },
          { 'content-type': 'application/json; charset=utf-8' },
        );
      const res = await next(req);
      const body = bodyJson(res);
      if (isOk(res) && body?.Record) cache.set(key, { domain: route.domain, record: body.Record });
      return res;
    }),
  },
];
