// The effective configuration a bundle (bundle/write.ts) holds (config.json): the run's resolved options, target and
// bindings, as the run used them, so a customer sees what was selected and how it was timed. Left
// out: what may hold a secret or is only a file's contents (fixtures values, a baseline's results,
// container environment values, the signing key's path) — the files are named instead.
import { relFile } from '../paths.js';
import type { RunOptions } from './config.js';

/** Fields of RunOptions a bundle does not copy: contents of files, and secrets. */
const LEFT_OUT = new Set(['fixtures', 'baseline', 'signKeyFile', 'bundleFile', 'recordHar', 'configFile']);

export function bundleConfig(o: RunOptions, run: { seed: number; stateUrl?: string }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (LEFT_OUT.has(k) || v === undefined) continue;
    if (k === 'containerEnv') out[k] = Object.fromEntries(Object.keys(v as object).map((n) => [n, '<redacted>']));
    else if (/File$/.test(k) && typeof v === 'string') out[k] = relFile(v);
    else out[k] = v;
  }
  return {
    ...out,
    ...(o.configFile ? { configFile: relFile(o.configFile) } : {}),
    seed: run.seed,
    ...(run.stateUrl ? { stateUrl: run.stateUrl } : {}),
  };
}
