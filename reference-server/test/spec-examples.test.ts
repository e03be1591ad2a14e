// The spec as documentation is tested: every example in spec/openapi.yaml is valid for the place
// it sits (parameter, request body, response: schema-valid), and every parameter and request body
// example is sent to the reference server on each operation that uses it and is accepted there
// (not refused with 400). A filter example written for Claims and reused on the File query, say,
// fails here.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from './app-core.harness.js';

type Json = Record<string, any>;
const doc: Json = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../../spec/generated/openapi.json'), 'utf8'),
);
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema(doc, 'openapi');

const deref = (o: Json): Json => {
  let cur = o;
  for (let i = 0; cur?.$ref && i < 10; i++)
    cur = cur.$ref
      .slice(2)
      .split('/')
      .reduce((a: Json, k: string) => a[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return cur;
};
const pointer = (parts: string[]) =>
  `openapi#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** Example values of a parameter, media type or the like: `example` and `examples.*.value`. */
function examplesOf(o: Json): { name: string; value: unknown }[] {
  const out: { name: string; value: unknown }[] = [];
  if (o.example !== undefined) out.push({ name: 'example', value: o.example });
  for (const [k, v] of Object.entries((o.examples ?? {}) as Json)) out.push({ name: k, value: deref(v).value });
  return out;
}

interface Op {
  method: string;
  template: string;
  op: Json;
  params: { p: Json; where: string[] }[];
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];
const ops: Op[] = [];
for (const [template, item] of Object.entries(doc.paths as Json)) {
  for (const method of METHODS) {
    const op = (item as Json)[method];
    if (!op) continue;
    const params = [...((item as Json).parameters ?? []), ...(op.parameters ?? [])].map((p: Json, i: number) => ({
      p: deref(p),
      where: p.$ref ? p.$ref.slice(2).split('/') : ['paths', template, method, 'parameters', String(i)],
    }));
    ops.push({ method, template, op, params });
  }
}

interface ExampleCase {
  label: string;
  value: unknown;
  schemaRef: string;
}

function schemaCases(): ExampleCase[] {
  const cases: ExampleCase[] = [];
  const seenParams = new Set<string>();
  for (const { method, template, op, params } of ops) {
    for (const { p, where } of params) {
      const key = where.join('/');
      if (seenParams.has(key)) continue;
      seenParams.add(key);
      for (const e of examplesOf(p))
        cases.push({
          label: `parameter ${p.name} (${key}) ${e.name}`,
          value: e.value,
          schemaRef: pointer([...where, 'schema']),
        });
    }
    const body = op.requestBody ? deref(op.requestBody) : undefined;
    for (const [media, m] of Object.entries((body?.content ?? {}) as Json))
      for (const e of examplesOf(m as Json))
        cases.push({
          label: `${method.toUpperCase()} ${template} request body ${e.name}`,
          value: e.value,
          schemaRef: pointer(['paths', template, method, 'requestBody', 'content', media, 'schema']),
        });
    for (const [status, r] of Object.entries((op.responses ?? {}) as Json)) {
      const res = deref(r as Json);
      const base = (r as Json).$ref
        ? (r as Json).$ref.slice(2).split('/')
        : ['paths', template, method, 'responses', status];
      for (const [media, m] of Object.entries((res.content ?? {}) as Json))
        for (const e of examplesOf(m as Json))
          cases.push({
            label: `${method.toUpperCase()} ${template} ${status} ${media} ${e.name}`,
            value: e.value,
            schemaRef: pointer([...base, 'content', media, 'schema']),
          });
    }
  }
  return cases;
}

describe('examples of spec/openapi.yaml', () => {
  const cases = schemaCases();

  it('there are examples to check (parameters, request bodies, responses)', () => {
    expect(cases.length).toBeGreaterThan(60);
  });

  it.each(cases.map((c) => [c.label, c] as const))('%s is valid for its schema', (_label, c) => {
    const validate = ajv.getSchema(c.schemaRef) ?? ajv.compile({ $ref: c.schemaRef });
    const ok = validate(c.value);
    expect(ok, `${JSON.stringify(c.value).slice(0, 200)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  });

  describe('sent to the reference server', () => {
    let h: Harness;
    beforeAll(() => {
      h = harness();
    });
    afterAll(() => h.close());

    /** The operation's URL with every path parameter set to its (first) example. */
    const urlOf = (o: Op) =>
      o.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const p = o.params.find((x) => x.p.name === name && x.p.in === 'path');
        const ex = p ? examplesOf(p.p)[0] : undefined;
        if (!ex) throw new Error(`${o.template}: path parameter ${name} has no example`);
        return encodeURIComponent(String(ex.value));
      });

    const sendCases: [string, Op, Record<string, string>, unknown][] = [];
    for (const o of ops) {
      if (o.template.startsWith('/Authentication')) continue; // credentials of a demo account
      const body = o.op.requestBody ? deref(o.op.requestBody) : undefined;
      const bodies = Object.values((body?.content ?? {}) as Json).flatMap((m) => examplesOf(m as Json));
      const firstBody = bodies[0]?.value;
      // Parameters that only make sense together: a side of the link query is named by its domain,
      // and a record key goes with the field it matches. Their examples are sent alongside.
      const example = (name: string) => {
        const p = o.params.find((x) => x.p.name === name && x.p.in === 'query');
        const e = p ? examplesOf(p.p)[0] : undefined;
        return e ? { [name]: String(e.value) } : {};
      };
      const companions = (name: string): Record<string, string> => ({
        ...example('parentDomain'),
        ...example('childDomain'),
        ...(/RecordKey$/.test(name) ? example(name.replace(/Key$/, 'MatchField')) : {}),
        ...(/RecordMatchField$/.test(name) ? example(name.replace(/MatchField$/, 'Key')) : {}),
      });
      for (const { p } of o.params)
        for (const e of examplesOf(p)) {
          const query = p.in === 'query' ? { ...companions(p.name), [p.name]: String(e.value) } : {};
          sendCases.push([
            `${o.method.toUpperCase()} ${o.template} ${p.in} ${p.name}=${JSON.stringify(e.value)}`,
            o,
            query,
            firstBody,
          ]);
        }
      for (const e of bodies)
        sendCases.push([`${o.method.toUpperCase()} ${o.template} body ${e.name}`, o, {}, e.value]);
    }

    it.each(sendCases)('%s is accepted (not 400)', async (_label, o, query, body) => {
      const qs = new URLSearchParams(query).toString();
      const r = await h.call(
        o.method.toUpperCase(),
        `${urlOf(o)}${qs ? `?${qs}` : ''}`,
        body === undefined ? {} : { body },
      );
      expect(r.status, r.text.slice(0, 300)).not.toBe(400);
      expect(r.status, r.text.slice(0, 300)).toBeLessThan(500);
    });
  });
});
