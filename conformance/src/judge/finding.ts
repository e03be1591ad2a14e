// What a judge answers and what it reads. A judge is a pure function from what one answer (or an
// ordered list of answers) shows to findings on requirements of spec/requirements.yaml; the suite
// (live) and the traffic rules (recordings) both call it, so a requirement has one predicate. A
// judge never sends a request: what only the live side knows (the bytes it uploaded, its clock)
// comes in as an optional argument, and without it the judge decides what the answer alone shows.

/** One requirement decided: `detail` says what was seen (for a failure, what was expected instead). */
export interface Finding {
  requirement: string;
  ok: boolean;
  detail: string;
}

/** One decoded exchange: the operation of spec/openapi.yaml, its path parameters, the answer. */
export interface DecodedExchange {
  operationId: string;
  pathParams: Readonly<Record<string, string | number>>;
  status: number;
  /** Lower-case names. */
  headers?: Readonly<Record<string, string>>;
  /** The parsed answer body. */
  body: unknown;
}

/** A judge and the requirements it can decide (the guard test reads these). */
export interface JudgeEntry {
  name: string;
  requirements: readonly string[];
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** The first failing finding of `requirement`, else its first passing one; undefined when not decided. */
export function findingOf(findings: readonly Finding[], requirement: string): Finding | undefined {
  const of = findings.filter((f) => f.requirement === requirement);
  return of.find((f) => !f.ok) ?? of[0];
}
