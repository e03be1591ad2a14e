// One name for the output folder of every command that writes files: --report-dir. `compare` and
// `coverage` called it --out before 0.3; --out stays as its alias (CHANGELOG.md).
import { UsageError } from '../model/errors.js';

/** --report-dir, else its alias --out; both given and different: a usage error. */
export function reportDirOption(o: { reportDir?: string; out?: string }): string | undefined {
  if (o.reportDir !== undefined && o.out !== undefined && o.reportDir !== o.out)
    throw new UsageError(
      `--out is --report-dir under its old name: give one of them (got ${o.out} and ${o.reportDir})`,
    );
  return o.reportDir ?? o.out;
}
