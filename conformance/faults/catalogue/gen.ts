// Faults of the JSON bodies (GEN): error answers and media types (spec 4).
import type { Fault } from '../fault.js';
import { bodyJson, cloneResponse, isOk } from '../exchange.js';

export const GEN_FAULTS: Fault[] = [
  {
    name: 'problem-details-as-plain-text',
    area: 'GEN',
    description: 'Error answers (4xx) are sent as text/plain with the status title instead of a JSON body.',
    requirements: ['GEN-001'],
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      if (res.status < 400 || res.status >= 500 || !req.path.startsWith('/api/')) return res;
      const title = bodyJson(res)?.title ?? 'Error';
      const headers: Record<string, string> = { ...res.headers, 'content-type': 'text/plain; charset=utf-8' };
      delete headers['content-length'];
      return cloneResponse(res, { headers, body: Buffer.from(String(title)) });
    },
  },
  {
    name: 'json-served-as-html',
    area: 'GEN',
    description: 'Successful JSON answers carry Content-Type text/html (a framework default left in place).',
    requirements: ['GEN-001'],
    // GEN-001's own test reads refusals; the check on every response judges it on the successful
    // answers of the other GEN tests
    select: ['GEN-'],
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      if (
        !isOk(res) ||
        !req.path.startsWith('/api/') ||
        !(res.headers['content-type'] ?? '').includes('json') ||
        res.body.length === 0
      )
        return res;
      return cloneResponse(res, { headers: { ...res.headers, 'content-type': 'text/html; charset=utf-8' } });
    },
  },
];
