// A deliberately broken implementation for the report tests: the reference server (a local
// process) behind a small proxy that breaks GET /api/Domains. The real suite run through it fails
// for real (DOM-004 Incident renumbered, DOM-007 an extra domain listed without access), and the
// extra domain and a response header carry markup and shell metacharacters, so that the reports
// must escape vendor-controlled text.
import { LocalProcessTarget } from '../../src/targets/local-process.js';
import type { StartedTarget } from '../../src/targets/target.js';
import { startRewritingProxy } from './rewriting-proxy.js';

const EVIL_NAME = `<script>window.__xss=1</script><img src="http://evil.invalid/x.png" onerror="window.__xss=2">`;
const EVIL_PLURAL = `'; touch /tmp/pwned; echo '$(id)\`id\``;

export interface Running {
  baseUrl: string;
  stop(): Promise<void>;
}

/** A proxy in front of `upstream` that breaks GET /api/Domains. */
function startBreakingProxy(upstream: string): Promise<Running> {
  return startRewritingProxy(upstream, (x) => {
    if (x.method !== 'GET' || new URL(x.url, 'http://x').pathname !== '/api/Domains' || x.status !== 200) return;
    const doc = JSON.parse(x.body.toString('utf8'));
    for (const d of doc.List ?? []) if (d.Name === 'Incident') d.DomainID = 12;
    doc.List?.push({
      DomainID: 4242,
      Name: EVIL_NAME,
      DisplayNameSingular: 'Evil',
      DisplayNamePlural: EVIL_PLURAL,
    });
    x.body = Buffer.from(JSON.stringify(doc));
    x.headers['x-evil'] = '<img src="http://evil.invalid/h.png">';
  });
}

/** The reference server as a local process (with provider states). */
async function startReference(): Promise<Running & { started: StartedTarget }> {
  const target = new LocalProcessTarget({ log: () => {} });
  const started = await target.start();
  return { baseUrl: started.baseUrl, started, stop: () => target.stop() };
}

/** The reference server behind the breaking proxy. */
export async function startBrokenReference(): Promise<Running> {
  const ref = await startReference();
  const proxy = await startBreakingProxy(ref.baseUrl);
  return {
    baseUrl: proxy.baseUrl,
    stop: async () => {
      await proxy.stop();
      await ref.stop();
    },
  };
}
