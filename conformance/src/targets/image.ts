// An implementation shipped as a container image (`--image`), run through testcontainers.
import { spawnSync } from 'node:child_process';
import type { StartedTestContainer } from 'testcontainers';
import { HarnessError } from '../model/errors.js';
import { httpReady } from './http-ready.js';
import { defaultLog, type Log, type StartedTarget, type Target, type TargetPhase } from './target.js';

export interface ImageTargetOptions {
  image: string;
  containerPort?: number;
  /** Extra environment (REFERENCE_PROVIDER_STATES=1 is always set). */
  env?: Record<string, string>;
  healthPath?: string;
  startTimeoutMs?: number;
  /** Default `/_provider-states` on the mapped port; `null` when fixtures are used. */
  stateUrl?: string | null;
  log?: Log;
  /** Told when the container starts (typed progress, beside the log line). */
  phase?: (phase: TargetPhase) => void;
}

/** Testcontainers settings for this machine; must run before testcontainers is imported. */
function prepareTestcontainersEnv(env: NodeJS.ProcessEnv = process.env): void {
  // Ryuk would need an image from a registry; containers are stopped explicitly instead.
  env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  // Mapped ports are published on all host addresses; without this, testcontainers may believe it
  // runs inside a container (/.dockerenv) and look for the bridge gateway.
  env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
}

async function tc() {
  prepareTestcontainersEnv();
  return import('testcontainers');
}

/** Whether a container engine answers, within `timeoutMs`. */
export async function containerRuntimeAvailable(
  timeoutMs = 8_000,
): Promise<{ ok: true; version?: string } | { ok: false; problem: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const { getContainerRuntimeClient } = await tc();
    const client = await Promise.race([
      getContainerRuntimeClient(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true, version: client.info?.containerRuntime?.serverVersion?.toString() };
  } catch (e) {
    return { ok: false, problem: (e as Error).message.split('\n')[0] };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

export class ImageTarget implements Target {
  readonly kind: 'image' | 'reference' = 'image';
  private container?: StartedTestContainer;
  private stopping?: Promise<void>;
  private exitHook?: () => void;

  constructor(readonly opts: ImageTargetOptions) {}

  describe(): string {
    return `container image ${this.opts.image}`;
  }

  async start(): Promise<StartedTarget> {
    const log = this.opts.log ?? defaultLog;
    const { GenericContainer, getContainerRuntimeClient, ImageName } = await tc();
    const port = this.opts.containerPort ?? 8080;
    const healthPath = this.opts.healthPath ?? '/health';
    const timeout = this.opts.startTimeoutMs ?? 60_000;

    let digest: string | undefined;
    try {
      const client = await getContainerRuntimeClient();
      const info = await client.image.inspect(ImageName.fromString(this.opts.image));
      digest = info.RepoDigests?.[0]?.replace(/^.*@/, '') ?? info.Id;
    } catch {
      digest = undefined; // not local yet: testcontainers pulls it; the digest is read again below
    }

    this.opts.phase?.('container-start');
    log(
      `conformance: starting container ${this.opts.image} (port ${port}, wait for GET ${healthPath} → 200, timeout ${timeout} ms)`,
    );
    const t0 = Date.now();
    try {
      this.container = await new GenericContainer(this.opts.image)
        .withExposedPorts(port)
        .withEnvironment({ REFERENCE_PROVIDER_STATES: '1', ...(this.opts.env ?? {}) })
        .withWaitStrategy(
          httpReady({ path: healthPath, port, host: (await getContainerRuntimeClient()).info.containerRuntime.host }),
        )
        .withStartupTimeout(timeout)
        .start();
    } catch (e) {
      throw new HarnessError(
        `container ${this.opts.image} did not start or never answered GET ${healthPath}: ${(e as Error).message}`,
      );
    }
    if (!digest) {
      try {
        const client = await getContainerRuntimeClient();
        const info = await client.image.inspect(ImageName.fromString(this.opts.image));
        digest = info.RepoDigests?.[0]?.replace(/^.*@/, '') ?? info.Id;
      } catch {
        /* unknown */
      }
    }
    // last resort when the process exits without stop() (process.exit from elsewhere): synchronous removal
    const id = this.container.getId();
    this.exitHook = () => {
      spawnSync('docker', ['rm', '-f', id], { stdio: 'ignore', timeout: 15_000 });
    };
    process.once('exit', this.exitHook);
    const baseUrl = `http://${this.container.getHost()}:${this.container.getMappedPort(port)}`;
    log(
      `conformance: container ${this.container.getId().slice(0, 12)} healthy at ${baseUrl} after ${Date.now() - t0} ms`,
    );
    const stateUrl = this.opts.stateUrl === null ? undefined : (this.opts.stateUrl ?? `${baseUrl}/_provider-states`);
    return { kind: 'container', baseUrl, stateUrl, image: this.opts.image, imageDigest: digest };
  }

  /** The container's output (for diagnostics). */
  async logs(maxLines = 40): Promise<string> {
    if (!this.container) return '';
    try {
      const stream = await this.container.logs({ tail: maxLines });
      return await new Promise<string>((resolve) => {
        let out = '';
        stream.on('data', (d: Buffer) => (out += d.toString()));
        stream.on('end', () => resolve(out));
        setTimeout(() => resolve(out), 2_000);
      });
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    const c = this.container;
    if (!c) return;
    this.stopping = (async () => {
      const log = this.opts.log ?? defaultLog;
      try {
        await c.stop({ timeout: 5_000, remove: true });
        log(`conformance: container ${c.getId().slice(0, 12)} stopped`);
      } catch (e) {
        log(`conformance: WARNING: stopping container ${c.getId().slice(0, 12)} failed: ${(e as Error).message}`);
      } finally {
        this.container = undefined;
        if (this.exitHook) process.off('exit', this.exitHook);
        this.exitHook = undefined;
      }
    })();
    return this.stopping;
  }
}
