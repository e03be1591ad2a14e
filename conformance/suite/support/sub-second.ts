// Timestamps within one second (data class timestamp.within-one-second, spec/data-classes.yaml):
// uploads timed by the suite so that the service's EntryDates land on both sides of the places
// where a fraction printed with the wrong number of digits reads as another instant (ms 9 -> 10
// and ms 99 -> 100 of one second: `.016` printed `.16` reads as 160 ms, `.095` printed `.95` as
// 950 ms), and the judgement of what landed where.
//
// The service sets EntryDate (spec 2.2: the upload time), so the suite cannot choose one: it times
// its uploads. Where the service's second begins is found from the EntryDates themselves, whose
// whole-second part is trusted (a wrong fraction cannot move it): the first upload whose EntryDate
// is in a later second than the one before it shows that the second began after the earlier
// upload was sent and before the later one was answered. Each upload's offset into that second is
// then bounded from the suite's own clock (send and answer times), never read from the fraction
// under judgement. The HTTP Date header is not used: it has whole seconds only and many servers
// refresh it on a timer that is not aligned to the second (ASP.NET Core's Kestrel once a second
// from its heartbeat), so its change says little about where the second begins.
//
// Nothing here depends on vitest or the DSL: the analysis is unit-tested on its own
// (conformance/test/sub-second.test.ts).

/** An ISO 8601 date and time without zone, parsed to whole seconds and the fraction's digits. */
export interface Instant {
  /** Seconds since 1970 of the date and time read as if UTC (only differences matter). */
  seconds: number;
  /** The fraction's digits as printed, without the dot ('' when there is none). */
  fraction: string;
}

const LOCAL_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/;

/** The instant a timestamp without zone designator names, to the full precision printed; undefined when it is none. */
export function parseInstant(v: unknown): Instant | undefined {
  if (typeof v !== 'string') return undefined;
  const m = LOCAL_TIMESTAMP.exec(v);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(ms)) return undefined;
  return { seconds: ms / 1000, fraction: m[7] ?? '' };
}

/**
 * Orders two instants by their full printed precision: whole seconds, then the fractions as
 * decimals (`.5` = `.500` = `.5000000` > `.16` = `.160`), never by string order or by a parser
 * that drops digits past the millisecond.
 */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  const n = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(n, '0');
  const fb = b.fraction.padEnd(n, '0');
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

/** Milliseconds into its second that an instant's fraction names (for messages and evidence). */
export function fractionMs(i: Instant): number {
  return i.fraction === '' ? 0 : Number(`0.${i.fraction}`) * 1000;
}

/** One upload of a burst: when it was sent and answered (the suite's clock, ms) and the EntryDate read back. */
export interface Upload {
  fileId: number;
  sentAt: number;
  answeredAt: number;
  entryDate: string;
}

/** Where an upload landed in the service's second, bounded from the suite's clock. */
export interface Placed extends Upload {
  /** Index in the burst (upload order). */
  index: number;
  /** Lower and upper bound of the upload's offset into the new second, in ms. */
  lo: number;
  hi: number;
}

/** A second boundary the burst crossed (by the EntryDates' whole seconds), and the uploads in the new second. */
export interface Crossing {
  /** Index of the last upload of the earlier second. */
  before: number;
  /** The uploads of the new second, in upload order, with their bounds. */
  after: Placed[];
}

/**
 * The crossings of a burst: for each upload whose EntryDate is in a later whole second than the
 * one before it (p), the uploads i of that new second, each with its offset into the second
 * bounded as (sent_i - answered_f, answered_i - sent_p), f the first of the new second: the second
 * began after p's EntryDate was set (not before p was sent) and no later than f's (not after f
 * was answered). The uploads' EntryDates must parse; those that do not are left out.
 */
export function crossings(uploads: Upload[]): Crossing[] {
  const out: Crossing[] = [];
  const parsed = uploads.map((u) => parseInstant(u.entryDate));
  for (let f = 1; f < uploads.length; f++) {
    const a = parsed[f - 1];
    const b = parsed[f];
    if (!a || !b || b.seconds <= a.seconds) continue;
    const p = uploads[f - 1]!;
    const first = uploads[f]!;
    const after: Placed[] = [];
    for (let i = f; i < uploads.length && parsed[i]?.seconds === b.seconds; i++) {
      const u = uploads[i]!;
      after.push({ ...u, index: i, lo: Math.max(0, u.sentAt - first.answeredAt), hi: u.answeredAt - p.sentAt });
    }
    out.push({ before: f - 1, after });
  }
  return out;
}

