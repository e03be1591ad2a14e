// Section "ci": `bash .ci/run` on a fresh clone of HEAD, timed.
import { benchCi, type CiBench } from '../lib/ci.js';
import type { BenchContext } from './context.js';

export async function ciSection(ctx: BenchContext): Promise<CiBench> {
  const { log } = ctx;
  log('\n## CI: `bash .ci/run` on a fresh clone of HEAD (../shared beside it)');
  const r = await benchCi(log);
  log(`wall ${(r.wallMs / 1000).toFixed(0)} s (exit ${r.exitCode}), commit ${r.commit ?? '?'}`);
  if (r.exitCode !== 0) log(r.outputTail);
  return r;
}
