// The compiled JSON Schema validators of response bodies: ajv over the full OpenAPI document and over
// its core view (spec/core-view.ts: every x-implementation-defined schema relaxed), compiled once per
// schema and kept.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { coreView } from '../../spec/core-view.js';
import type { SchemaView } from './types.js';

// ajv-formats is CommonJS; under some loaders the default export is the module object.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof addFormatsModule;

const DOC_ID: Record<SchemaView, string> = { full: 'openapi.json', core: 'openapi.core.json' };

export class SchemaValidators {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: unknown) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, logger: false });
    addFormats(this.ajv);
    for (const f of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) {
      this.ajv.addFormat(f, true);
    }
    this.ajv.addSchema(stripForAjv(doc), DOC_ID.full);
    this.ajv.addSchema(stripForAjv(coreView(doc as any)), DOC_ID.core);
  }

  /** The validator of the schema at `pointer` in the core view or the full document. */
  get(view: SchemaView, pointer: string): ValidateFunction {
    const key = `${DOC_ID[view]}#${pointer}`;
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile({ $ref: key });
      this.compiled.set(key, v);
    }
    return v;
  }
}

/** The document without keys that ajv would mistake for schema ids. */
function stripForAjv(doc: any): any {
  const copy = { ...doc };
  delete copy.$id;
  delete copy.$schema;
  return copy;
}
