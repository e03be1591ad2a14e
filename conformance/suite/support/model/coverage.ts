// What the model-based run drew (issue 44 item 4): which commands, which pairs of consecutive
// commands, and which (command, user class, object class) triples ran against the target. Counted
// over every sequence the run executed (shrinking included: those steps were sent as well), so the
// figure says what the target met, not what the generator could make.

import type { ModelCoverage } from '../../../src/model/model-coverage.js';

export type { ModelCoverage };

export function newCoverage(): ModelCoverage {
  return { sequences: 0, steps: 0, commands: {}, pairs: {}, triples: {} };
}

const bump = (m: Record<string, number>, k: string) => {
  m[k] = (m[k] ?? 0) + 1;
};

/** The steps of one sequence, recorded as they run. */
export class SequenceTally {
  private last: string | undefined;
  constructor(private readonly into: ModelCoverage) {
    into.sequences++;
  }
  /** One step: its command, the class of its acting user and of the object it named. */
  step(command: string, user: string, object: string): void {
    const c = this.into;
    c.steps++;
    bump(c.commands, command);
    if (this.last !== undefined) bump(c.pairs, `${this.last} -> ${command}`);
    bump(c.triples, `${command} / ${user} / ${object}`);
    this.last = command;
  }
}

/** Several checks' figures as one (the checks of a run run at once, each with its own tally). */
export function mergeCoverage(parts: ModelCoverage[]): ModelCoverage {
  const out = newCoverage();
  for (const p of parts) {
    out.sequences += p.sequences;
    out.steps += p.steps;
    for (const k of ['commands', 'pairs', 'triples'] as const)
      for (const [key, n] of Object.entries(p[k])) out[k][key] = (out[k][key] ?? 0) + n;
  }
  return out;
}
