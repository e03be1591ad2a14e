// Packs this repository with `npm pack` and installs the tarball into an empty directory the way a
// vendor would, but without network: the npm cache already holds every dependency's tarball (the
// repository's own `npm ci` put them there), yet not the registry documents npm needs to resolve
// versions. So the empty project gets a package-lock.json derived from ours (the production
// entries: the same versions and integrity hashes), and `npm ci --offline` then reads only the cache.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface LockEntry {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
  [k: string]: unknown;
}

const npmEnv = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

/**
 * `npm pack` of the repository into `dest`: the tarball's path and the files it holds (paths
 * relative to the package, as npm lists them), so that one pack both is installed and has its
 * contents checked (a second `npm pack --dry-run` ran the prepack build again).
 */
export function pack(dest: string): { tarball: string; files: string[] } {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest], {
    cwd: ROOT,
    env: npmEnv,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  return { tarball: path.join(dest, info.filename), files: info.files.map((f) => f.path) };
}

/** Writes package.json and a package-lock.json for a project depending only on `tarball`. */
function writeVendorProject(dir: string, tarball: string): void {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    dependencies: Record<string, string>;
    bin: Record<string, string>;
    engines: Record<string, string>;
    license: string;
  };
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const rel = path.relative(dir, tarball).split(path.sep).join('/');
  const spec = `file:${rel}`;
  const packages: Record<string, LockEntry> = {
    '': { name: 'vendor-project', dependencies: { [pkg.name]: spec } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '' || entry.dev || !key.startsWith('node_modules/')) continue;
    // devOptional: needed by an optional production dependency (here: tslib for @emnapi/*)
    const { devOptional, ...rest } = entry;
    packages[key] = devOptional ? { ...rest, optional: true } : rest;
  }
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: 'vendor-project', private: true, dependencies: { [pkg.name]: spec } }, null, 2)}\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'package-lock.json'),
    `${JSON.stringify({ name: 'vendor-project', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
}

/** Installs `tarball` into the empty directory `dir` from the npm cache only (no network). */
export function installOffline(dir: string, tarball: string): void {
  writeVendorProject(dir, tarball);
  execFileSync('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: dir,
    env: npmEnv,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

// `tsx conformance/image/pack-install.ts <dir>`: pack and install into <dir> (the suite image's build).
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const dir = path.resolve(process.argv[2] ?? '');
  if (!process.argv[2] || (fs.existsSync(dir) && fs.readdirSync(dir).length > 0)) {
    process.stderr.write('usage: tsx conformance/image/pack-install.ts <empty-or-new-dir>\n');
    process.exit(2);
  }
  fs.mkdirSync(dir, { recursive: true });
  const { tarball } = pack(fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-pack-')));
  installOffline(dir, tarball);
  fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
  process.stdout.write(`installed ${path.basename(tarball)} into ${dir}\n`);
}
