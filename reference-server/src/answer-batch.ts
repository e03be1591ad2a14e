// Answers written together at the end of the event loop's turn (docs/benchmarks.md, 28 November,
// second session). node writes an answer the moment its route ends it: one `writev` per answer,
// each waking the client's side if it waits for it. When the server is the busy side (several
// requests parsed in one turn), the client is woken once per answer, and on a loaded machine that
// wake-up is most of what an answer costs the server in the kernel (a record read: about 15% of
// its CPU). Ending the answers of one turn after the turn, in order, wakes the client once for
// all of them. The bytes are the same and nothing is answered later than the turn it was ended in.
//
// No function is made per answer: the deferred end is one module-level function, and an answer's
// own `end` and arguments wait in two arrays (a closure per answer cost about 1 µs of a record
// read's 35, most of it tsx's `__name` on each new function: docs/benchmarks.md, third session).
import type { ServerResponse } from 'node:http';

type End = (...args: unknown[]) => unknown;
const OWN_END = Symbol('own end');
type Batched = ServerResponse & { [OWN_END]: End };

let waiting: Batched[] = [];
let waitingArgs: unknown[][] = [];

function flush(): void {
  const answers = waiting;
  const args = waitingArgs;
  waiting = [];
  waitingArgs = [];
  for (let i = 0; i < answers.length; i++) {
    const res = answers[i]!;
    try {
      res[OWN_END].call(res, ...args[i]!);
    } catch (err) {
      res.destroy(err as Error);
    }
  }
}

function endAtTurnEnd(this: Batched, ...args: unknown[]): Batched {
  if (waiting.push(this) === 1) setImmediate(flush);
  waitingArgs.push(args);
  return this;
}

/**
 * Makes every `res.end(...)` of this answer take effect at the end of the current turn of the
 * event loop (setImmediate), in the order the ends were called. An end that throws destroys its
 * answer's connection (as a throwing end in the route would have failed the answer) and the
 * others are still written.
 */
export function endAfterTurn(res: ServerResponse): void {
  const batched = res as Batched;
  batched[OWN_END] = res.end as End;
  res.end = endAtTurnEnd as unknown as ServerResponse['end'];
}
