#!/usr/bin/env node
// The `reference-server` command: runs src/main.ts through tsx when the sources are present (dev),
// otherwise the esbuild bundle dist/reference-server.mjs.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const src = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const dist = fileURLToPath(new URL('../../dist/reference-server.mjs', import.meta.url));

let mod;
if (existsSync(src)) {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    tsx = undefined;
  }
  if (tsx) {
    tsx.register();
    mod = await import(pathToFileURL(src).href);
  }
}
if (!mod && existsSync(dist)) mod = await import(pathToFileURL(dist).href);
if (!mod) {
  process.stderr.write('reference-server: neither src/main.ts (with tsx) nor dist/reference-server.mjs was found\n');
  process.exit(3);
}
await mod.main(process.argv);
