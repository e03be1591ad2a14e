// The reference server's command with V8's sampling profiler attached in process (node:inspector),
// for bench/profile-record.ts. `node --cpu-prof` is refused in NODE_OPTIONS and profiles the whole
// life of the process (start-up and warm-up included); this wrapper profiles exactly the window
// between two SIGUSR2 signals: the first starts the profiler, the second stops it, writes the
// profile to $PROFILE_OUT and prints {"profileWritten": <file>} on stdout.
// Arguments are the reference server's (reference-server/bin/reference-server.mjs); with
// PROFILE_TARGET=bare the bare Hono route of bench/bare-server.ts is profiled instead (it ignores them);
// PROFILE_SERVER_BIN names another reference-server.mjs to run (e.g. another checkout's).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const out = process.env.PROFILE_OUT;
if (!out) {
  process.stderr.write('profiled-reference-server: PROFILE_OUT (the .cpuprofile to write) is not set\n');
  process.exit(2);
}
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US || 100) });
let running = false;
process.on('SIGUSR2', () => {
  void (async () => {
    if (!running) {
      running = true;
      await session.post('Profiler.start');
      process.stdout.write(JSON.stringify({ profileStarted: true }) + '\n');
      return;
    }
    running = false;
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(out, JSON.stringify(profile));
    process.stdout.write(JSON.stringify({ profileWritten: out }) + '\n');
  })();
});
if (process.env.PROFILE_TARGET === 'bare') {
  // the bare server is TypeScript: tsx's loader first, as `node --import tsx` would
  const { register } = await import('tsx/esm/api');
  register();
  await import('../bare-server.ts');
} else if (process.env.PROFILE_SERVER_BIN) {
  // another checkout's server (a before/after comparison)
  const { pathToFileURL } = await import('node:url');
  await import(pathToFileURL(process.env.PROFILE_SERVER_BIN).href);
} else await import('../../reference-server/bin/reference-server.mjs');
