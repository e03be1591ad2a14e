// A conformance run in a process of its own, as the bench measures it (its wall time, its CPU and
// its memory are the run's alone): runConformance from the package's library entry, with the
// options given as JSON in argv[2]. Its typed progress events (ProgressEvent) go to the parent over the
// IPC channel; the log lines and the summary go to stderr and stdout for the report's tail. Exits
// with the run's exit code (2: the call rejected).
import { runConformance } from 'rflps-conformance/run';

const send = (message) => new Promise((resolve) => (process.send ? process.send(message, () => resolve()) : resolve()));
let code = 2;
try {
  const results = await runConformance(JSON.parse(process.argv[2] ?? '{}'), {
    env: process.env,
    log: (line) => process.stderr.write(`${line}\n`),
    out: (text) => process.stdout.write(text),
    writeReports: true,
    onEvent: (event) => void send(event),
  });
  code = results.exitCode;
} catch (e) {
  process.stderr.write(`conformance-child: ${e?.stack ?? e}\n`);
}
// every event is delivered before the process ends (IPC messages keep their order)
await send({ type: 'child-exit', code });
// testcontainers and vitest may keep handles open; the run is over
process.exit(code);
