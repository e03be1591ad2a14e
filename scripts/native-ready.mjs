#!/usr/bin/env node
// Makes sure better-sqlite3's native module is built, building it once if it is not.
//
// Why: on a fresh machine most of `npm ci`'s time is compiling SQLite for better-sqlite3 (its
// prebuilt binaries live on GitHub, which CI cannot reach), one core busy for most of a minute.
// .ci/run installs with `--ignore-scripts` and leaves that compile to this script, which npm
// test's first stage runs beside the typecheck and the lint (they need no native code), and which
// the suite-image smoke test waits on. After a plain `npm ci` the module loads and this does
// nothing (about 0.1 s).
//
// Two callers at once: the first takes a lock directory and builds; the other waits for the lock
// to go and checks the module again. CFLAGS, CXXFLAGS and JOBS reach node-gyp through the
// environment (.ci/run sets them).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LOCK = path.join(ROOT, 'node_modules', '.native-build.lock');
const WAIT_MS = 15 * 60_000;
const log = (m) => console.log(`native-ready: ${m}`);

function loads() {
  // a child process: a failed dlopen must not stay cached in this one
  const r = spawnSync(
    process.execPath,
    ['-e', "const D=require('better-sqlite3'); new D(':memory:').prepare('select 1').get()"],
    { cwd: ROOT, stdio: 'ignore' },
  );
  return r.status === 0;
}

/** The lock's holder still runs (a killed build leaves its lock behind). */
function holderAlive() {
  let pid;
  try {
    pid = Number(fs.readFileSync(path.join(LOCK, 'pid'), 'utf8'));
  } catch {
    return true; // the holder has made the directory and not yet written its pid
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

if (loads()) process.exit(0);

let mine = false;
try {
  fs.mkdirSync(LOCK);
  fs.writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
  mine = true;
} catch (e) {
  if (e.code !== 'EEXIST') throw e;
}

if (mine) {
  const t0 = Date.now();
  log('better-sqlite3 has no native module yet: building it (npm rebuild better-sqlite3)');
  const r = spawnSync('npm', ['rebuild', 'better-sqlite3', '--no-audit', '--no-fund'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  fs.rmSync(LOCK, { recursive: true, force: true });
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr);
    log(`npm rebuild better-sqlite3 failed (exit ${r.status})`);
    process.exit(1);
  }
  log(`built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
} else {
  log('another process builds better-sqlite3; waiting for it');
  const until = Date.now() + WAIT_MS;
  while (fs.existsSync(LOCK)) {
    if (!holderAlive()) {
      log('the process that held the lock is gone: run this again');
      fs.rmSync(LOCK, { recursive: true, force: true });
      process.exit(1);
    }
    if (Date.now() > until) {
      log(`still building after ${WAIT_MS / 60_000} min (remove ${path.relative(ROOT, LOCK)} if no build runs)`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

if (!loads()) {
  log('better-sqlite3 still does not load');
  process.exit(1);
}