/**
 * A pair of uploads of one second that a fraction printed with too few digits (its leading zeros
 * dropped) puts out of order, whatever the exact instants within the bounds: the first surely in
 * [from, to) ms, which such a fraction reads as at least ten times as much, the second surely later
 * and surely before ten times the first's lower bound.
 */
export interface Straddle {
  first: Placed;
  second: Placed;
}

function straddle(c: Crossing, from: number, to: number): Straddle | undefined {
  for (const first of c.after) {
    if (first.lo < from || first.hi >= to) continue;
    const second = c.after.find((x) => x.index > first.index && x.lo >= to && x.hi < 10 * first.lo);
    if (second) return { first, second };
  }
  return undefined;
}

/** What a burst exercised: the straddles of ms 99 -> 100 and 9 -> 10, and the evidence in words. */
export interface WindowVerdict {
  /** Uploads surely in [20, 100) ms and, later, surely in [100, 10x the first's lower bound) ms of one second: the class is exercised. */
  across100?: Straddle;
  /** Uploads surely in [2, 10) ms and surely in [10, 10x the first) ms of one second. */
  across10?: Straddle;
  /** EntryDates whose fraction reads below 100 ms. */
  parsedUnder100: number;
  /** Uploads whose offset into a crossed second is surely below 100 ms (by the suite's clock). */
  surelyUnder100: number;
  /** ... of which surely in the first 10 ms. */
  surelyUnder10: number;
  /** One line of evidence for reports and messages. */
  evidence: string;
}

/** Judges where a burst's uploads landed (crossings); the EntryDates are judged elsewhere. */
export function judgeWindow(uploads: Upload[]): WindowVerdict {
  const cs = crossings(uploads);
  let across100: Straddle | undefined;
  let across10: Straddle | undefined;
  for (const c of cs) {
    across100 ??= straddle(c, 20, 100);
    across10 ??= straddle(c, 2, 10);
  }
  const parsedUnder100 = uploads.filter((u) => {
    const i = parseInstant(u.entryDate);
    return i !== undefined && fractionMs(i) < 100;
  }).length;
  const surely = (ms: number) => cs.reduce((n, c) => n + c.after.filter((x) => x.hi < ms).length, 0);
  const [surelyUnder100, surelyUnder10] = [surely(100), surely(10)];
  const at = (s: Straddle | undefined) =>
    s
      ? `uploads ${s.first.index + 1} (${fmt(s.first)}) and ${s.second.index + 1} (${fmt(s.second)})`
      : 'no pair of uploads';
  const evidence =
    `${uploads.length} uploads, ${cs.length} second boundary(ies) crossed; ` +
    `${surelyUnder100} upload(s) surely in the first 100 ms of a second by the suite's clock (${surelyUnder10} in the first 10 ms), ` +
    `${parsedUnder100} EntryDate(s) with a fraction below 100 ms; ` +
    `across ms 99 -> 100: ${at(across100)}; across ms 9 -> 10: ${at(across10)}`;
  return {
    ...(across100 ? { across100 } : {}),
    ...(across10 ? { across10 } : {}),
    parsedUnder100,
    surelyUnder100,
    surelyUnder10,
    evidence,
  };
}

function fmt(x: Placed): string {
  return `${x.lo.toFixed(1)}..${x.hi.toFixed(1)} ms, EntryDate ${x.entryDate}`;
}

/** The uploads as lines for a message: upload order, EntryDate and when it was sent (relative to the first). */
export function describeUploads(uploads: Upload[]): string {
  const t0 = uploads[0]?.sentAt ?? 0;
  return uploads
    .map(
      (u, i) =>
        `  ${String(i + 1).padStart(2)}. file ${u.fileId}: EntryDate ${u.entryDate} (sent +${(u.sentAt - t0).toFixed(1)} ms, answered +${(u.answeredAt - t0).toFixed(1)} ms)`,
    )
    .join('\n');
}

