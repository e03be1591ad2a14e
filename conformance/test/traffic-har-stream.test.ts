// The streaming HAR reader (issue 34): entries cut out of the bytes one at a time must be exactly
// what JSON.parse of the whole file gives, whatever the strings hold (brackets, braces, quotes,
// backslashes, non-ASCII) and wherever the pieces of the file break, and a file that is not a HAR
// is refused with the same clear errors as before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { harEntriesOf, readHarFile, type HarEntry } from '../src/traffic/har.js';
import { entry } from './helpers/har.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-har-stream-'));
const tricky = [
  'a "quoted" ] } [ { value',
  'back\\slash \\" then \\\\',
  '{"List":[{"x":"]"}]}',
  'naïve — ünïcödé 日本 😀',
  '\\u005d\\u007d',
  '',
];
const entries: HarEntry[] = tricky.map((s, i) => ({
  ...entry('POST', `/api/Contact/Query?x=${encodeURIComponent(s)}`, 200, { List: [{ S: s, N: i }] }, { body: { s } }),
  comment: s,
}));
const doc = (extra: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      log: {
        version: '1.2',
        creator: { name: 'x ] }', version: '1' },
        pages: [{ id: 'p{[', title: 'entries' }],
        ...extra,
        entries,
      },
    },
    null,
    1,
  );
const pieces = (text: string, size: number) => {
  const b = Buffer.from(`\uFEFF${text}`, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};
const all = (chunks: Buffer[], name = 'x.har') => [...harEntriesOf(chunks, name)];

describe('streaming HAR reader', () => {
  it('gives what JSON.parse gives, with strings holding brackets, escapes and non-ASCII, at every piece size', () => {
    const text = doc();
    const whole = (JSON.parse(text) as { log: { entries: unknown[] } }).log.entries;
    expect(whole).toHaveLength(tricky.length);
    for (const size of [1, 2, 3, 5, 7, 64, 1000, 1 << 20])
      expect(all(pieces(text, size)), `size ${size}`).toEqual(whole);
    // a file read in pieces
    const file = path.join(tmp, 'a.har');
    fs.writeFileSync(file, text);
    expect([...readHarFile(file).entries]).toEqual(whole);
    // a key named "entries" elsewhere (a page's, an entry's comment) is not the log's array
    expect(all(pieces(doc({ comment: 'entries' }), 4))).toEqual(whole);
  });

  it('reads entries as they are iterated, one at a time', () => {
    const gen = harEntriesOf(pieces(doc(), 16), 'x.har');
    expect(gen.next().value).toEqual(JSON.parse(JSON.stringify(entries[0])));
    expect(gen.next().value).toEqual(JSON.parse(JSON.stringify(entries[1])));
  });

  it('refuses what is not a HAR with the errors of the whole-file reader', () => {
    expect(() => all(pieces('not json', 4))).toThrow(/is not JSON, so not a HAR file/);
    expect(() => all(pieces('', 4))).toThrow(/is not JSON/);
    expect(() => all(pieces('{"x":1}', 4))).toThrow(/has no log.entries array/);
    expect(() => all(pieces('{"log":{"entries":{}}}', 4))).toThrow(/has no log.entries array/);
    expect(() => all(pieces('{"log":{"version":"2.0","entries":[]}}', 4))).toThrow(/HAR version 2.0 is not read/);
    expect(() => all(pieces('{"log":{"entries":[1]}}', 4))).toThrow(/entry 0 has no request method and URL/);
    expect(() => all(pieces('{"log":{"entries":[{"request":{}}]}}', 4))).toThrow(/entry 0 has no request/);
    expect(() => all(pieces('{"log":{"entries":[{"request":{"url":"u","method":"GET"},}]}}', 4))).toThrow(
      /is not JSON.*entry 0/,
    );
    expect(() => all(pieces(doc().slice(0, -3), 64))).toThrow(/ends before its last object is closed/);
    expect(() => all(pieces(`${doc()} {}`, 64))).toThrow(/more after the top-level object/);
    expect(all(pieces('{"log":{"version":"1.2","entries":[]}}', 3))).toEqual([]);
  });
});
