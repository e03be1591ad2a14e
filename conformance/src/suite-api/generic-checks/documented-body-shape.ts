// GEN-002: "a successful response of a documented operation has the documented shape". A 2xx
// status the spec documents for the operation in core (a response not marked
// x-implementation-defined) carries a body valid against that response's schema. A core body is
// validated against the core view; what only the full document (the reference's choices) refuses
// is a finding in the core view and an implementation-defined violation in the full view. An
// undocumented status, a marked response and any response that is not a success are findings,
// never GEN-002 failures: the spec describes its errors in words ("a server error", section 7),
// and the tests of the requirements that quote them check what the words say (FILE-017: a 5xx).
import type { ErrorObject } from 'ajv';
import type { GenericCheck } from './check.js';
import { envelopeOwner } from './envelopes.js';
import { attributeErrors } from './violation-provenance.js';
import type { Finding } from './types.js';
import { asReferenceShape } from './bound-choices.js';

export const documentedBodyShape: GenericCheck = {
  requirement: 'GEN-002',
  name: 'documented_body_shape',
  description: 'a documented core status carries a JSON body valid against the schema of that response',
  run(x, out) {
    const { operation: op, response: spec, where, body } = x;
    if (!op) return;
    const finding = (kind: Finding['kind'], message: string): Finding => ({
      kind,
      operationId: op.operationId,
      method: x.input.method,
      url: x.input.url,
      status: x.input.status,
      message,
    });
    if (!spec) {
      out.findings.push(
        finding(
          'undocumented-status',
          `${where}: status ${x.input.status} is not among the reference's statuses for ${op.operationId} (spec/openapi.yaml; a finding, not a core failure)`,
        ),
      );
      return;
    }
    if (!spec.schemaPointer) return;
    const schema = spec.schemaPointer;
    const success = x.input.status >= 200 && x.input.status < 300;
    const core = !spec.implementationDefined && success;
    if (core) out.checked.push('GEN-002');
    if (!body.json) {
      const what = body.empty ? 'empty' : 'not JSON';
      if (core)
        out.violations.push({
          code: 'GEN-002',
          message: `[GEN-002] ${where}: documented response ${spec.key} has a JSON body schema but the body is ${what}`,
        });
      else
        out.findings.push(
          finding(
            'implementation-defined-not-json',
            `${where}: the reference's choice for response ${spec.key} is a JSON body; this body is ${what} (a finding, not a core failure)`,
          ),
        );
      return;
    }
    const parsed = body.json.value;
    // the reference's choices are compared with the body as the reference would place the parts
    // the run's bindings move (bound-choices.ts): a choice declared through a binding is no finding
    const shaped = asReferenceShape(op.operationId, parsed, x.input.headers, x.input.bindings);
    const declared = shaped.applied.length ? ` (after the bindings ${shaped.applied.join(', ')})` : '';
    if (!core) {
      // a marked response: the reference's choice as a whole (its envelope); a finding either way
      const full = x.validator('full', schema);
      if (full(shaped.body)) return;
      out.findings.push(
        finding(
          'implementation-defined-schema',
          `${where}: body differs from the reference's choice for response ${spec.key}${declared}: ${formatErrors(full.errors)} (a finding, not a core failure; declare your choice through a binding where one names it, conformance/README.md section 4)`,
        ),
      );
      return;
    }
    // a core response: first against the core view, then (for the difference) against the full document
    const validate = x.validator('core', schema);
    if (!validate(parsed)) {
      const msg = `${where}: body does not match the documented schema of response ${spec.key}: ${formatErrors(validate.errors)}`;
      // a broken envelope is the failure of the requirement that describes it (envelopes.ts)
      const owner = envelopeOwner(op.operationId, validate.errors);
      if (owner) out.violations.push({ code: 'GEN-002', owner, message: `[${owner}, the answer's envelope] ${msg}` });
      else {
        // a constraint a requirement of its own states is that requirement's failure, not GEN-002's
        // as well (one cause, one red line); what only the shape as a whole states is GEN-002's
        const { requirements, attributed, unattributed } = attributeErrors(schema, validate.errors);
        const refused = (errors: ErrorObject[]) =>
          `${where}: body does not match the documented schema of response ${spec.key}: ${formatErrors(errors)}`;
        if (attributed.length)
          out.violations.push({
            code: 'GEN-002',
            requirements,
            message: `[${requirements.join(', ')}, the documented shape] ${refused(attributed)}`,
          });
        if (unattributed.length)
          out.violations.push({ code: 'GEN-002', message: `[GEN-002] ${refused(unattributed)}` });
      }
      return;
    }
    const full = x.validator('full', schema);
    // the implementation-defined profile tests the reference's choices as they are; core compares
    // the body with the bound parts moved back
    if (x.view === 'full') {
      if (full(parsed)) return;
      const msg = `${where}: body differs from the reference's choice in implementation-defined parts of response ${spec.key}: ${formatErrors(full.errors)}`;
      out.violations.push({
        code: 'GEN-002',
        level: 'implementation-defined',
        message: `[GEN-002, implementation-defined] ${msg}`,
      });
      return;
    }
    if (full(shaped.body)) return;
    out.findings.push(
      finding(
        'implementation-defined-property',
        `${where}: body differs from the reference's choice in implementation-defined parts of response ${spec.key}${declared}: ${formatErrors(full.errors)} (a finding, not a core failure)`,
      ),
    );
  },
};

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
