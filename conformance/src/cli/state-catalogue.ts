// The provider states of spec/provider-states.yaml (via its generated JSON): for each state its
// description and the fields of its params and values schemas. `conformance init` writes one
// handler stub per state from it; `conformance states` prints it beside what a run sent.
import fs from 'node:fs';
import path from 'node:path';
import { SPEC_DIR } from '../paths.js';

export interface StateField {
  name: string;
  type: string;
  required: boolean;
  /** The protocol version that brought it (x-since). */
  since: string;
  description?: string;
  default?: unknown;
}

export interface StateDoc {
  name: string;
  description: string;
  params: StateField[];
  values: StateField[];
}

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  description?: string;
  default?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
};

function deref(doc: { components: { schemas: Record<string, Schema> } }, s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; cur.$ref && i < 10; i++) cur = doc.components.schemas[cur.$ref.split('/').pop()!] ?? {};
  return cur;
}

function typeName(doc: Parameters<typeof deref>[0], s: Schema): string {
  const d = deref(doc, s);
  if (d.enum) return d.enum.map((e) => JSON.stringify(e)).join(' | ');
  if (d.type === 'array') {
    const item = typeName(doc, d.items ?? {});
    // a list of alternatives reads `(number | null)[]`, never `number | null[]`
    return item.includes(' | ') ? `(${item})[]` : `${item}[]`;
  }
  if (Array.isArray(d.type)) return d.type.join(' | ');
  if (d.type) return d.type;
  const alts = d.oneOf ?? d.anyOf;
  if (alts) return alts.map((a) => typeName(doc, a)).join(' | ');
  return 'any';
}

function fields(doc: Parameters<typeof deref>[0], ref: Schema): StateField[] {
  const s = deref(doc, ref);
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {}).map(([name, p]) => {
    const d = deref(doc, p);
    const description = (p.description ?? d.description)?.replace(/\s+/g, ' ').trim();
    return {
      name,
      type: typeName(doc, p),
      required: required.has(name),
      since: String((p as Record<string, unknown>)['x-since'] ?? (d as Record<string, unknown>)['x-since'] ?? '1.0.0'),
      ...(description ? { description } : {}),
      ...(d.default !== undefined ? { default: d.default } : {}),
    };
  });
}

/** The states in the order of the spec. */
export function loadStateDocs(specDir: string = SPEC_DIR): StateDoc[] {
  const doc = JSON.parse(fs.readFileSync(path.join(specDir, 'generated', 'provider-states.json'), 'utf8'));
  const list = doc.paths['/_provider-states'].post['x-states'] as {
    name: string;
    description?: string;
    params: Schema;
    values: Schema;
  }[];
  return list.map((s) => ({
    name: s.name,
    description: (s.description ?? '').replace(/\s+/g, ' ').trim(),
    params: fields(doc, s.params),
    values: fields(doc, s.values),
  }));
}
