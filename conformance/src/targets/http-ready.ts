// Waiting for a started container to answer its health check. testcontainers' own HTTP wait
// strategy (Wait.forHttp) probes once per read timeout, 1 s by default, so the reference server,
// up 0.3 s after its start, was seen after 1.3 s; shortening that read timeout would cut each probe
// short as well, and a busy machine might then never answer in time. This strategy probes with
// waitForHealth (each probe up to 5 s) every INTERVAL_MS, and ends the wait at once when the
// container has exited.
import type { WaitStrategy } from 'testcontainers';
import { waitForHealth } from './target.js';

/** Pause between two probes. */
export const INTERVAL_MS = 50;
/** Least time between two questions to the engine whether the container still runs. */
const EXITED_CHECK_MS = 500;

/** A testcontainers wait strategy: GET http://<host>:<mapped port><path> answers 200. */
export function httpReady(opts: { path: string; port: number; host: string }): WaitStrategy {
  let timeoutMs = 60_000;
  let timeoutSet = false;
  return {
    async waitUntilReady(container, boundPorts) {
      const url = `http://${opts.host}:${boundPorts.getBinding(opts.port)}${opts.path}`;
      let checked = 0;
      const health = await waitForHealth(url, timeoutMs, {
        intervalMs: INTERVAL_MS,
        abort: async () => {
          if (Date.now() - checked < EXITED_CHECK_MS) return undefined;
          checked = Date.now();
          const state = (await container.inspect().catch(() => undefined))?.State;
          return state?.Status === 'exited' ? `the container exited (code ${state.ExitCode})` : undefined;
        },
      });
      if (!health.ok) throw new Error(`GET ${opts.path} on port ${opts.port}: ${health.problem}`);
    },
    withStartupTimeout(ms: number) {
      timeoutMs = ms;
      timeoutSet = true;
      return this;
    },
    isStartupTimeoutSet: () => timeoutSet,
    getStartupTimeout: () => timeoutMs,
  };
}
