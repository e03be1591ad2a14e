// `conformance init --from-url URL`: recognise bindings (names the spec leaves open) by asking a
// running implementation, with GET requests only: the probe never creates, changes or deletes
// anything (`get` below is the only request it makes). What it recognises becomes a binding of the
// starter conformance.yaml; where it cannot tell, a note says what it saw, for the vendor to decide.
//
// What it asks (spec 4.2, 4.4 and 5 leave these names open):
//   - the token header: GET /api/Domains with the token under each usual header, the first 2xx wins;
//   - the envelope of GET /api/Domains: a bare array, or an object with exactly one list;
//   - the total count: GET /api/{domain}/Query?take=1 with each usual parameter set to true, and a
//     body field or response header holding a whole number that the plain query lacks;
//   - the start offset: with two records, GET ...?take=1&<p>=1 answering the plain query's second one.
// The filter, LINQ filter and empty-column names, and the link names, need data shaped for them:
// they are not probed.

/** One binding the probe looked for: its value when recognised, and what it saw. */
export interface Finding {
  /** Dotted binding key (`query.skip`). */
  key: string;
  /** The recognised value; undefined: not recognised (the note says why). */
  value?: string;
  note: string;
}

const TOKEN_HEADERS: [header: string, prefix: string][] = [
  ['Token', ''],
  ['Authorization', 'Bearer '],
  ['Authorization', ''],
  ['X-API-Key', ''],
  ['X-Auth-Token', ''],
];
const TOTAL_COUNT_PARAMS = [
  'includeTotalCount',
  'totalCount',
  'includeCount',
  'count',
  'withCount',
  '$count',
  'inlineCount',
];
const SKIP_PARAMS = ['skip', 'offset', 'start', '$skip', 'startIndex', 'from'];

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface ProbeOptions {
  token?: string;
  timeoutMs?: number;
}

/** The probe's only way to ask: GET, read-only by HTTP's own definition. */
async function get(url: string, headers: Record<string, string>, timeoutMs: number): Promise<Answer | undefined> {
  try {
    const res = await fetch(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: kept as text */
    }
    return { status: res.status, headers: res.headers, body };
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const shape = (v: unknown) =>
  Array.isArray(v)
    ? `an array of ${v.length}`
    : isObject(v)
      ? `an object with keys ${Object.keys(v).join(', ') || '(none)'}`
      : JSON.stringify(v)?.slice(0, 60);

/** The list of a body: the body itself, or the one array at the top or one level down ('' = the body). */
function listPath(body: unknown): { path?: string; seen: string } {
  if (Array.isArray(body)) return { path: '', seen: 'a bare array' };
  if (!isObject(body)) return { seen: shape(body) ?? 'no body' };
  const arrays: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v)) arrays.push(k);
    else if (isObject(v)) for (const [k2, v2] of Object.entries(v)) if (Array.isArray(v2)) arrays.push(`${k}.${k2}`);
  }
  if (arrays.length === 1) return { path: arrays[0], seen: `an object whose only list is ${arrays[0]}` };
  return { seen: `${shape(body)}${arrays.length ? ` (lists: ${arrays.join(', ')})` : ' and no list'}` };
}

const at = (body: unknown, path: string): unknown =>
  path === '' ? body : path.split('.').reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), body);

/** Whole-number fields of a body (top level and one level down), as dotted paths. */
function numberFields(body: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (!isObject(body)) return out;
  for (const [k, v] of Object.entries(body)) {
    if (Number.isInteger(v)) out.set(k, v as number);
    else if (isObject(v))
      for (const [k2, v2] of Object.entries(v)) if (Number.isInteger(v2)) out.set(`${k}.${k2}`, v2 as number);
  }
  return out;
}

