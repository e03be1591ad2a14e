// Reading the runs `conformance compare` is given: a report directory, a results.json, or a
// directory of report directories (CI artifacts of many days). Shard runs (`--shard i/n`) of one run
// are merged into one run with the rules of `conformance merge` (their requirements judged afresh
// over the union of their tests), so a sharded run is one column like an unsharded one.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../model/errors.js';
import { ROOT } from '../paths.js';
import type { RunResults } from '../report/results.js';
import { loadCatalogue } from '../spec/catalogue.js';
import { mergeResults } from '../report/merge-results.js';

const RESULTS_SCHEMA_ID = 'rflps-conformance-results/1';

/** One run as read from disk. */
export interface LoadedRun {
  /** Where it was read from (relative to the repository root when inside it). */
  source: string;
  results: RunResults;
  /** For a run merged from shards: the shards' sources. */
  shards?: string[];
}

function shown(file: string): string {
  const rel = path.relative(ROOT, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
}

/** One results.json, checked to be one (enough to compare with). */
function readResultsFile(file: string): LoadedRun {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${shown(file)}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${shown(file)} is not JSON: ${(e as Error).message}`);
  }
  const o = doc as Partial<RunResults> | null;
  if (!o || typeof o !== 'object' || Array.isArray(o))
    throw new UsageError(`${shown(file)}: not a results.json object`);
  if (o.schema !== RESULTS_SCHEMA_ID)
    throw new UsageError(
      `${shown(file)}: not a conformance results.json (schema is ${JSON.stringify(o.schema ?? null)}, expected '${RESULTS_SCHEMA_ID}')`,
    );
  if (
    !Array.isArray(o.requirements) ||
    o.requirements.some((r) => typeof r?.id !== 'string' || typeof r?.result !== 'string')
  )
    throw new UsageError(`${shown(file)}: 'requirements' must be a list of {id, result, ...}`);
  if (typeof o.startedAt !== 'string' || typeof o.suiteVersion !== 'string' || !o.target || !o.selection)
    throw new UsageError(`${shown(file)}: lacks startedAt, suiteVersion, target or selection`);
  return { source: shown(file), results: o as RunResults };
}

/**
 * The runs of one argument: a results.json, a report directory (holding results.json), or a
 * directory whose subdirectories (any depth up to 3) hold report directories.
 */
export function loadRunArg(arg: string): LoadedRun[] {
  const abs = path.resolve(arg);
  if (!fs.existsSync(abs)) throw new UsageError(`no such file or directory: ${arg}`);
  if (!fs.statSync(abs).isDirectory()) return [readResultsFile(abs)];
  const direct = path.join(abs, 'results.json');
  if (fs.existsSync(direct)) return [readResultsFile(direct)];
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (!e.isDirectory()) continue;
      const sub = path.join(dir, e.name);
      const file = path.join(sub, 'results.json');
      if (fs.existsSync(file)) found.push(file);
      else if (depth < 3) walk(sub, depth + 1);
    }
  };
  walk(abs, 1);
  if (found.length === 0) throw new UsageError(`${arg} holds no results.json (nor do its subdirectories)`);
  return found.map(readResultsFile);
}

/** What the shards of one run share (as `conformance merge` checks), and their number. */
function shardGroupKey(r: RunResults, count: string): string {
  return JSON.stringify([
    r.suiteVersion,
    r.catalogueVersion,
    r.specVersion,
    r.profile,
    r.selection.requirements,
    r.selection.readOnly,
    r.selection.fixtures ?? null,
    r.target.baseUrl,
    r.targetLabel ?? null,
    count,
  ]);
}

/**
 * Runs with shards of one run merged into one (in the place of the first shard). A shard run whose
 * catalogue is not this suite's cannot be judged afresh: merge it with `conformance merge` of the
 * suite that made it, and compare the merged run.
 */
export function mergeShardRuns(runs: LoadedRun[]): LoadedRun[] {
  const groups = new Map<string, LoadedRun[]>();
  for (const r of runs) {
    const shard = r.results.selection.shard;
    if (!shard) continue;
    const key = shardGroupKey(r.results, shard.split('/')[1]);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  if (groups.size === 0) return runs;
  const catalogue = loadCatalogue();
  const merged = new Map<LoadedRun, LoadedRun | null>();
  for (const group of groups.values()) {
    const one = mergeResults(
      group.map((g) => ({ file: g.source, results: g.results })),
      catalogue,
      { allowMissing: true },
    );
    merged.set(group[0], { source: group[0].source, results: one, shards: group.map((g) => g.source) });
    for (const g of group.slice(1)) merged.set(g, null);
  }
  return runs.flatMap((r) => {
    if (!merged.has(r)) return [r];
    const m = merged.get(r);
    return m ? [m] : [];
  });
}
