// Whether a module is the process's entry (`node <file>`): main.ts and host.ts start their work
// only then, so that importing them (or bundling one into the other's process) starts nothing.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Whether the module at `moduleUrl` (its import.meta.url) is the file the process was started with. */
export function isProcessEntry(moduleUrl: string): boolean {
  try {
    return !!process.argv[1] && moduleUrl === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}
