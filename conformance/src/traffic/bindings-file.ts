// The bindings of a config file (`bindings:`, the same file `conformance run --config` reads), for
// the traffic commands: they need the names (token header, query parameters), nothing else of a run.
import fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../model/errors.js';
import { resolveBindings, type Bindings } from '../model/bindings.js';

export function bindingsFromConfig(file: string | undefined): Bindings {
  if (!file) return resolveBindings();
  let doc: unknown;
  try {
    doc = parseYaml(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`cannot read config file ${file}: ${(e as Error).message}`);
  }
  const b = doc && typeof doc === 'object' ? (doc as { bindings?: unknown }).bindings : undefined;
  try {
    return resolveBindings(b);
  } catch (e) {
    throw new UsageError(`config file ${file}: ${(e as Error).message}`);
  }
}

/** The config file's `baseUrl` (the implementation's origin and path prefix), when it names one. */
export function baseUrlFromConfig(file: string | undefined): string | undefined {
  if (!file) return undefined;
  try {
    const doc = parseYaml(fs.readFileSync(file, 'utf8')) as { baseUrl?: unknown } | null;
    return typeof doc?.baseUrl === 'string' && doc.baseUrl !== '' ? doc.baseUrl : undefined;
  } catch {
    return undefined; // bindingsFromConfig reports a file that cannot be read
  }
}
