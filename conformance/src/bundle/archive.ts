// The bundle's container: a gzip-compressed ustar archive (POSIX.1-1988 tar) of flat, regular
// files, written and read here with Node's zlib. Small on purpose: a bundle holds a handful of
// files with short names, so neither long names (pax, GNU) nor links nor directories are needed,
// and reading refuses them (a customer's `tar -xzf` then gives the same files this reads).
// Written deterministically (mode 0644, owner 0, the one modification time given), so the same
// files give the same archive bytes.
import zlib from 'node:zlib';

export interface ArchiveFile {
  /** A plain name: no directory, at most 100 bytes. */
  name: string;
  data: Buffer;
}

const BLOCK = 512;

/** `n` as a NUL-terminated octal field of `width` bytes. */
function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, mtimeS: number): Buffer {
  const h = Buffer.alloc(BLOCK, 0);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii'); // uid
  h.write(octal(0, 8), 116, 'ascii'); // gid
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(mtimeS, 12), 136, 'ascii');
  h.write(' '.repeat(8), 148, 'ascii'); // checksum: spaces while it is summed
  h.write('0', 156, 'ascii'); // a regular file
  h.write('ustar\0' + '00', 257, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** The name a bundle may hold: no path, no `..`, printable, short enough for ustar's name field. */
function checkName(name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || Buffer.byteLength(name) > 100)
    throw new Error(`not a plain file name for the archive: '${name}'`);
}

/** The files as one .tar.gz, in the order given. */
export function packTarGz(files: readonly ArchiveFile[], mtime: Date): Buffer {
  const mtimeS = Math.max(0, Math.floor(mtime.getTime() / 1000));
  const parts: Buffer[] = [];
  for (const f of files) {
    checkName(f.name);
    parts.push(header(f.name, f.data.length, mtimeS), f.data);
    const pad = (BLOCK - (f.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad, 0));
  }
  parts.push(Buffer.alloc(2 * BLOCK, 0)); // the end of the archive
  return zlib.gzipSync(Buffer.concat(parts), { level: 9 });
}

function field(h: Buffer, at: number, len: number): string {
  const s = h.subarray(at, at + len).toString('utf8');
  const nul = s.indexOf('\0');
  return nul < 0 ? s : s.slice(0, nul);
}

/**
 * The files of a .tar.gz, in archive order. Throws (with what is wrong) on anything that is not a
 * bundle's plain archive: a bad checksum, a directory, a link, a path, a name twice.
 */
export function unpackTarGz(gz: Buffer): ArchiveFile[] {
  let tar: Buffer;
  try {
    tar = zlib.gunzipSync(gz);
  } catch (e) {
    throw new Error(`not a gzip file: ${(e as Error).message}`, { cause: e });
  }
  const out: ArchiveFile[] = [];
  const seen = new Set<string>();
  for (let at = 0; at + BLOCK <= tar.length;) {
    const h = tar.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) return out;
    const name = field(h, 0, 100);
    const stored = parseInt(field(h, 148, 8).trim() || 'x', 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (stored !== sum) throw new Error(`archive header of '${name}' has a bad checksum`);
    const type = field(h, 156, 1);
    if (type !== '0' && type !== '') throw new Error(`archive entry '${name}' is not a regular file (type '${type}')`);
    if (field(h, 345, 155)) throw new Error(`archive entry '${name}' has a path prefix`);
    checkName(name);
    if (seen.has(name)) throw new Error(`archive holds '${name}' twice`);
    seen.add(name);
    const size = parseInt(field(h, 124, 12).trim(), 8);
    if (!Number.isSafeInteger(size) || at + BLOCK + size > tar.length)
      throw new Error(`archive entry '${name}' is cut short`);
    out.push({ name, data: Buffer.from(tar.subarray(at + BLOCK, at + BLOCK + size)) });
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new Error('the archive has no end (cut short?)');
}
