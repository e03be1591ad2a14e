// DSSE (Dead Simple Signing Envelope, https://github.com/secure-systems-lab/dsse, envelope.md and
// protocol.md): the bundle's statement signed with the vendor's Ed25519 key, with Node's own
// crypto. The signature is over PAE(payloadType, payload), never over the JSON of the envelope:
//   PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
// (LEN: the byte length in ASCII decimal). A key is named by its keyid: the SHA-256 of its public
// key's SubjectPublicKeyInfo DER, hex (`openssl pkey -pubin -in key.pub -outform DER | sha256sum`).
// An unsigned bundle carries the envelope with an empty `signatures` list.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { UsageError } from '../model/errors.js';
import { sha256 } from './digests.js';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export interface DsseEnvelope {
  payloadType: string;
  /** base64 of the payload's bytes */
  payload: string;
  signatures: Array<{ keyid: string; sig: string }>;
}

/** The pre-authentication encoding the signature covers. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'utf8'),
    type,
    Buffer.from(` ${payload.length} `, 'utf8'),
    payload,
  ]);
}

/** The keyid of a public key: SHA-256 of its SPKI DER, hex. */
export function keyId(key: crypto.KeyObject): string {
  const pub = key.type === 'private' ? crypto.createPublicKey(key) : key;
  return sha256(pub.export({ type: 'spki', format: 'der' }));
}

function readKey(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the ${what} ${file}: ${(e as Error).message}`);
  }
}

function ed25519(key: crypto.KeyObject, file: string, what: string): crypto.KeyObject {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(`${file}: the ${what} must be an Ed25519 key (got ${key.asymmetricKeyType ?? 'none'})`);
  return key;
}

/** The vendor's Ed25519 private key from a PEM file (`openssl genpkey -algorithm ed25519`). */
export function loadPrivateKey(file: string): crypto.KeyObject {
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey(readKey(file, 'signing key'));
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`${file}: not a PEM private key (${(e as Error).message})`);
  }
  return ed25519(key, file, 'signing key');
}

/** An Ed25519 public key from a PEM file (a private key's file gives its public key too). */
export function loadPublicKey(file: string): crypto.KeyObject {
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey(readKey(file, 'public key'));
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`${file}: not a PEM public key (${(e as Error).message})`);
  }
  return ed25519(key, file, 'public key');
}

/** The envelope of `payload`, signed with `key` when given, else with no signature. */
export function envelope(payload: Buffer, key?: crypto.KeyObject, payloadType = IN_TOTO_PAYLOAD_TYPE): DsseEnvelope {
  return {
    payloadType,
    payload: payload.toString('base64'),
    signatures: key
      ? [{ keyid: keyId(key), sig: crypto.sign(null, pae(payloadType, payload), key).toString('base64') }]
      : [],
  };
}

/** What the envelope's signatures say of `key`. */
export type SignatureCheck =
  | { status: 'valid'; keyid: string }
  | { status: 'unsigned' }
  /** signed, but by other keys only (their keyids) */
  | { status: 'other-key'; keyids: string[]; expected: string }
  /** a signature names this key but does not verify: the payload or the signature changed */
  | { status: 'invalid'; keyid: string };

export function checkSignature(env: DsseEnvelope, key: crypto.KeyObject): SignatureCheck {
  const id = keyId(key);
  if (env.signatures.length === 0) return { status: 'unsigned' };
  const payload = Buffer.from(env.payload, 'base64');
  const mine = env.signatures.filter((s) => s.keyid === id || s.keyid === '');
  for (const s of mine)
    if (crypto.verify(null, pae(env.payloadType, payload), key, Buffer.from(s.sig, 'base64')))
      return { status: 'valid', keyid: id };
  if (mine.some((s) => s.keyid === id)) return { status: 'invalid', keyid: id };
  return { status: 'other-key', keyids: env.signatures.map((s) => s.keyid), expected: id };
}
