// The formats of a conformance bundle, without a run (milliseconds): DSSE's pre-authentication
// encoding (the spec's own example), the keyid as openssl computes it, and the archive as `tar`
// reads it.
import { execFileSync } from 'node:child_process';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packTarGz, unpackTarGz } from '../src/bundle/archive.js';
import { checkSignature, envelope, keyId, pae } from '../src/bundle/dsse.js';

describe('bundle formats', () => {
  it('PAE is the DSSE spec example, and a signature covers it', () => {
    expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe(
      'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
    );
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
    const env = envelope(Buffer.from('{"a":1}'), privateKey);
    expect(env.signatures[0]!.keyid).toBe(keyId(publicKey));
    expect(checkSignature(env, publicKey)).toEqual({ status: 'valid', keyid: keyId(publicKey) });
    const changed = { ...env, payload: Buffer.from('{"a":2}').toString('base64') };
    expect(checkSignature(changed, publicKey).status).toBe('invalid');
    // keyid: SHA-256 of the SPKI DER, what `openssl pkey -pubin -outform DER | sha256sum` prints
    const der = publicKey.export({ type: 'spki', format: 'der' });
    expect(keyId(publicKey)).toBe(crypto.createHash('sha256').update(der).digest('hex'));
  });

  it('the archive round-trips and `tar` reads the same files', () => {
    const files = [
      { name: 'a.json', data: Buffer.from('{"x":1}\n') },
      { name: 'empty.txt', data: Buffer.alloc(0) },
      { name: 'big.bin', data: crypto.randomBytes(1500) },
    ];
    const gz = packTarGz(files, new Date('2026-01-02T03:04:05Z'));
    expect(unpackTarGz(gz)).toEqual(files);
    expect(packTarGz(files, new Date('2026-01-02T03:04:05Z')).equals(gz)).toBe(true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-tar-'));
    fs.writeFileSync(path.join(dir, 'b.tar.gz'), gz);
    execFileSync('tar', ['-xzf', 'b.tar.gz'], { cwd: dir });
    for (const f of files) expect(fs.readFileSync(path.join(dir, f.name)).equals(f.data), f.name).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
    // a changed byte of a header is refused, not read
    const tar = Buffer.from(zlib.gunzipSync(gz));
    tar[0] = 'b'.charCodeAt(0);
    expect(() => unpackTarGz(zlib.gzipSync(tar))).toThrow(/bad checksum/);
  });
});
