// Choices a vendor declares through bindings (conformance/src/model/bindings.ts) are never
// findings. A binding only renames or moves a part the spec leaves open (the domain list's
// envelope, the total count's place); before the implementation-defined parts of a body are
// compared with the reference's choice, the bound parts are moved back to where the reference has
// them. What differs after that is a choice the vendor made without a binding: a finding.
import { atPath, defaultBindings, type Bindings } from '../../model/bindings.js';

/** The response body as the reference would place its bound parts, and the bindings that moved any. */
export interface ReferenceShaped {
  body: unknown;
  /** The bindings (`domainsListField`, ...) that moved a part of this body. */
  applied: string[];
}

/** The operations whose answer carries the total count (parameter includeTotalCount, spec/openapi.yaml). */
const TOTAL_COUNT_OPERATIONS = new Set(['queryRecords', 'queryFiles']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `obj` without the value at the dotted `path` (and without the objects the removal left empty). */
function without(obj: Record<string, unknown>, path: string): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  const out = { ...obj };
  if (!rest.length || !isObject(out[head])) delete out[head];
  else {
    const inner = without(out[head] as Record<string, unknown>, rest.join('.'));
    if (Object.keys(inner).length) out[head] = inner;
    else delete out[head];
  }
  return out;
}

/**
 * `body` with the parts the run's bindings name moved to the reference's place: the domain list
 * under `List` (binding domainsListField), the total count as top-level `TotalCount` (bindings
 * totalCountField, totalCountHeader). Bindings equal to the reference's leave the body as it is.
 */
export function asReferenceShape(
  operationId: string,
  body: unknown,
  headers: Record<string, string> | undefined,
  bindings: Bindings | undefined,
): ReferenceShaped {
  if (!bindings) return { body, applied: [] };
  if (operationId === 'listDomains' && bindings.domainsListField !== defaultBindings.domainsListField) {
    const list = atPath(body, bindings.domainsListField);
    return list === undefined ? { body, applied: [] } : { body: { List: list }, applied: ['domainsListField'] };
  }
  if (TOTAL_COUNT_OPERATIONS.has(operationId) && isObject(body)) {
    if (bindings.totalCountHeader) {
      const h = headers?.[bindings.totalCountHeader.toLowerCase()];
      if (h === undefined) return { body, applied: [] };
      return { body: { ...body, TotalCount: /^\s*\d+\s*$/.test(h) ? Number(h) : h }, applied: ['totalCountHeader'] };
    }
    if (bindings.totalCountField !== defaultBindings.totalCountField) {
      const v = atPath(body, bindings.totalCountField);
      if (v === undefined) return { body, applied: [] };
      return { body: { ...without(body, bindings.totalCountField), TotalCount: v }, applied: ['totalCountField'] };
    }
  }
  return { body, applied: [] };
}
