// What every section of the bench is given: the configuration, where to print, the CPU the servers
// are pinned to, and a scratch directory.
import type { BenchConfig } from '../config.js';

export interface BenchContext {
  cfg: BenchConfig;
  log: (line?: string) => void;
  /** the CPU the servers run on (undefined: no pinning) */
  serverCpu: number | undefined;
  /** scratch directory of the run, removed at its end */
  work: string;
}
