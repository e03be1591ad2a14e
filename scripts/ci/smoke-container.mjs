#!/usr/bin/env node
// Smoke test: start the reference-server image with testcontainers, GET /health through the
// mapped port, stop it.
//
// Usage: node scripts/ci/smoke-container.mjs [image]   (default rflps-reference:local)
//
// Ryuk (testcontainers' reaper) would need an image from a registry, which CI cannot reach, so this
// script sets TESTCONTAINERS_RYUK_DISABLED=true itself (before testcontainers is imported) unless
// the caller already set it. Without Ryuk the container is stopped explicitly below.
// The image must already exist locally (reference-server/image/build.sh); nothing is pulled.
// It also sets TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 (unless set): this machine has a /.dockerenv, so
// testcontainers would otherwise believe it runs inside a container, look up the bridge gateway
// (172.17.0.1) or try to pull alpine:3.14 to find one; mapped ports are published on all host
// addresses, so loopback is both correct and the only address tests may target here.
// Exit codes: 0 healthy, 1 failure.

process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';

const image = process.argv[2] ?? 'rflps-reference:local';
const { GenericContainer, Wait } = await import('testcontainers');

const t0 = performance.now();
let container;
try {
  container = await new GenericContainer(image)
    .withExposedPorts(8080)
    .withWaitStrategy(Wait.forHttp('/health', 8080).forStatusCode(200))
    .withStartupTimeout(60_000)
    .start();
  const startMs = Math.round(performance.now() - t0);
  const url = `http://${container.getHost()}:${container.getMappedPort(8080)}/health`;
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  const body = await res.text();
  console.log(`image:   ${image}`);
  console.log(`started: ${startMs} ms (until /health answered)`);
  console.log(`GET ${url} -> ${res.status} ${body}`);
  if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
  let status;
  try {
    status = JSON.parse(body).status;
  } catch {
    /* reported below */
  }
  if (status !== 'ok') throw new Error(`/health body is not {"status":"ok",...}: ${body}`);
} catch (err) {
  console.error(`smoke-container: FAILED: ${err?.stack ?? err}`);
  if (/registry|pull|No such image/i.test(String(err?.message)))
    console.error(
      `smoke-container: hint: image '${image}' must exist locally; build it with reference-server/image/build.sh`,
    );
  process.exitCode = 1;
} finally {
  if (container) {
    const s = performance.now();
    await container.stop().catch((e) => {
      console.error(`smoke-container: stop failed: ${e}`);
      process.exitCode = 1;
    });
    console.log(`stopped: ${Math.round(performance.now() - s)} ms`);
  }
}
