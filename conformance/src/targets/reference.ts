// The default target: the reference server image (built locally by reference-server/image/build.sh)
// through testcontainers; without a reachable container engine, the reference server as a local
// process (WARNING), unless a container is required (CI).
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../model/errors.js';
import { ROOT } from '../paths.js';
import { ImageTarget, containerRuntimeAvailable, type ImageTargetOptions } from './image.js';
import { LocalProcessTarget, type LocalProcessOptions } from './local-process.js';
import { defaultLog, type Log, type StartedTarget, type Target, type TargetPhase } from './target.js';

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
  /** Told when the image check starts (typed progress; the container's start: `image.phase`). */
  phase?: (phase: TargetPhase) => void;
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
    // both checks at once: each mostly waits for the engine (and loading testcontainers)
    const [cli, runtime] = await Promise.all([
      dockerCliAvailable(this.opts.engineTimeoutMs ?? 10_000),
      containerRuntimeAvailable(this.opts.engineTimeoutMs ?? 8_000),
    ]);
    const engine = cli.ok ? runtime : cli;
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
    this.opts.phase?.('image-check');
    await this.build(log);
    this.inner = new ImageTarget({ ...this.opts.image, image: this.image(), log });
    return this.inner.start();
  }

  private async build(log: Log): Promise<void> {
    const script = this.opts.buildScript ?? path.join(ROOT, 'reference-server', 'image', 'build.sh');
    // build.sh bundles the server before it can hash what it ships (1-2 s on every run, 8 s on a
    // busy machine); when nothing it reads has changed since it last built this image, that
    // image is still the one it would build.
    const inputs = buildInputsHash(script);
    const stampFile = path.join(ROOT, 'dist', '.reference-image-inputs.json');
    const imageId = () => dockerImageId(this.image());
    if (inputs !== undefined) {
      const stamp = readStamp(stampFile);
      if (stamp?.inputs === inputs && stamp.image === this.image() && stamp.imageId === (await imageId())) {
        log(
          `conformance: image ${this.image()} is up to date (build.sh inputs unchanged since it built ${stamp.imageId.slice(7, 19)}); not running build.sh`,
        );
        return;
      }
    }
    await this.runBuildScript(script, log);
    const id = await imageId();
    if (inputs !== undefined && id) {
      fs.mkdirSync(path.dirname(stampFile), { recursive: true });
      fs.writeFileSync(stampFile, JSON.stringify({ inputs, image: this.image(), imageId: id }) + '\n');
    }
  }

  private runBuildScript(script: string, log: Log): Promise<void> {
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

/**
 * A hash of everything reference-server/image/build.sh reads: the script itself and the rootfs
 * assembly it sources, the server's sources, spec/ (shipped as runtime data), package-lock.json
 * (the bundled packages and esbuild), and the node binary and native addon it copies (by path,
 * size and modification time). Undefined when build.sh is told to do something else (FORCE, ENTRY,
 * NODE_BIN): then it always runs.
 */
function buildInputsHash(script: string): string | undefined {
  if (process.env.FORCE === '1' || process.env.ENTRY || process.env.NODE_BIN) return undefined;
  try {
    const h = createHash('sha256');
    const add = (file: string) => {
      h.update(path.relative(ROOT, file) + '\0');
      h.update(fs.readFileSync(file));
      h.update('\0');
    };
    const walk = (dir: string, keep: (f: string) => boolean) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p, keep);
        else if (e.isFile() && keep(p)) add(p);
      }
    };
    add(script);
    add(path.join(ROOT, 'scripts', 'image', 'assemble-rootfs.sh'));
    walk(path.join(ROOT, 'reference-server', 'src'), () => true);
    walk(path.join(ROOT, 'spec'), (f) => /\.(ya?ml|json)$/.test(f));
    add(path.join(ROOT, 'package-lock.json'));
    for (const f of [
      fs.realpathSync('/usr/bin/node'),
      path.join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    ]) {
      const st = fs.statSync(f);
      h.update(`${f} ${st.size} ${st.mtimeMs}\0`);
    }
    return h.digest('hex');
  } catch {
    return undefined;
  }
}

function readStamp(file: string): { inputs: string; image: string; imageId: string } | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8'));
    return typeof v?.inputs === 'string' && typeof v.image === 'string' && typeof v.imageId === 'string'
      ? v
      : undefined;
  } catch {
    return undefined;
  }
}

function dockerImageId(image: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('docker', ['image', 'inspect', '--format', '{{.Id}}', image], { timeout: 10_000 }, (err, stdout) =>
      resolve(err ? undefined : stdout.trim() || undefined),
    );
  });
}
