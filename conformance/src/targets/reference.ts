// The default target: the reference server image (built locally by reference-server/image/build.sh)
// through testcontainers; without a reachable container engine, the reference server as a local
// process (WARNING), unless a container is required (CI).
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { HarnessError } from '../errors.js';
import { ROOT } from '../paths.js';
import { ImageTarget, containerRuntimeAvailable, type ImageTargetOptions } from './image.js';
import { LocalProcessTarget, type LocalProcessOptions } from './local-process.js';
import { defaultLog, type Log, type StartedTarget, type Target } from './target.js';

const REFERENCE_IMAGE = 'rflps-reference:local';

export interface ReferenceTargetOptions {
  requireContainer?: boolean;
  image?: Omit<ImageTargetOptions, 'image'> & { image?: string };
  local?: LocalProcessOptions;
  /** Build script (default reference-server/image/build.sh). */
  buildScript?: string;
  /** How long to wait for the container engine to answer. */
  engineTimeoutMs?: number;
  log?: Log;
}

export class ReferenceTarget implements Target {
  readonly kind = 'reference' as const;
  private inner?: Target;
  constructor(readonly opts: ReferenceTargetOptions = {}) {}

  describe(): string {
    return this.inner ? this.inner.describe() : `reference server (image ${this.image()}, else a local process)`;
  }

  private image(): string {
    return this.opts.image?.image ?? REFERENCE_IMAGE;
  }

  async start(): Promise<StartedTarget> {
    const log = this.opts.log ?? defaultLog;
    // build.sh drives the docker CLI, the container is started through testcontainers: both must work
    const cli = await dockerCliAvailable(this.opts.engineTimeoutMs ?? 10_000);
    const engine = cli.ok ? await containerRuntimeAvailable(this.opts.engineTimeoutMs ?? 8_000) : cli;
    if (!engine.ok) {
      if (this.opts.requireContainer) {
        throw new HarnessError(
          `no container engine reachable (${engine.problem}) and a container is required (--require-container, CONFORMANCE_REQUIRE_CONTAINER=1 or CI=true); run scripts/ci/ensure-docker.sh`,
        );
      }
      log(
        `conformance: WARNING: no container engine reachable (${engine.problem}); falling back to the reference server as a local process. The results are NOT from the container image.`,
      );
      this.inner = new LocalProcessTarget({ ...this.opts.local, log });
      return this.inner.start();
    }
    await this.build(log);
    this.inner = new ImageTarget({ ...this.opts.image, image: this.image(), log });
    return this.inner.start();
  }

  private build(log: Log): Promise<void> {
    const script = this.opts.buildScript ?? path.join(ROOT, 'reference-server', 'image', 'build.sh');
    log(`conformance: bash ${path.relative(ROOT, script)}`);
    return new Promise((resolve, reject) => {
      const child = spawn('bash', [script], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, IMAGE: this.image() },
      });
      let tail = '';
      const onData = (d: Buffer) => {
        const s = d.toString();
        tail = (tail + s).slice(-4_000);
        for (const line of s.split('\n')) if (line.trim()) log(`  ${line}`);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('error', (e) => reject(new HarnessError(`cannot run ${script}: ${e.message}`)));
      child.on('exit', (code, signal) => {
        if (code === 0) resolve();
        else
          reject(
            new HarnessError(
              `building the reference image failed (${path.relative(ROOT, script)} exited with ${signal ?? code})`,
            ),
          );
      });
    });
  }

  async stop(): Promise<void> {
    await this.inner?.stop();
  }
}

/** `docker info` answers within `timeoutMs`. */
function dockerCliAvailable(timeoutMs = 10_000): Promise<{ ok: true } | { ok: false; problem: string }> {
  return new Promise((resolve) => {
    execFile('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: timeoutMs }, (err, _stdout, stderr) => {
      if (!err) return resolve({ ok: true });
      const why =
        (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'docker CLI not found'
          : stderr.trim().split('\n').pop() || err.message;
      resolve({ ok: false, problem: `docker info: ${why}` });
    });
  });
}