export async function probeBindings(baseUrl: string, opts: ProbeOptions = {}): Promise<Finding[]> {
  const base = baseUrl.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const findings: Finding[] = [];
  const ask = (path: string, headers: Record<string, string> = {}) => get(`${base}${path}`, headers, timeoutMs);

  // the token header, and the Domains answer it gets
  let auth: Record<string, string> = {};
  let domains = await ask('/api/Domains');
  if (!domains) throw new Error(`${base}/api/Domains did not answer`);
  if (domains.status < 300) {
    findings.push({
      key: 'tokenHeader',
      note: `GET /api/Domains answered ${domains.status} without a token: the token header cannot be told`,
    });
  } else if (!opts.token) {
    findings.push({
      key: 'tokenHeader',
      note: `GET /api/Domains answered ${domains.status} without a token; give --token to recognise the header`,
    });
  } else {
    const tried: string[] = [];
    for (const [header, prefix] of TOKEN_HEADERS) {
      const a = await ask('/api/Domains', { [header]: `${prefix}${opts.token}` });
      tried.push(`${header}: ${prefix}<token> -> ${a?.status ?? 'no answer'}`);
      if (a && a.status < 300) {
        auth = { [header]: `${prefix}${opts.token}` };
        domains = a;
        findings.push({
          key: 'tokenHeader',
          value: header,
          note: `GET /api/Domains answered ${a.status} with "${header}: ${prefix}<token>"`,
        });
        findings.push({
          key: 'tokenPrefix',
          value: prefix,
          note: prefix ? `the token went after "${prefix}"` : 'the token went alone',
        });
        break;
      }
    }
    if (!Object.keys(auth).length)
      findings.push({ key: 'tokenHeader', note: `no usual header was accepted (${tried.join('; ')})` });
  }

  // the envelope of the domain list
  let domainNames: string[] = [];
  if (domains.status < 300) {
    const l = listPath(domains.body);
    findings.push(
      l.path === undefined
        ? {
            key: 'domainsListField',
            note: `GET /api/Domains answered ${l.seen}: cannot tell which list holds the domains`,
          }
        : { key: 'domainsListField', value: l.path, note: `GET /api/Domains answered ${l.seen}` },
    );
    if (l.path !== undefined) {
      const list = at(domains.body, l.path) as unknown[];
      domainNames = list.flatMap((d) => (isObject(d) && typeof d.Name === 'string' ? [d.Name] : []));
    }
  } else {
    findings.push({
      key: 'domainsListField',
      note: `GET /api/Domains answered ${domains.status}: no domain list to look at`,
    });
  }

  // the total count and the start offset, on one domain's Query
  const domain = domainNames.includes('Claim') ? 'Claim' : (domainNames[0] ?? 'Claim');
  const query = (params: string) => ask(`/api/${encodeURIComponent(domain)}/Query?${params}`, auth);
  const plain = await query('take=2');
  if (!plain || plain.status >= 300) {
    const seen = `GET /api/${domain}/Query?take=2 answered ${plain?.status ?? 'nothing'}`;
    findings.push({ key: 'query.includeTotalCount', note: seen }, { key: 'query.skip', note: seen });
  } else {
    const rows = listPath(plain.body);
    const records = rows.path !== undefined ? (at(plain.body, rows.path) as unknown[]) : [];
    const plainFields = numberFields(plain.body);
    const plainHeaders = new Set([...plain.headers.keys()]);
    let counted: Finding[] | undefined;
    for (const p of TOTAL_COUNT_PARAMS) {
      const a = await query(`take=1&${encodeURIComponent(p)}=true`);
      if (!a || a.status >= 300) continue;
      const field = [...numberFields(a.body)].find(([k, n]) => !plainFields.has(k) && n >= records.length);
      const header = [...a.headers].find(
        ([k, v]) => !plainHeaders.has(k) && /^\d+$/.test(v.trim()) && /count|total/i.test(k),
      );
      const seen = `GET /api/${domain}/Query?take=1&${p}=true answered`;
      if (field)
        counted = [
          {
            key: 'query.includeTotalCount',
            value: p,
            note: `${seen} the body field ${field[0]} = ${field[1]}, absent without ${p}`,
          },
          { key: 'totalCountField', value: field[0], note: 'the body field that appeared' },
        ];
      else if (header)
        counted = [
          {
            key: 'query.includeTotalCount',
            value: p,
            note: `${seen} the header ${header[0]}: ${header[1]}, absent without ${p}`,
          },
          { key: 'totalCountHeader', value: header[0], note: 'the header that appeared' },
        ];
      if (counted) break;
    }
    findings.push(
      ...(counted ?? [
        {
          key: 'query.includeTotalCount',
          note: `none of ${TOTAL_COUNT_PARAMS.join(', ')} (=true) added a whole number to the body or a count header (plain query: ${shape(plain.body)})`,
        },
      ]),
    );

    if (records.length < 2) {
      findings.push({
        key: 'query.skip',
        note: `GET /api/${domain}/Query?take=2 answered ${records.length} record(s) (${rows.seen}): two are needed to tell the start offset`,
      });
    } else {
      const second = JSON.stringify(records[1]);
      let skip: string | undefined;
      for (const p of SKIP_PARAMS) {
        const a = await query(`take=1&${encodeURIComponent(p)}=1`);
        const got =
          a && a.status < 300 && rows.path !== undefined ? (at(a.body, rows.path) as unknown[] | undefined) : undefined;
        if (
          Array.isArray(got) &&
          got.length === 1 &&
          JSON.stringify(got[0]) === second &&
          JSON.stringify(records[0]) !== second
        ) {
          skip = p;
          break;
        }
      }
      findings.push(
        skip
          ? {
              key: 'query.skip',
              value: skip,
              note: `GET /api/${domain}/Query?take=1&${skip}=1 answered the second record of the plain query`,
            }
          : {
              key: 'query.skip',
              note: `none of ${SKIP_PARAMS.join(', ')} (=1) answered the plain query's second record`,
            },
      );
    }
  }

  return findings;
}
