/**
 * The `x-requirements` of every operation of spec/openapi.yaml, derived from spec/requirements.yaml:
 * an operation lists, in catalogue order, every requirement that is not retired and governs it,
 * whether named in its `operations:` or derived from its `governs:` (conformance/src/coverage/derive.ts).
 * That is the one hand-written mechanism for requirement <-> operation; the operation's list is its
 * generated mirror, written by `npm run generate` and drift-checked by spec/test/generated.test.ts.
 *
 * Only operation-level lists are derived. The `x-requirements` of a 2xx response, a parameter, a
 * request body field or a schema node are provenance (conformance/src/spec/provenance.ts): which
 * requirement's quote supports that one constraint. requirements.yaml does not hold that fact, so
 * those stay hand-written in spec/openapi.yaml.
 *
 * The file is edited in place by splicing the text of each operation's list (a missing list is
 * inserted after `operationId`), so every other byte - comments, quoting, line breaks - is kept;
 * re-serialising the whole document with the `yaml` package would not keep it byte for byte.
 */
import YAML, { isMap, isScalar, type Pair, type YAMLMap } from 'yaml';
import { catalogueFrom } from '../conformance/src/spec/catalogue.js';
import { governedByRequirement } from '../conformance/src/coverage/derive.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const KEY = 'x-requirements';

/** Operation ID -> the requirement IDs that govern it, in catalogue order. */
export function derivedOperationRequirements(openapi: unknown, requirementsYaml: string): Map<string, string[]> {
  const catalogue = catalogueFrom(YAML.parse(requirementsYaml));
  const live = catalogue.requirements.filter((r) => !r.retired);
  const governed = governedByRequirement(live, openapi);
  const out = new Map<string, string[]>();
  for (const item of Object.values<any>((openapi as { paths?: object })?.paths ?? {}))
    for (const method of METHODS) {
      const id = item?.[method]?.operationId;
      if (typeof id === 'string')
        out.set(
          id,
          live.filter((r) => governed.get(r.id)!.operations.includes(id)).map((r) => r.id),
        );
    }
  return out;
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key);
}

/**
 * spec/openapi.yaml with the `x-requirements` of every operation replaced by the derived list.
 * Throws when the text cannot be edited safely (a YAML error, an operation without `operationId`).
 */
export function withDerivedXRequirements(openapiYaml: string, requirementsYaml: string): string {
  const doc = YAML.parseDocument(openapiYaml);
  if (doc.errors.length) throw new Error(`spec/openapi.yaml: ${doc.errors[0]!.message}`);
  const derived = derivedOperationRequirements(doc.toJS(), requirementsYaml);
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const paths = doc.get('paths');
  if (!isMap(paths)) return openapiYaml;
  for (const { key: path, value: item } of paths.items) {
    if (!isMap(item)) continue;
    for (const method of METHODS) {
      const op = item.get(method, true);
      if (!isMap(op)) continue;
      const idPair = pairOf(op, 'operationId');
      const id = isScalar(idPair?.value) ? idPair.value.value : undefined;
      if (typeof id !== 'string' || !idPair)
        throw new Error(`spec/openapi.yaml: ${method} ${String(path)} has no operationId`);
      const list = `[${derived.get(id)!.join(', ')}]`;
      const existing = pairOf(op, KEY);
      if (existing) {
        // From the key to the end of its value (flow or block, or none), so any style becomes the flow list.
        const start = (existing.key as { range: [number, number, number] }).range[0];
        const valueRange = (existing.value as { range?: [number, number, number] } | null)?.range;
        const end = valueRange
          ? valueRange[1]
          : openapiYaml.indexOf(':', (existing.key as { range: number[] }).range[1]!) + 1;
        const newline = openapiYaml[end - 1] === '\n' ? '\n' : '';
        edits.push({ start, end, text: `${KEY}: ${list}${newline}` });
        continue;
      }
      // No list yet (a new operation): one line after `operationId`, at its indentation.
      const keyStart = (idPair.key as { range: [number, number, number] }).range[0];
      const indent = keyStart - (openapiYaml.lastIndexOf('\n', keyStart - 1) + 1);
      const valueEnd = (idPair.value as { range: [number, number, number] }).range[1];
      const eol = openapiYaml.indexOf('\n', valueEnd);
      const at = eol === -1 ? openapiYaml.length : eol;
      edits.push({ start: at, end: at, text: `\n${' '.repeat(indent)}${KEY}: ${list}` });
    }
  }
  let out = openapiYaml;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}
