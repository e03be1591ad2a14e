// A proxy in front of the reference server that drops values from the answers of provider-state
// setups (issue 19, item 3: a missing value ends only the tests that read it). Everything else
// passes through untouched. The run's admin user (setupId `run-admin-...`) is left whole: every
// test needs it. Which values of which setup were dropped is recorded per test (the setupId is
// `<test id>-<8 hex>`).
import { loadProtocol } from '../../src/suite-api/protocol.js';
import { startRewritingProxy } from './rewriting-proxy.js';

export interface DropProxy {
  baseUrl: string;
  /** test id → `<state>.<value>` dropped from the answers of its setups */
  dropped: Map<string, Set<string>>;
  stop(): Promise<void>;
}

/**
 * `drop(state, valueIndex)` says whether the value at that index of the state's values schema (in
 * the order of its properties) is dropped from an answer.
 */
export async function startDropProxy(
  upstream: string,
  drop: (state: string, valueIndex: number) => boolean,
): Promise<DropProxy> {
  const protocol = loadProtocol();
  const dropped = new Map<string, Set<string>>();
  const proxy = await startRewritingProxy(upstream, (x) => {
    const isState = x.method === 'POST' && new URL(x.url, 'http://x').pathname === '/_provider-states';
    if (!isState || x.status !== 200 || !x.requestBody) return;
    const change = JSON.parse(x.requestBody.toString('utf8')) as {
      state: string;
      action?: string;
      params?: { setupId?: string };
    };
    const setupId = String(change.params?.setupId ?? '');
    if ((change.action ?? 'setup') !== 'setup' || setupId.startsWith('run-admin')) return;
    const values = JSON.parse(x.body.toString('utf8')) as Record<string, unknown>;
    const names = [...(protocol.states.get(change.state)?.values.keys() ?? [])];
    const test = setupId.replace(/-[0-9a-f]{8}$/, '');
    names.forEach((name, i) => {
      if (name === 'protocol' || !(name in values) || !drop(change.state, i)) return;
      delete values[name];
      const set = dropped.get(test) ?? new Set<string>();
      set.add(`${change.state}.${name}`);
      dropped.set(test, set);
    });
    x.body = Buffer.from(JSON.stringify(values));
  });
  return { ...proxy, dropped };
}