/**
 * The plan of a burst: how long to wait before the next upload, given what the uploads so far
 * showed. The suite's clock names a first guess of the service's second (a boundary where the
 * suite's own second begins); once the EntryDates show where a service second began, that
 * estimate replaces the guess. Around an expected boundary, uploads go every `pace` ms from `lead`
 * ms before it, back to back from `near` ms before it to `near` ms after it, and every `pace` ms
 * again up to `tail` ms after it; between two windows the burst waits for the next one (a timer
 * computed from the estimate, not a fixed sleep). Until a boundary has been seen, the windows are
 * the guess's, `guesses` of them (the first uploads of a run may answer too slowly to straddle
 * the first), each ending `near` ms after the guessed boundary unless the uploads crossed one;
 * after those, the service's clock is elsewhere in its second, and uploads go every `sweep` ms
 * until they cross a boundary (at most a second of them), and on to that second's tail.
 */
export interface BurstPlan {
  lead: number;
  near: number;
  /** The least time between two uploads sent back to back (ms). */
  gap: number;
  pace: number;
  tail: number;
  guesses: number;
  sweep: number;
}

export const DEFAULT_PLAN: BurstPlan = { lead: 40, near: 10, gap: 2, pace: 12, tail: 300, guesses: 2, sweep: 30 };

/**
 * The suite's clock time of the next service second boundary at or after `now`: from the crossing
 * of the uploads so far that bounds its boundary most tightly (to within `within` ms), else the
 * guess (the suite's own second; `seen` false).
 */
export function nextBoundary(uploads: Upload[], now: number, within = 60): { at: number; seen: boolean } {
  let best: { at: number; width: number } | undefined;
  for (const c of crossings(uploads)) {
    // the boundary lies in (sent of the last upload before it, answered of the first after it]
    const p = uploads[c.before]!;
    const f = uploads[c.before + 1]!;
    const width = f.answeredAt - p.sentAt;
    if (width <= within && (!best || width < best.width)) best = { at: (p.sentAt + f.answeredAt) / 2, width };
  }
  if (best) return { at: best.at + Math.max(0, Math.ceil((now - best.at) / 1000)) * 1000, seen: true };
  return { at: Math.ceil(now / 1000) * 1000, seen: false };
}

/**
 * How long to wait (ms, >= 0) before the next upload, given the uploads so far and when the burst
 * began (the first window is the one of the suite's second boundary after `began`).
 */
export function waitBeforeNext(uploads: Upload[], now: number, began: number, plan: BurstPlan = DEFAULT_PLAN): number {
  const lastSent = uploads[uploads.length - 1]?.sentAt ?? -Infinity;
  const after = (ms: number) => Math.max(0, lastSent + ms - now);
  const { at: next, seen } = nextBoundary(uploads, now);
  // the guessed windows begin with the first whose lead is after `began`
  const guessed = nextBoundary([], began + plan.lead).at;
  const prev = next - 1000;
  // after a boundary: back to back, then paced to the tail; after a guessed one that the uploads
  // did not show, nothing more (the guess was wrong, or the answers too slow)
  if (seen && now - prev < plan.tail) return after(now - prev < plan.near ? plan.gap : plan.pace);
  if (!seen && prev >= guessed && now - prev < plan.near) return after(plan.gap);
  if (!seen && now > guessed + (plan.guesses - 1) * 1000 + plan.near) return after(plan.sweep);
  if (next - now <= plan.near) return after(plan.gap);
  if (next - now <= plan.lead) return after(plan.pace);
  return Math.max(0, next - plan.lead - now);
}

/**
 * Whether more uploads cannot straddle the window: an upload surely in [20, 100) ms of a second is
 * bounded to less than 80 ms, and its bounds are at least as wide as its own answer time plus the
 * one that found the boundary (two answers), so `last` uploads in a row that each took 40 ms or
 * more mean the service answers too slowly for it: the burst ends, not-applicable, instead of
 * running to its 80 uploads (through a proxy adding 50 ms to each answer it made the test the
 * core run's critical path, 242 requests: 12 s; docs/benchmarks.md, third session).
 */
export const TOO_SLOW_MS = 40;

export function tooSlow(uploads: Upload[], last = 3): boolean {
  const tail = uploads.slice(-last);
  return tail.length === last && tail.every((u) => u.answeredAt - u.sentAt >= TOO_SLOW_MS);
}
