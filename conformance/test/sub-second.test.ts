// The timing and judgement of uploads within one second (conformance/suite/support/sub-second.ts),
// against a simulated service: its clock offset from the suite's, its latency, and a fraction
// printed right or without its leading zeros (the fault entry-date-ms-not-zero-padded).
import { describe, expect, it } from 'vitest';
import {
  type Upload,
  compareInstants,
  crossings,
  judgeWindow,
  parseInstant,
  tooSlow,
  TOO_SLOW_MS,
  waitBeforeNext,
} from '../suite/support/sub-second.js';

const at = (fraction: string, second = 5) => `2026-11-28T07:00:0${second}${fraction}`;

describe('parseInstant and compareInstants', () => {
  it('orders by the full printed fraction, whatever its number of digits', () => {
    const p = (s: string) => parseInstant(s)!;
    expect(compareInstants(p(at('.5')), p(at('.500')))).toBe(0);
    expect(compareInstants(p(at('.5')), p(at('.5000000')))).toBe(0);
    expect(compareInstants(p(at('.16')), p(at('.016')))).toBe(1);
    expect(compareInstants(p(at('.16')), p(at('.5')))).toBe(-1);
    // beyond the millisecond, where Date.parse sees two equal instants
    expect(compareInstants(p(at('.1234567')), p(at('.1234568')))).toBe(-1);
    expect(compareInstants(p(at('.999', 4)), p(at('.001', 5)))).toBe(-1);
    expect(compareInstants(p(at('', 5)), p(at('.0', 5)))).toBe(0);
  });

  it('takes only a date and time without zone designator', () => {
    expect(parseInstant(at('.123Z'))).toBeUndefined();
    expect(parseInstant('2026-11-28')).toBeUndefined();
    expect(parseInstant(12)).toBeUndefined();
    expect(parseInstant(at('.123'))).toEqual({ seconds: Date.UTC(2026, 10, 28, 7, 0, 5) / 1000, fraction: '123' });
  });
});

/** A simulated service: its clock is the suite's plus `offset` ms; each upload takes `latency()` ms, stamped somewhere in it. */
function simulate(opts: { offset: number; latency: () => number; start: number; pad: boolean; max?: number }): {
  uploads: Upload[];
  truth: number[];
} {
  let now = opts.start;
  const began = now;
  const uploads: Upload[] = [];
  const truth: number[] = [];
  for (let n = 0; n < (opts.max ?? 80) && !judgeWindow(uploads).across100; n++) {
    now += waitBeforeNext(uploads, now, began);
    const sentAt = now;
    const l = opts.latency();
    const stamp = sentAt + l * Math.random() + opts.offset;
    now += l;
    const ms = Math.floor(stamp) % 1000;
    const d = new Date(Math.floor(stamp));
    const whole = d.toISOString().slice(0, 19);
    const fraction = opts.pad ? String(ms).padStart(3, '0') : String(ms);
    uploads.push({ fileId: n + 1, sentAt, answeredAt: now, entryDate: `${whole}.${fraction}` });
    truth.push(stamp);
    now += 0.5; // reading the EntryDate back
  }
  return { uploads, truth };
}

function outOfOrder(uploads: Upload[]): boolean {
  return uploads.some(
    (u, i) => i > 0 && compareInstants(parseInstant(uploads[i - 1]!.entryDate)!, parseInstant(u.entryDate)!) > 0,
  );
}

describe('a burst against a simulated service', () => {
  const start = Date.UTC(2026, 10, 28, 7, 0, 0) + 337;

  for (const offset of [0, 25, -30, 310, -480, 999]) {
    for (const latency of [1, 4, 12]) {
      it(`straddles ms 99 -> 100 with the clock ${offset} ms off and ${latency} ms answers, bounds holding the truth`, () => {
        for (let run = 0; run < 8; run++) {
          const { uploads, truth } = simulate({
            offset,
            latency: () => latency * (0.5 + Math.random()),
            start,
            pad: true,
          });
          const v = judgeWindow(uploads);
          expect(v.across100, v.evidence).toBeDefined();
          expect(uploads.length, v.evidence).toBeLessThanOrEqual(offset === 0 || Math.abs(offset) < 40 ? 40 : 80);
          expect(outOfOrder(uploads), 'a correct service is in upload order').toBe(false);
          // soundness: every bound holds the true offset into the second
          for (const c of crossings(uploads))
            for (const x of c.after) {
              const trueMs = Math.floor(truth[x.index]!) % 1000;
              expect(trueMs, `upload ${x.index + 1}: ${x.lo}..${x.hi}`).toBeGreaterThanOrEqual(Math.floor(x.lo) - 1);
              expect(trueMs, `upload ${x.index + 1}: ${x.lo}..${x.hi}`).toBeLessThanOrEqual(Math.ceil(x.hi));
            }
        }
      });
    }
  }

  it('a fraction printed without its leading zeros is out of upload order whenever the window was straddled', () => {
    let straddled = 0;
    for (let run = 0; run < 60; run++) {
      const { uploads } = simulate({
        offset: run * 7,
        latency: () => 1 + 10 * Math.random(),
        start: start + run * 13,
        pad: false,
      });
      if (!judgeWindow(uploads).across100) continue;
      straddled++;
      expect(outOfOrder(uploads), uploads.map((u) => u.entryDate).join(' ')).toBe(true);
    }
    expect(straddled).toBeGreaterThan(55);
  });

  it('answers slower than the window never count as exercised, and end the burst', () => {
    const { uploads } = simulate({ offset: 0, latency: () => 120, start, pad: true, max: 30 });
    const v = judgeWindow(uploads);
    expect(v.across100).toBeUndefined();
    expect(v.evidence).toMatch(/across ms 99 -> 100: no pair of uploads/);
    expect(tooSlow(uploads.slice(0, 2))).toBe(false);
    expect(tooSlow(uploads.slice(0, 3))).toBe(true);
    expect(tooSlow([...uploads.slice(0, 2), { ...uploads[2]!, answeredAt: uploads[2]!.sentAt + 30 }])).toBe(false);
  });

  it('answers of 40 ms or more can never be bounded inside the window: such a burst ends after 3', () => {
    // two answers bound an upload (its own and the boundary's): 2 x 40 ms is the window's 80 ms
    for (const ms of [TOO_SLOW_MS, 45, 50, 60])
      for (const offset of [0, 25, -30, 310]) {
        const { uploads } = simulate({ offset, latency: () => ms, start, pad: true, max: 80 });
        expect(judgeWindow(uploads).across100, `answers of ${ms} ms, clocks ${offset} ms apart`).toBeUndefined();
        expect(tooSlow(uploads.slice(0, 3)), `answers of ${ms} ms`).toBe(true);
      }
  });
});
