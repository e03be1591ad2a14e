// Global setup of the conformance-harness tests: a new directory per vitest run for the shared
// whole run (shared-run.ts), removed when the run ends. Nothing is run here: the first file that
// needs the whole run makes it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-shared-run-'));
  project.provide('sharedRunDir', dir);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
