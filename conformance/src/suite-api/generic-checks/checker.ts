// Generic checks run on every recorded exchange (docs/architecture.md section 8):
//   GEN-001  a non-empty body is JSON (a JSON content type and a body that parses)
//   GEN-002  a status the spec documents for the operation in CORE (a response not marked
//            x-implementation-defined) carries a body valid against that response's schema
// Undocumented statuses and implementation-defined responses are findings, not core failures.
// The view decides which document a body is validated against: 'core' validates against the core
// view (conformance/src/spec/core-view.ts: every x-implementation-defined schema relaxed) and reports
// a body that only the full document refuses as a finding; 'full' (the implementation-defined
// profile) validates against the full document, the reference's choices included.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction, ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { OpenApiIndex, OperationMatch } from '../../spec/openapi.js';
import { coreView } from '../../spec/core-view.js';

// ajv-formats is CommonJS; under some loaders the default export is the module object.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof addFormatsModule;

export type GenericCode = 'GEN-001' | 'GEN-002';

export interface Violation {
  code: GenericCode;
  message: string;
  /**
   * 'implementation-defined': the body is valid in the core view and only the full document (the
   * reference's choices) refuses it; reported so by the 'full' view only. Such a violation fails
   * the implementation-defined test it occurs in and never counts against GEN-002 itself.
   */
  level?: 'implementation-defined';
}

export interface Finding {
  kind:
    | 'undocumented-status'
    | 'implementation-defined-schema'
    | 'implementation-defined-property'
    | 'implementation-defined-not-json'
    | 'unknown-operation';
  operationId?: string;
  method: string;
  url: string;
  status: number;
  message: string;
}

export interface CheckInput {
  method: string;
  /** Full URL (for messages). */
  url: string;
  /** Path relative to the base URL, starting with `/`. */
  path: string;
  status: number;
  contentType: string | null;
  bodyText: string;
}

export interface CheckResult {
  operation?: OperationMatch;
  /** Which generic requirements were checked on this exchange. */
  checked: GenericCode[];
  violations: Violation[];
  findings: Finding[];
}

/** Which document bodies are validated against: the core view (core profile) or the full document. */
export type SchemaView = 'core' | 'full';

const FULL_ID = 'openapi.json';
const CORE_ID = 'openapi.core.json';

