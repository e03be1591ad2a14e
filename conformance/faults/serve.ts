// Run the fault-injecting proxy on its own, in front of any implementation (for example to see a
// fault's effect by hand, or to run the suite against a vendor server with a known bug):
//   tsx conformance/faults/serve.ts --upstream http://localhost:8080 --fault order-number-one-based --port 9090
//   tsx conformance/faults/serve.ts --list
import { Command } from 'commander';
import { FAULTS } from './catalogue/index.js';
import { startFaultProxy } from './proxy.js';

const program = new Command()
  .name('fault-proxy')
  .description(
    'Forward to an upstream implementation, injecting one named fault (none: plain pass-through). The provider-state endpoint passes through untouched.',
  )
  .option('--upstream <url>', 'base URL of the implementation')
  .option('--fault <name>', 'fault to inject (see --list)')
  .option('--port <port>', 'port to listen on (0: a free one)', '0')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--token-header <name>', 'header carrying the API token', 'Token')
  .option('--list', 'print the fault catalogue and exit')
  .parse(process.argv);

const o = program.opts<{
  upstream?: string;
  fault?: string;
  port: string;
  host: string;
  tokenHeader: string;
  list?: boolean;
}>();
if (o.list) {
  for (const f of FAULTS) process.stdout.write(`${f.name}\t${f.area}\t${f.requirements.join(',')}\t${f.description}\n`);
  process.exit(0);
}
if (!o.upstream) {
  process.stderr.write('fault-proxy: --upstream is required\n');
  process.exit(2);
}
try {
  const proxy = await startFaultProxy({
    upstream: o.upstream,
    fault: o.fault ?? null,
    port: Number(o.port),
    host: o.host,
    tokenHeader: o.tokenHeader,
  });
  process.stdout.write(`fault proxy ${proxy.url} → ${o.upstream} (fault: ${proxy.fault?.name ?? 'none'})\n`);
  const stop = () => void proxy.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (e) {
  process.stderr.write(`fault-proxy: ${(e as Error).message}\n`);
  process.exit(2);
}
