// The peer gate (`npm run test:peers`): core against every independent peer implementation under
// peers/, each started fresh on its own port, run as one library call (runConformance) with the
// peer's own bindings. Exit 1 when any peer shows a red line (judge-peer.ts), 3 when one does not start.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { runConformance } from '../../conformance/src/run/run-conformance.js';
import { findPeers, type PeerManifest } from './manifest.js';
import { judgePeer, type PeerVerdict } from './judge-peer.js';
import { startPeer } from './start-peer.js';

const PEERS_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

export interface PeerRun {
  peer: string;
  stack: string;
  durationMs: number;
  verdict?: PeerVerdict;
  /** The peer did not start, or the run could not be made. */
  error?: string;
}

export async function runPeer(peer: PeerManifest, reportRoot: string, seed: number): Promise<PeerRun> {
  const t0 = Date.now();
  let started;
  try {
    started = await startPeer(peer);
  } catch (e) {
    return { peer: peer.name, stack: peer.stack, durationMs: Date.now() - t0, error: (e as Error).message };
  }
  try {
    const results = await runConformance({
      // the config's own base and state URLs name the port its author ran it on: the gate's win
      baseUrl: started.url,
      providerStatesUrl: `${started.url}${peer.statePath}`,
      config: peer.config,
      profile: 'core',
      seed,
      targetLabel: `peer ${peer.name} (${peer.stack})`,
      reportDir: path.join(reportRoot, peer.name),
    });
    return { peer: peer.name, stack: peer.stack, durationMs: Date.now() - t0, verdict: judgePeer(results) };
  } catch (e) {
    return { peer: peer.name, stack: peer.stack, durationMs: Date.now() - t0, error: (e as Error).message };
  } finally {
    await started.stop();
  }
}

async function main(argv: string[]): Promise<number> {
  const cmd = new Command()
    .name('run-peers')
    .description('core against every independent peer under peers/ (npm run test:peers)')
    .option('--only <names>', 'comma list of peers to run (default: all)')
    .option('--report-dir <dir>', "where each peer's reports and peers.json go", 'reports/peers')
    .option('--seed <n>', 'seed of the generated tests', '20261125')
    .exitOverride();
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (e) {
    return e instanceof CommanderError && e.exitCode === 0 ? 0 : 2;
  }
  const o = cmd.opts<{ only?: string; reportDir: string; seed: string }>();
  const seed = Number(o.seed);
  if (!Number.isInteger(seed)) {
    console.error(`peers: --seed must be an integer (got '${o.seed}')`);
    return 2;
  }
  const only = o.only?.split(',').map((s) => s.trim());
  const reportRoot = path.resolve(o.reportDir);
  const peers = findPeers(PEERS_DIR).filter((p) => !only || only.includes(p.name));
  if (peers.length === 0) {
    console.error('peers: no peer found (a folder under peers/ with a peer.json)');
    return 2;
  }
  const runs: PeerRun[] = [];
  for (const peer of peers) {
    console.log(`peers: core against ${peer.name} (${peer.stack})`);
    const run = await runPeer(peer, reportRoot, seed);
    runs.push(run);
    if (run.error) console.log(`peers: ${peer.name}: ERROR ${run.error}`);
    else {
      const v = run.verdict!;
      const c = v.counts;
      console.log(
        `peers: ${peer.name}: ${v.ok ? 'PASS' : 'FAIL'} in ${(run.durationMs / 1000).toFixed(1)} s: ${c.passed} passed, ${c.failed} failed, ${c.blocked ?? 0} blocked, ${c['not-applicable']} not-applicable (each with its reason), ${c.error} error`,
      );
      for (const p of v.problems) console.log(`  ${p}`);
    }
  }
  fs.mkdirSync(reportRoot, { recursive: true });
  fs.writeFileSync(path.join(reportRoot, 'peers.json'), JSON.stringify({ seed, runs }, null, 2) + '\n');
  if (runs.some((r) => r.error)) return 3;
  return runs.every((r) => r.verdict!.ok) ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`peers: ${(e as Error).stack ?? String(e)}`);
      process.exit(3);
    },
  );
}
