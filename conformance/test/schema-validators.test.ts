// The response validators are compiled once per version of the document into ajv's standalone
// code and loaded by every worker: they must judge exactly as validators compiled on use.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOpenApi, OpenApiIndex } from '../src/spec/openapi.js';
import {
  precompiledFile,
  precompileValidators,
  SchemaValidators,
} from '../src/suite-api/generic-checks/schema-validators.js';

// a document of its own (another hash, so another file than the runs' one)
const doc = structuredClone(loadOpenApi().doc);
doc.info = { ...doc.info, 'x-schema-validators-test': String(process.pid) };
const index = new OpenApiIndex(doc);
const file = precompiledFile(doc);
afterAll(() => fs.rmSync(file, { force: true }));

const BODIES: unknown[] = [
  { Record: { ClaimID: 1 }, Domain: 'Claim', Id: 1 },
  { List: [], TotalCount: 0 },
  { type: 'about:blank', title: 'Not Found', status: 404 },
  { List: 'not a list' },
  'a string',
  null,
  [],
  { Token: 'abc' },
];

describe('precompiled response validators', () => {
  it('cover every documented response schema of both views, and judge as compiled-on-use ones', () => {
    fs.rmSync(file, { force: true });
    const onUse = new SchemaValidators(doc); // no file yet: compiled on use
    expect(precompileValidators(index)).toBe(file);
    const keys = Object.keys(
      JSON.parse(/exports\.KEYS = (.*);\s*$/.exec(fs.readFileSync(file, 'utf8'))![1]!) as object,
    );
    const pointers = index.responseSchemaPointers();
    expect(pointers.length).toBeGreaterThan(20);
    expect(keys).toHaveLength(2 * pointers.length);
    const loaded = new SchemaValidators(doc);
    for (const view of ['core', 'full'] as const) {
      for (const pointer of pointers) {
        const a = onUse.get(view, pointer);
        const b = loaded.get(view, pointer);
        expect(b, `${view} ${pointer}: loaded from the file`).not.toBe(a);
        for (const body of BODIES) {
          expect(b(body), `${view} ${pointer} on ${JSON.stringify(body)}`).toBe(a(body));
          expect(JSON.stringify(b.errors ?? null)).toBe(JSON.stringify(a.errors ?? null));
        }
      }
    }
  }, 60_000);

  it('loads nothing from a directory others may write (the file is run as code)', () => {
    const pointer = index.responseSchemaPointers()[0]!;
    const body = { type: 'about:blank', title: 'Not Found', status: 404 };
    fs.rmSync(file, { force: true });
    const onUse = new SchemaValidators(doc).get('core', pointer)(body);
    // a planted file whose validator answers the opposite of the real one
    const plant = () =>
      fs.writeFileSync(
        file,
        `exports.v0 = () => ${!onUse};\nexports.KEYS = ${JSON.stringify({ [`openapi.core.json#${pointer}`]: 'v0' })};\n`,
      );
    plant();
    // in this user's own directory it is loaded (what makes the refusal below mean something)
    expect(new SchemaValidators(doc).get('core', pointer)(body)).toBe(!onUse);
    const dir = path.dirname(file);
    const mode = fs.statSync(dir).mode & 0o777;
    fs.chmodSync(dir, mode | 0o022);
    try {
      expect(new SchemaValidators(doc).get('core', pointer)(body)).toBe(onUse);
    } finally {
      fs.chmodSync(dir, mode);
      fs.rmSync(file, { force: true });
    }
  });

  it('a damaged file is ignored: the validators are compiled on use', () => {
    fs.writeFileSync(file, 'this is not JavaScript (');
    const v = new SchemaValidators(doc);
    const pointer = index.responseSchemaPointers()[0]!;
    expect(typeof v.get('core', pointer)).toBe('function');
    expect(precompileValidators(index)).toBe(file); // there already: left as it is
  });
});
