// CI as a benchmark: what `bash .ci/run` takes on a fresh clone of the committed HEAD, with the
// spec folder (`../shared`) beside it as CI has it. It installs what it needs (npm ci, the Docker
// engine and Chromium when missing) and runs `npm test`, so the figure is the one a pull request
// waits for on this machine. The clone lives in a temporary directory removed afterwards.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../../spec/paths.js';

export interface CiBench {
  exitCode: number | null;
  wallMs: number;
  /** the commit the clone checked out */
  commit?: string;
  /** the phases `.ci/run` announced (`== ...` lines) with the seconds from the start to each */
  phases: Array<{ phase: string; atS: number }>;
  outputTail: string;
}

/** Runs `.ci/run` on a fresh clone of HEAD; `log` gets each phase as it starts. */
export async function benchCi(log: (s: string) => void): Promise<CiBench> {
  const shared = join(dirname(ROOT), 'shared');
  if (!existsSync(shared)) throw new Error(`bench ci: no ${shared} beside the checkout (CI has the spec folder there)`);
  const dir = mkdtempSync(join(tmpdir(), 'rflps-ci-'));
  let keep = false;
  try {
    const clone = spawnSync('git', ['clone', '--quiet', '--no-hardlinks', ROOT, join(dir, 'main')], {
      encoding: 'utf8',
    });
    if (clone.status !== 0) throw new Error(`bench ci: git clone failed: ${clone.stderr}`);
    cpSync(shared, join(dir, 'shared'), { recursive: true });
    const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: join(dir, 'main'),
      encoding: 'utf8',
    }).stdout?.trim();
    const phases: CiBench['phases'] = [];
    const t0 = performance.now();
    let tail = '';
    const exitCode = await new Promise<number | null>((resolve) => {
      const child = spawn('bash', ['.ci/run'], {
        cwd: join(dir, 'main'),
        env: { ...process.env, CI: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const take = (chunk: Buffer) => {
        const text = chunk.toString();
        tail = (tail + text).slice(-4000);
        for (const line of text.split('\n'))
          if (line.startsWith('== ')) {
            const atS = Math.round((performance.now() - t0) / 1000);
            phases.push({ phase: line.slice(3).trim(), atS });
            log(`  ${atS} s: ${line.slice(3).trim()}`);
          }
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      child.on('close', (code) => resolve(code));
    });
    // a failed run keeps its clone (its reports: reports/faults/, reports/ci/) for the diagnosis
    if (exitCode !== 0) {
      keep = true;
      log(`  the clone is kept with its reports: ${join(dir, 'main')}`);
    }
    return { exitCode, wallMs: performance.now() - t0, commit, phases, outputTail: tail };
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}
