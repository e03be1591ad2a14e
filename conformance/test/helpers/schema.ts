// The published JSON Schema of results.json, compiled with ajv (2020-12, formats).
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ROOT } from '../../src/paths.js';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof addFormatsModule;

const SCHEMA_FILE = path.join(ROOT, 'conformance/schema/results.schema.json');

export function resultsValidator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')));
  return (doc: unknown): string[] =>
    validate(doc)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}
