// endAfterTurn (answer-batch.ts): every end of a turn takes effect after the turn, in the order
// the ends were called; an end that throws fails its own answer only.
import { describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { endAfterTurn } from '../src/answer-batch.js';

/** A stand-in answer that records what its own end and destroy were called with. */
function answer(log: string[], name: string, opts: { throws?: boolean } = {}) {
  const res = {
    end(...args: unknown[]) {
      if (opts.throws) throw new Error(`${name} failed`);
      log.push(`${name} end ${JSON.stringify(args)}`);
      return res;
    },
    destroy(err?: Error) {
      log.push(`${name} destroy ${err?.message}`);
    },
  };
  return res as unknown as ServerResponse;
}

const turnEnd = () => new Promise((r) => setImmediate(r));

describe('endAfterTurn', () => {
  it('writes nothing during the turn, then every answer in the order its end was called', async () => {
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((n) => answer(log, n));
    for (const r of [a, b, c]) endAfterTurn(r!);
    expect(b!.end('B')).toBe(b); // end returns the answer, as node's does
    a!.end('A', 'utf8');
    c!.end();
    expect(log).toEqual([]);
    await turnEnd();
    expect(log).toEqual(['b end ["B"]', 'a end ["A","utf8"]', 'c end []']);
  });

  it('an end that throws destroys its own answer, and the others are still written', async () => {
    const log: string[] = [];
    const a = answer(log, 'a');
    const bad = answer(log, 'bad', { throws: true });
    const c = answer(log, 'c');
    for (const r of [a, bad, c]) endAfterTurn(r);
    a.end('A');
    bad.end('X');
    c.end('C');
    await turnEnd();
    expect(log).toEqual(['a end ["A"]', 'bad destroy bad failed', 'c end ["C"]']);
  });

  it('ends called in a later turn are written after that turn', async () => {
    const log: string[] = [];
    const a = answer(log, 'a');
    const b = answer(log, 'b');
    endAfterTurn(a);
    endAfterTurn(b);
    a.end('1');
    await turnEnd();
    b.end('2');
    expect(log).toEqual(['a end ["1"]']);
    await turnEnd();
    expect(log).toEqual(['a end ["1"]', 'b end ["2"]']);
  });
});
