// Runs the suite three times on one suite session (conformance/src/run/suite-session.ts), each run
// against a reference server of its own behind a counting pass-through proxy, and prints what each
// run's results hold and which proxies its requests went through (suite-session.test.ts reads it).
import { startFaultProxy } from '../../faults/proxy.js';
import { runConformance } from '../../src/run/run-conformance.js';
import { openSuiteSession } from '../../src/run/suite-session.js';
import { startReferenceProcess } from '../../src/targets/reference-process.js';

const RUNS: Array<{ include: string; tests?: string[]; abortAfterMs?: number }> = [
  { include: 'conformance/suite/records.test.ts', tests: ['records.get-by-id-returns-stored-values'] },
  // a test of the service-wide phase beside one of the main phase: both instances of the session
  {
    include: 'conformance/suite/files.test.ts',
    tests: ['files.download-url-relative', 'files.download-url-server-error-when-setting-off'],
  },
  // the file of the first run again, another of its tests: its tests register anew
  { include: 'conformance/suite/records.test.ts', tests: ['records.missing-record-is-a-failure'] },
  // aborted in the middle (the fault runner's time limit): the session drops that instance ...
  { include: 'conformance/suite/auth.test.ts', abortAfterMs: 1500 },
  // ... and the next run gets a new one
  { include: 'conformance/suite/records.test.ts', tests: ['records.get-by-id-returns-stored-values'] },
];

const servers = await Promise.all(RUNS.map(() => startReferenceProcess({ providerStates: true })));
const proxies = await Promise.all(servers.map((s) => startFaultProxy({ upstream: s.url, fault: null, log: () => {} })));
const session = openSuiteSession();
const out = [];
try {
  for (const [i, run] of RUNS.entries()) {
    const url = proxies[i]!.url;
    const r = await runConformance(
      { baseUrl: url, providerStatesUrl: `${url}/_provider-states`, include: run.include, seed: '1' },
      {
        ...(run.tests ? { tests: run.tests } : {}),
        ...(run.abortAfterMs ? { signal: AbortSignal.timeout(run.abortAfterMs) } : {}),
        ...(process.env.NO_SESSION ? {} : { session }),
      },
    ).catch((e: Error) => ({ rejected: e.name }));
    if ('rejected' in r) {
      out.push({ rejected: r.rejected, exchanges: proxies.map((p) => p.stats.exchanges) });
      continue;
    }
    // each test the results hold, with its result (a test of several requirements: once)
    const tests = Object.fromEntries(
      r.requirements.flatMap((q) => q.tests.filter((t) => !t.generic && !t.step).map((t) => [t.id, t.result])),
    );
    out.push({
      tests,
      exchanges: proxies.map((p) => p.stats.exchanges),
    });
  }
  console.log(JSON.stringify({ runs: out, stats: session.stats() }));
  // vitest marks the process failed after the aborted run (as without a session); what counts is the output
  process.exitCode = 0;
} finally {
  await session.close();
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all(servers.map((s) => s.stop()));
}
