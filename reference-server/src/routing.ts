// Method-aware route resolution (spec/openapi.yaml, "Route resolution"): a request resolves to the
// most specific declared path template first (literal segments win over parameters), and only
// then is its method looked at. A method that template does not declare is answered 405 with an
// `Allow` header, never handed to a less specific template: GET /api/Link/Upsert is the link
// upsert path asked with the wrong method, not the record `Upsert` of a domain `Link`.
import type { Context, Hono } from 'hono';
import type { AppEnv } from './deps.js';
import { problem } from './errors.js';

interface Template {
  segments: string[];
  methods: Set<string>;
}

function segmentsOf(p: string): string[] {
  return p.split('/').filter(Boolean);
}

const isParam = (s: string) => s.startsWith(':');

/** Literal segments win over parameters, position by position from the left. */
function moreSpecific(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) {
    const la = !isParam(a[i]);
    const lb = !isParam(b[i]);
    if (la !== lb) return la ? 1 : -1;
  }
  return 0;
}

/** How many path shapes `allowed` keeps the answer of (a shape is a path with every segment that
 * no template has at its position replaced by one marker: there are few of them). */
const SHAPE_CACHE_SIZE = 4096;
/** Stands for a segment no template names at its position (a template segment is never empty). */
const ANY = '';

export class MethodRouter {
  private templates: Template[] = [];
  /** the literal segments the templates hold at each position */
  private literalsAt: Array<Set<string>> = [];
  private byShape = new Map<string, Set<string> | undefined>();

  /** Reads the declared routes of `app` (call after every route is registered). */
  seal(app: Hono<AppEnv>): void {
    const byPath = new Map<string, Set<string>>();
    for (const r of app.routes) {
      if (r.method === 'ALL' || r.path.includes('*')) continue; // middleware
      const set = byPath.get(r.path) ?? new Set<string>();
      set.add(r.method.toUpperCase());
      byPath.set(r.path, set);
    }
    this.templates = [...byPath].map(([p, methods]) => ({ segments: segmentsOf(p), methods }));
    this.literalsAt = [];
    for (const t of this.templates)
      t.segments.forEach((s, i) => {
        const at = (this.literalsAt[i] ??= new Set<string>());
        if (!isParam(s)) at.add(s);
      });
    this.byShape.clear();
  }

  /** The methods of the most specific templates matching `path`, or undefined when none matches.
   * Which templates match depends only on the path's shape (a segment counts only where some
   * template names it), so the answer is kept per shape: a record read's path differs from the
   * last one in its ID alone, which no template names. */
  allowed(path: string): Set<string> | undefined {
    const shape = this.shapeOf(path);
    if (shape === undefined) return undefined; // more segments than any template
    if (this.byShape.has(shape)) return this.byShape.get(shape);
    const out = this.resolve(segmentsOf(path));
    if (this.byShape.size < SHAPE_CACHE_SIZE) this.byShape.set(shape, out);
    return out;
  }

  /** The path's segments (empty ones skipped, as segmentsOf does), each one no template names at
   * its position replaced by ANY, joined by '/'; undefined when it has more segments than any
   * template. */
  private shapeOf(path: string): string | undefined {
    let shape = '';
    let at = 0;
    for (let i = 0; i <= path.length;) {
      let j = path.indexOf('/', i);
      if (j < 0) j = path.length;
      if (j > i) {
        const literals = this.literalsAt[at];
        if (!literals) return undefined;
        const seg = path.slice(i, j);
        shape += (literals.has(seg) ? seg : ANY) + '/';
        at++;
      }
      i = j + 1;
    }
    return shape;
  }

  private resolve(segs: string[]): Set<string> | undefined {
    const matching = this.templates.filter(
      (t) => t.segments.length === segs.length && t.segments.every((s, i) => isParam(s) || s === segs[i]),
    );
    if (matching.length === 0) return undefined;
    let best = [matching[0]];
    for (const t of matching.slice(1)) {
      const cmp = moreSpecific(t.segments, best[0].segments);
      if (cmp > 0) best = [t];
      else if (cmp === 0) best.push(t);
    }
    const out = new Set<string>();
    for (const t of best) for (const m of t.methods) out.add(m);
    if (out.has('GET')) out.add('HEAD');
    return out;
  }

  /** 405 + Allow for a method the resolved template does not declare; undefined when it passes. */
  // REQ: GEN-005
  refusal(c: Context<AppEnv>): Response | undefined {
    const allowed = this.allowed(c.req.path);
    if (!allowed || allowed.has(c.req.method.toUpperCase())) return undefined;
    const allow = [...allowed].sort().join(', ');
    const res = problem(
      c,
      405,
      'MethodNotAllowed',
      `${c.req.method} is not declared for ${c.req.path}; it allows ${allow}.`,
    );
    res.headers.set('Allow', allow);
    return res;
  }
}