export class GenericChecker {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    readonly index: OpenApiIndex,
    readonly view: SchemaView = 'core',
  ) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, logger: false });
    addFormats(this.ajv);
    for (const f of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) {
      this.ajv.addFormat(f, true);
    }
    this.ajv.addSchema(stripForAjv(index.doc), FULL_ID);
    this.ajv.addSchema(stripForAjv(coreView(index.doc)), CORE_ID);
  }

  private validator(docId: string, pointer: string): ValidateFunction {
    const key = `${docId}#${pointer}`;
    let v = this.validators.get(key);
    if (!v) {
      v = this.ajv.compile({ $ref: key });
      this.validators.set(key, v);
    }
    return v;
  }

  check(x: CheckInput): CheckResult {
    const res: CheckResult = { checked: [], violations: [], findings: [] };
    const op = this.index.match(x.method, x.path);
    res.operation = op;
    const where = `${x.method.toUpperCase()} ${x.url} → ${x.status}${op ? ` (${op.operationId})` : ''}`;
    if (!op) {
      // Only the API's own paths are operations; an unknown /api path is still expected to answer JSON.
      if (!x.path.startsWith('/api/')) return res;
      res.findings.push({
        kind: 'unknown-operation',
        method: x.method,
        url: x.url,
        status: x.status,
        message: `${where}: no operation of the spec matches this request`,
      });
    }
    const spec = op ? this.index.response(op, x.status) : undefined;
    const core = !!spec && !spec.implementationDefined;

    // GEN-001
    let parsed: unknown;
    let isJson = false;
    const empty = x.bodyText.trim().length === 0;
    if (!empty) {
      res.checked.push('GEN-001');
      const ctOk =
        x.contentType !== null &&
        /(^application\/json\b)|(\+json\b)|(^application\/[\w.-]*json\b)/i.test(x.contentType.trim());
      try {
        parsed = JSON.parse(x.bodyText);
        isJson = true;
      } catch (e) {
        res.violations.push({
          code: 'GEN-001',
          message: `[GEN-001] ${where}: body is not JSON (${(e as Error).message}); body starts ${JSON.stringify(x.bodyText.slice(0, 120))}`,
        });
      }
      if (isJson && !ctOk) {
        res.violations.push({
          code: 'GEN-001',
          message: `[GEN-001] ${where}: JSON body with content type ${JSON.stringify(x.contentType)} (expected application/json or +json)`,
        });
      }
    }

    if (!op) return res;
    if (!spec) {
      res.findings.push({
        kind: 'undocumented-status',
        operationId: op.operationId,
        method: x.method,
        url: x.url,
        status: x.status,
        message: `${where}: status ${x.status} is not documented for ${op.operationId}`,
      });
      return res;
    }
    if (!spec.schemaPointer) return res;

    // GEN-002
    const schema = spec.schemaPointer;
    if (core) res.checked.push('GEN-002');
    if (empty || !isJson) {
      const msg = `${where}: documented response ${spec.key} has a JSON body schema but the body is ${empty ? 'empty' : 'not JSON'}`;
      if (core) res.violations.push({ code: 'GEN-002', message: `[GEN-002] ${msg}` });
      else
        res.findings.push({
          kind: 'implementation-defined-not-json',
          operationId: op.operationId,
          method: x.method,
          url: x.url,
          status: x.status,
          message: msg,
        });
      return res;
    }
    // a marked response is checked against the full document (a finding either way); a core
    // response first against the core view, then (for the difference) against the full document
    const validate = this.validator(core ? CORE_ID : FULL_ID, schema);
    if (!validate(parsed)) {
      const msg = `${where}: body does not match the documented schema of response ${spec.key}: ${formatErrors(validate.errors)}`;
      if (core) res.violations.push({ code: 'GEN-002', message: `[GEN-002] ${msg}` });
      else
        res.findings.push({
          kind: 'implementation-defined-schema',
          operationId: op.operationId,
          method: x.method,
          url: x.url,
          status: x.status,
          message: msg,
        });
      return res;
    }
    if (core) {
      const full = this.validator(FULL_ID, schema);
      if (!full(parsed)) {
        const msg = `${where}: body differs from the reference's choice in implementation-defined parts of response ${spec.key}: ${formatErrors(full.errors)}`;
        if (this.view === 'full')
          res.violations.push({
            code: 'GEN-002',
            level: 'implementation-defined',
            message: `[GEN-002, implementation-defined] ${msg}`,
          });
        else
          res.findings.push({
            kind: 'implementation-defined-property',
            operationId: op.operationId,
            method: x.method,
            url: x.url,
            status: x.status,
            message: `${msg} (a finding, not a core failure)`,
          });
      }
    }
    return res;
  }
}

/** Every schema error, one after another (never truncated: a vendor needs all of them). */
function formatErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'invalid';
  const parts = errors.map((e) => {
    const at = e.instancePath || '(root)';
    const extra =
      e.keyword === 'additionalProperties'
        ? ` '${(e.params as any).additionalProperty}'`
        : e.keyword === 'enum'
          ? ` ${JSON.stringify((e.params as any).allowedValues)}`
          : '';
    return `${at} ${e.message ?? e.keyword}${extra}`;
  });
  return parts.join('; ');
}

/** The document without keys that ajv would mistake for schema ids. */
function stripForAjv(doc: any): any {
  const copy = { ...doc };
  delete copy.$id;
  delete copy.$schema;
  return copy;
}
