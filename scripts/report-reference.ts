// npm run report:reference — the reference server's own conformance report, kept in the repository
// so that a reader sees what a run looks like: runs the whole suite (profile all) against the
// reference server (a local process with provider states, on a fixed port so that the report does
// not change from run to run except for its timestamps and durations) and writes
// reports/reference/{report.html,results.json,junit.xml,badge.svg}.
//
//   REPORT_REFERENCE_PORT  port of the reference server (default 18080)
//
// Exits with the conformance run's exit code.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { runConformance } from '../conformance/src/run/run-conformance.js';
import { startReferenceProcess, type ReferenceProcess } from '../conformance/src/targets/reference-process.js';
import { ROOT } from '../spec/paths.js';

const OUT = path.join(ROOT, 'reports', 'reference');
const PORT = Number(process.env.REPORT_REFERENCE_PORT ?? 18080);
const FILES = ['report.html', 'results.json', 'junit.xml', 'badge.svg'];

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function main(): Promise<number> {
  if (!(await portFree(PORT))) {
    process.stderr.write(`report:reference: port ${PORT} is in use; set REPORT_REFERENCE_PORT to a free port\n`);
    return 3;
  }
  const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;
  let server: ReferenceProcess | undefined;
  try {
    server = await startReferenceProcess({ port: PORT, providerStates: true });
    const base = server.url;
    fs.mkdirSync(OUT, { recursive: true });
    for (const f of FILES) fs.rmSync(path.join(OUT, f), { force: true });
    // in this process, through the library (no CONFORMANCE_* variable of the caller's shell applies)
    const results = await runConformance(
      {
        baseUrl: base,
        profile: 'all',
        reportDir: path.relative(ROOT, OUT),
        targetLabel: `reference server ${version} (local process)`,
      },
      { log: (l) => process.stderr.write(`${l}\n`), out: (s) => process.stdout.write(s) },
    );
    const code = results.exitCode;
    const missing = FILES.filter((f) => !fs.existsSync(path.join(OUT, f)));
    if (missing.length) {
      process.stderr.write(`report:reference: missing ${missing.join(', ')} in ${path.relative(ROOT, OUT)}\n`);
      return code || 3;
    }
    process.stdout.write(
      `report:reference: wrote ${FILES.map((f) => path.relative(ROOT, path.join(OUT, f))).join(', ')} (exit ${code})\n`,
    );
    return code;
  } catch (e) {
    process.stderr.write(`report:reference: ${(e as Error).message}\n`);
    return 3;
  } finally {
    await server?.stop();
  }
}

main().then((c) => process.exit(c));
