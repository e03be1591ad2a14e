// The OpenAPI document (spec/generated/openapi.json): operation matching and response lookup.
import fs from 'node:fs';
import path from 'node:path';
import { SPEC_DIR } from '../paths.js';

export interface OperationMatch {
  operationId: string;
  method: string;
  /** The OpenAPI path template, e.g. `/api/{domain}/{id}`. */
  pathTemplate: string;
  pathParams: Record<string, string>;
  /** The operation is marked `x-implementation-defined: true` as a whole. */
  implementationDefined: boolean;
}

export interface ResponseSpec {
  /** The key under `responses` that matched: `200`, `4XX` or `default`. */
  key: string;
  implementationDefined: boolean;
  /** JSON pointer (into the document) of the JSON body schema, when the response has one. */
  schemaPointer?: string;
  /** Declared content types. */
  contentTypes: string[];
}

interface Route {
  template: string;
  segments: Array<{ literal: string } | { param: string }>;
}

export class OpenApiIndex {
  readonly routes: Route[];
  constructor(readonly doc: any) {
    this.routes = Object.keys(doc?.paths ?? {}).map((template) => ({
      template,
      segments: splitPath(template).map((s) => {
        const m = /^\{([^}]+)\}$/.exec(s);
        return m ? { param: m[1] } : { literal: s };
      }),
    }));
  }

  get version(): string {
    return String(this.doc?.info?.version ?? '');
  }

  /**
   * The query parameter names the document declares for an operation (path-level and its own)
   * without the x-implementation-defined marker: what the spec documents for it.
   */
  documentedQueryParameters(op: Pick<OperationMatch, 'pathTemplate' | 'method'>): Set<string> {
    const item = this.doc?.paths?.[op.pathTemplate] ?? {};
    const operation = item[op.method.toLowerCase()] ?? {};
    const resolve = (p: any): any =>
      typeof p?.$ref === 'string' && p.$ref.startsWith('#/')
        ? p.$ref
            .slice(2)
            .split('/')
            .reduce((n: any, k: string) => n?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc)
        : p;
    const names = new Set<string>();
    for (const raw of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
      const p = resolve(raw);
      if (p?.in === 'query' && p['x-implementation-defined'] !== true) names.add(String(p.name));
    }
    return names;
  }

  /**
   * The operation a request addresses. `pathname` is relative to the base URL (starts with `/`).
   * Among templates that match, literal segments win over templated ones, compared left to right
   * (`/api/File/Query` beats `/api/{domain}/Query`, which beats `/api/{domain}/{id}`).
   */
  match(method: string, pathname: string): OperationMatch | undefined {
    const segs = splitPath(pathname).map(safeDecode);
    const m = method.toLowerCase();
    let best: { route: Route; score: number[]; params: Record<string, string> } | undefined;
    for (const route of this.routes) {
      if (route.segments.length !== segs.length) continue;
      const op = this.doc.paths[route.template]?.[m];
      if (!op) continue;
      const params: Record<string, string> = {};
      const score: number[] = [];
      let ok = true;
      for (let i = 0; i < segs.length; i++) {
        const s = route.segments[i];
        if ('literal' in s) {
          if (s.literal !== segs[i]) {
            ok = false;
            break;
          }
          score.push(1);
        } else {
          params[s.param] = segs[i];
          score.push(0);
        }
      }
      if (!ok) continue;
      if (!best || compareScores(score, best.score) > 0) best = { route, score, params };
    }
    if (!best) return undefined;
    const op = this.doc.paths[best.route.template][m];
    return {
      operationId: String(op.operationId ?? `${m} ${best.route.template}`),
      method: m,
      pathTemplate: best.route.template,
      pathParams: best.params,
      implementationDefined: op['x-implementation-defined'] === true,
    };
  }

  /** The documented response of an operation for a status, or undefined when the status is undocumented. */
  response(match: Pick<OperationMatch, 'method' | 'pathTemplate'>, status: number): ResponseSpec | undefined {
    const op = this.doc.paths?.[match.pathTemplate]?.[match.method];
    const responses = op?.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default'].find(
      (k) => k in responses,
    );
    if (key === undefined) return undefined;
    return this.responseAt(match.pathTemplate, match.method, key);
  }

  /** The response of an operation under one of its keys (a status, `4XX`, `default`), references followed. */
  private responseAt(template: string, method: string, key: string): ResponseSpec {
    const op = this.doc.paths[template][method];
    let pointer = `/paths/${esc(template)}/${method}/responses/${esc(key)}`;
    let resp = op.responses[key];
    const seen = new Set<string>();
    while (resp && typeof resp.$ref === 'string' && resp.$ref.startsWith('#/') && !seen.has(resp.$ref)) {
      seen.add(resp.$ref);
      pointer = resp.$ref.slice(1);
      resp = this.resolve(pointer);
    }
    const content = resp?.content ?? {};
    const contentTypes = Object.keys(content);
    const jsonType = contentTypes.find((t) => /json/i.test(t) && content[t]?.schema !== undefined);
    return {
      key,
      implementationDefined: resp?.['x-implementation-defined'] === true || op['x-implementation-defined'] === true,
      schemaPointer: jsonType ? `${pointer}/content/${esc(jsonType)}/schema` : undefined,
      contentTypes,
    };
  }

  /** The JSON pointer of every documented JSON response body schema, as response() names them:
   * what the generic checks may validate a body against. */
  responseSchemaPointers(): string[] {
    const out = new Set<string>();
    for (const [template, item] of Object.entries<any>(this.doc.paths ?? {})) {
      for (const [method, op] of Object.entries<any>(item ?? {})) {
        if (!op || typeof op !== 'object' || typeof op.responses !== 'object') continue;
        for (const key of Object.keys(op.responses)) {
          const pointer = this.responseAt(template, method, key).schemaPointer;
          if (pointer) out.add(pointer);
        }
      }
    }
    return [...out].sort();
  }

  resolve(pointer: string): any {
    let cur: any = this.doc;
    for (const raw of pointer.split('/').slice(1)) {
      const k = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      cur = cur?.[k];
    }
    return cur;
  }
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function splitPath(p: string): string[] {
  return p
    .split('?')[0]
    .split('/')
    .filter((s) => s.length > 0);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** JSON-pointer escaping of one token. */
function esc(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

const OPENAPI_JSON = path.join(SPEC_DIR, 'generated', 'openapi.json');

let cached: OpenApiIndex | undefined;
/** Loads spec/generated/openapi.json once per process. */
export function loadOpenApi(file: string = OPENAPI_JSON): OpenApiIndex {
  if (cached && file === OPENAPI_JSON) return cached;
  const idx = new OpenApiIndex(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (file === OPENAPI_JSON) cached = idx;
  return idx;
}
