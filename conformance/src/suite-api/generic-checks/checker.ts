// The generic checker: finds the operation and documented response of an exchange, then runs every
// check of GENERIC_CHECKS (checks.ts) on it. A request to an /api path that no operation matches is
// a finding; a request outside /api (e.g. /health) is not the API's and is not checked.
import type { OpenApiIndex } from '../../spec/openapi.js';
import { GENERIC_CHECKS } from './checks.js';
import { parseBody, type CheckedExchange } from './checked-exchange.js';
import { SchemaValidators } from './schema-validators.js';
import type { CheckInput, CheckResult, SchemaView } from './types.js';

export class GenericChecker {
  private readonly validators: SchemaValidators;

  constructor(
    readonly index: OpenApiIndex,
    readonly view: SchemaView = 'core',
  ) {
    this.validators = new SchemaValidators(index.doc);
  }

  check(input: CheckInput): CheckResult {
    const out: CheckResult = { checked: [], violations: [], findings: [] };
    const op = this.index.match(input.method, input.path);
    out.operation = op;
    const where = `${input.method.toUpperCase()} ${input.url} → ${input.status}${op ? ` (${op.operationId})` : ''}`;
    if (!op) {
      // Only the API's own paths are operations; an unknown /api path is still expected to answer JSON.
      if (!input.path.startsWith('/api/')) return out;
      out.findings.push({
        kind: 'unknown-operation',
        method: input.method,
        url: input.url,
        status: input.status,
        message: `${where}: no operation of the spec matches this request`,
      });
    }
    const exchange: CheckedExchange = {
      input,
      operation: op,
      response: op ? this.index.response(op, input.status) : undefined,
      where,
      body: parseBody(input.bodyText),
      view: this.view,
      validator: (doc, pointer) => this.validators.get(doc, pointer),
    };
    for (const c of GENERIC_CHECKS) c.run(exchange, out);
    return out;
  }
}
