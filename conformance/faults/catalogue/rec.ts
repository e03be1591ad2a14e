// Faults of record access (REC): the record envelope and the record read (spec 4.2).
import type { Fault } from '../fault.js';
import { onJsonResponse, tokenOf } from './util.js';

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
];
