import { describe, expect, it } from 'vitest';
import { loadOpenApi, OpenApiIndex } from '../src/spec/openapi.js';
import { GenericChecker } from '../src/suite-api/generic-checks/checker.js';
import { GENERIC_CHECKS } from '../src/suite-api/generic-checks/checks.js';
import { parseBody, type CheckedExchange } from '../src/suite-api/generic-checks/checked-exchange.js';
import { SchemaValidators } from '../src/suite-api/generic-checks/schema-validators.js';
import type { CheckResult } from '../src/suite-api/generic-checks/types.js';
import { loadCatalogue } from '../src/spec/catalogue.js';
import { defaultBindings, resolveBindings } from '../src/model/bindings.js';

const index = loadOpenApi(); // the real spec/generated/openapi.json
const checker = new GenericChecker(index);

const bindStatus = {
  ProposalID: 7,
  Status: 'NotBound',
  ErrorMessage: null,
  PolicyID: null,
  MemberID: null,
  PolicyNumber: null,
  MemberName: null,
  BoundDateUTC: null,
};
const req = (over: Partial<Parameters<GenericChecker['check']>[0]> = {}) => ({
  method: 'GET',
  url: 'http://x/api/Quotes/Proposals/7/BindStatus',
  path: '/api/Quotes/Proposals/7/BindStatus',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  bodyText: JSON.stringify(bindStatus),
  ...over,
});

describe('operation matching', () => {
  it('literal segments win over templated ones', () => {
    expect(index.match('GET', '/api/File/Query')?.operationId).toBe('queryFiles');
    expect(index.match('GET', '/api/Claim/Query')?.operationId).toBe('queryRecords');
    expect(index.match('GET', '/api/File/12')?.operationId).toBe('getFile');
    expect(index.match('GET', '/api/Claim/12')?.operationId).toBe('getRecord');
    expect(index.match('GET', '/api/Link/Query')?.operationId).toBe('queryLinks');
    expect(index.match('GET', '/api/Domains')?.operationId).toBe('listDomains');
    expect(index.match('GET', '/api/Claim/12/Files')?.operationId).toBe('listAttachedFiles');
    expect(index.match('POST', '/api/Link/Upsert')?.operationId).toBe('upsertLink');
  });

  it('decodes path segments and returns the path parameters', () => {
    const m = index.match('get', '/api/Custom.Inspection/5');
    expect(m).toMatchObject({ operationId: 'getRecord', pathParams: { domain: 'Custom.Inspection', id: '5' } });
    expect(index.match('DELETE', '/api/Quotes/Proposals/3/Schedules/ProposalLocation/9')?.operationId).toBe(
      'deleteSchedule',
    );
  });

  it('no match for unknown paths or methods', () => {
    expect(index.match('GET', '/health')).toBeUndefined();
    expect(index.match('DELETE', '/api/Domains')).toBeUndefined();
  });

  it('a literal path wins over a templated one wherever the document lists it', () => {
    // the templated path first, so that a first-match matcher would pick it
    const idx = new OpenApiIndex({
      paths: {
        '/api/{domain}/Query': { get: { operationId: 'queryRecords' } },
        '/api/{domain}/{id}': { get: { operationId: 'getRecord' } },
        '/api/Link/Query': { get: { operationId: 'queryLinks' } },
      },
    });
    expect(idx.match('GET', '/api/Link/Query')).toMatchObject({
      operationId: 'queryLinks',
      pathTemplate: '/api/Link/Query',
      pathParams: {},
    });
    expect(idx.match('GET', '/api/Claim/Query')?.operationId).toBe('queryRecords');
  });

  it('the method is part of the match: a path without the method does not answer for it', () => {
    const idx = new OpenApiIndex({
      paths: {
        '/api/Link/Upsert': { post: { operationId: 'upsertLink' } },
        '/api/{domain}/{id}': { get: { operationId: 'getRecord' }, delete: { operationId: 'deleteRecord' } },
      },
    });
    expect(idx.match('POST', '/api/Link/Upsert')).toMatchObject({ operationId: 'upsertLink', method: 'post' });
    // the literal path declares no GET: the templated path, which does, is the operation
    expect(idx.match('GET', '/api/Link/Upsert')).toMatchObject({
      operationId: 'getRecord',
      pathParams: { domain: 'Link', id: 'Upsert' },
    });
    expect(idx.match('delete', '/api/Claim/7')?.operationId).toBe('deleteRecord');
    expect(idx.match('PUT', '/api/Claim/7')).toBeUndefined();
    expect(idx.match('POST', '/api/Claim/7')).toBeUndefined();
  });

  it('ranks by position: an earlier literal beats a later one', () => {
    const idx = new OpenApiIndex({
      paths: {
        '/a/{x}/c': { get: { operationId: 'late' } },
        '/a/b/{y}': { get: { operationId: 'early' } },
      },
    });
    expect(idx.match('GET', '/a/b/c')?.operationId).toBe('early');
  });
});

describe('generic checks', () => {
  it('a valid documented response passes GEN-001 and GEN-002', () => {
    const r = checker.check(req());
    expect(r.violations).toEqual([]);
    expect(r.checked).toEqual(['GEN-001', 'GEN-002']);
    expect(r.operation?.operationId).toBe('getBindStatus');
  });

  it('an invalid body of a documented core status is a GEN-002 violation, named by the requirement that states the constraint', () => {
    const r = checker.check(req({ bodyText: JSON.stringify({ ...bindStatus, Status: 'Maybe', PolicyID: 'x' }) }));
    expect(r.violations.map((v) => [v.code, v.requirements])).toEqual([['GEN-002', ['BIND-001']]]);
    expect(r.violations[0].message).toMatch(
      /^\[BIND-001, the documented shape\] GET .*BindStatus → 200 \(getBindStatus\)/,
    );
    expect(r.violations[0].message).toMatch(/\/Status/);
  });

  it('a body that is not JSON is a GEN-001 violation', () => {
    const r = checker.check(req({ bodyText: '<html>oops</html>', contentType: 'text/html' }));
    expect(r.violations.map((v) => v.code)).toContain('GEN-001');
    expect(r.violations[0].message).toMatch(/^\[GEN-001\]/);
  });

  it('a JSON body with a non-JSON content type is a GEN-001 violation', () => {
    const r = checker.check(req({ contentType: 'text/plain' }));
    expect(r.violations.map((v) => v.code)).toEqual(['GEN-001']);
  });

  it('an empty body is fine for GEN-001 (e.g. QueueBindQuote)', () => {
    const r = checker.check(
      req({
        method: 'POST',
        path: '/api/Quotes/Proposals/7/QueueBindQuote',
        url: 'http://x/api/Quotes/Proposals/7/QueueBindQuote',
        bodyText: '',
        contentType: null,
      }),
    );
    expect(r.violations).toEqual([]);
  });

  it('undocumented statuses are findings, not violations', () => {
    const r = checker.check(req({ status: 418, bodyText: '{"x":1}' }));
    expect(r.violations).toEqual([]);
    expect(r.findings.map((f) => f.kind)).toEqual(['undocumented-status']);
  });

  it('implementation-defined responses that do not match are findings, not violations', () => {
    const r = checker.check(
      req({ status: 404, contentType: 'application/problem+json', bodyText: '{"unexpected":true}' }),
    );
    expect(r.violations).toEqual([]);
    expect(r.checked).toEqual(['GEN-001']);
  });

  it('GEN-002 judges successful responses only: a documented 500 is left to the test of the requirement that quotes it', () => {
    const member = (bodyText: string) =>
      checker.check(
        req({
          method: 'POST',
          path: '/api/Quotes/Proposals/7/CreateMember',
          url: 'http://x/api/Quotes/Proposals/7/CreateMember',
          status: 500,
          bodyText,
        }),
      );
    const ok = member('"MemberID is already assigned to Proposal record."');
    expect(ok.violations).toEqual([]);
    expect(ok.checked).not.toContain('GEN-002');
    // another body is no GEN-002 violation either (MEM-005's test judges the JSON string), a finding
    const other = member('{"Message":"MemberID is already assigned"}');
    expect(other.violations).toEqual([]);
    expect(other.findings.map((f) => f.kind)).toEqual(['implementation-defined-schema']);
  });

  it('a server error described only in words ("object reference not set") may carry any body', () => {
    for (const bodyText of ['{"error":"Object reference not set"}', '']) {
      const r = checker.check(
        req({
          path: '/api/File/12',
          url: 'http://x/api/File/12?columns=FileID,DownloadURL',
          status: 500,
          bodyText,
          contentType: bodyText ? 'application/json' : null,
        }),
      );
      expect(r.violations).toEqual([]);
    }
  });

  it('a successful response is still judged: a 200 of the wrong shape is a GEN-002 violation', () => {
    const r = checker.check(req({ bodyText: '{"Status":3}' }));
    expect(r.violations.map((v) => v.code)).toEqual(['GEN-002']);
  });

  it('a base path in front of /api is handled by the caller (path is relative)', () => {
    const r = checker.check(req({ url: 'http://x/service/api/Quotes/Proposals/7/BindStatus' }));
    expect(r.operation?.operationId).toBe('getBindStatus');
  });
});

describe('the core view (x-implementation-defined properties relaxed in core)', () => {
  const fullChecker = new GenericChecker(index, 'full');
  const file = {
    FileID: 12,
    FileName: 'a.pdf',
    EntryDate: '2024-03-01T09:15:22.123',
    EntryUserID: 'u-17', // a string user ID: the spec says "identifier of a user", type not shown
    ModifiedDate: '2024-03-01T09:15:22.123Z', // a zone designator: the format is not shown
    DocumentStatusID: 'draft',
    UnlinkedAccessMode: 'private',
  };
  const fileReq = (body: unknown) =>
    req({ path: '/api/File/12', url: 'http://x/api/File/12', bodyText: JSON.stringify(body) });

  it('core: other types and formats of marked columns are findings, never violations', () => {
    const r = checker.check(fileReq({ Record: file, Domain: 'File', Id: 12 }));
    expect(r.violations).toEqual([]);
    expect(r.checked).toContain('GEN-002');
    expect(r.findings.map((f) => f.kind)).toEqual(['implementation-defined-property']);
    for (const col of ['EntryUserID', 'ModifiedDate', 'DocumentStatusID', 'UnlinkedAccessMode']) {
      expect(r.findings[0].message).toContain(`/Record/${col}`);
    }
  });

  it('full (implementation-defined profile): the same body is an implementation-defined GEN-002 violation', () => {
    const r = fullChecker.check(fileReq({ Record: file, Domain: 'File', Id: 12 }));
    expect(r.violations.map((v) => [v.code, v.level])).toEqual([['GEN-002', 'implementation-defined']]);
    // a body the core view refuses is a core violation in either view
    const bad = fullChecker.check(fileReq({ Record: file, Id: 12 }));
    expect(bad.violations.map((v) => [v.code, v.level])).toEqual([['GEN-002', undefined]]);
  });

  it('core still checks what the spec documents (EntryDate without a zone, an integer FileID)', () => {
    const r = checker.check(
      fileReq({ Record: { ...file, EntryDate: '2024-03-01T09:15:22Z', FileID: 'x' }, Domain: 'File', Id: 12 }),
    );
    expect(r.violations.map((v) => v.code)).toEqual(['GEN-002']);
    expect(r.violations[0].message).toContain('/Record/EntryDate');
    expect(r.violations[0].message).toContain('/Record/FileID');
  });

  it('a string LinkID, a string relationship column and a missing TotalCount pass core', () => {
    const links = checker.check(
      req({
        path: '/api/Link/Query',
        url: 'http://x/api/Link/Query?parentDomain=Claim',
        bodyText: JSON.stringify({ List: [{ ParentID: 1, ChildID: 2, LinkID: 'L-9', ContactTypeID: 'Broker' }] }),
      }),
    );
    expect(links.violations).toEqual([]);
    const list = checker.check(
      req({ path: '/api/Claim/Query', url: 'http://x/api/Claim/Query', bodyText: '{"List":[],"TotalCount":"7"}' }),
    );
    expect(list.violations).toEqual([]);
    expect(list.findings.map((f) => f.kind)).toEqual(['implementation-defined-property']);
  });

  it("a choice declared through a binding is never a finding; findings speak of the reference's choice", () => {
    const domains = [{ DomainID: 1, Name: 'Claim', DisplayNameSingular: 'Claim', DisplayNamePlural: 'Claims' }];
    const listDomains = (bodyText: string, bindings = defaultBindings) =>
      checker.check(req({ path: '/api/Domains', url: 'http://x/api/Domains', bodyText, bindings }));
    // a bare array without the binding: the reference's envelope differs, a finding in its words
    const bare = listDomains(JSON.stringify(domains));
    expect(bare.violations).toEqual([]);
    expect(bare.findings.map((f) => f.kind)).toEqual(['implementation-defined-schema']);
    expect(bare.findings[0].message).toContain(
      "differs from the reference's choice for response 200: (root) must be object",
    );
    expect(bare.findings[0].message).not.toContain('documented schema');
    // declared: `domainsListField: ""` (the body is the array), or a nested envelope
    const bound = resolveBindings({ domainsListField: '' });
    expect(listDomains(JSON.stringify(domains), bound).findings).toEqual([]);
    const nested = resolveBindings({ domainsListField: 'data.items' });
    expect(listDomains(JSON.stringify({ data: { items: domains } }), nested).findings).toEqual([]);
    // the total count under the vendor's name, or in a header
    const query = (bodyText: string, bindings: typeof defaultBindings, headers: Record<string, string> = {}) =>
      checker.check(req({ path: '/api/Claim/Query', url: 'http://x/api/Claim/Query', bodyText, bindings, headers }));
    const strict = (body: unknown) => JSON.stringify(body);
    expect(
      query(strict({ List: [], meta: { total: 7 } }), resolveBindings({ totalCountField: 'meta.total' })).findings,
    ).toEqual([]);
    expect(
      query(strict({ List: [] }), resolveBindings({ totalCountHeader: 'X-Total-Count' }), { 'x-total-count': '7' })
        .findings,
    ).toEqual([]);
    // what the binding does not declare is still a finding: a count that is no integer
    const odd = query(
      strict({ List: [], meta: { total: 'seven' } }),
      resolveBindings({ totalCountField: 'meta.total' }),
    );
    expect(odd.findings.map((f) => f.kind)).toEqual(['implementation-defined-property']);
    expect(odd.findings[0].message).toMatch(
      /reference's choice .*after the bindings totalCountField.*\/TotalCount must be integer/,
    );
  });

  it('schema violation messages list every error, none truncated', () => {
    const bad = Object.fromEntries(Object.keys(bindStatus).map((k) => [k, { nested: true }]));
    const r = checker.check(req({ bodyText: JSON.stringify(bad) }));
    const msg = r.violations[0].message;
    for (const k of Object.keys(bindStatus)) expect(msg).toContain(`/${k}`);
    expect(msg).not.toMatch(/more$/);
  });
});

describe('the list of generic checks', () => {
  // exchanges that make every check check and every check fail, each in its own way
  const exchanges = [
    req(),
    req({ bodyText: '<html>oops</html>', contentType: 'text/html' }),
    req({ contentType: 'text/plain' }),
    req({ bodyText: JSON.stringify({ ...bindStatus, Status: 'Maybe' }) }),
    req({ bodyText: '' }),
    req({ status: 418, bodyText: '{"x":1}' }),
    req({ path: '/api/Nowhere/At/All/x', url: 'http://x/api/Nowhere/At/All/x', bodyText: 'not json' }),
  ];

  it('names every GEN requirement the checker enforces, each once, with a name and a description', () => {
    const enforced = new Set(
      exchanges.flatMap((x) => {
        const r = checker.check(x);
        return [...r.checked, ...r.violations.map((v) => v.code)];
      }),
    );
    const listed = GENERIC_CHECKS.map((c) => c.requirement);
    expect(new Set(listed).size, 'one check per requirement').toBe(listed.length);
    expect([...enforced].sort()).toEqual([...listed].sort());
    expect(listed).toEqual(['GEN-001', 'GEN-002']);
    const names = GENERIC_CHECKS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of GENERIC_CHECKS) {
      expect(c.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(c.description.length).toBeGreaterThan(20);
    }
  });

  it('lists only core GEN requirements of the catalogue', () => {
    const cat = loadCatalogue();
    for (const c of GENERIC_CHECKS) {
      const r = cat.byId.get(c.requirement);
      expect(r, c.requirement).toBeDefined();
      expect(r?.level).toBe('core');
      expect(r?.retired ?? false).toBe(false);
    }
  });

  it('each check, run alone, checks and reports its own requirement only', () => {
    const validators = new SchemaValidators(index.doc);
    const exchangeOf = (input: (typeof exchanges)[number]): CheckedExchange => {
      const operation = index.match(input.method, input.path);
      return {
        input,
        operation,
        response: operation ? index.response(operation, input.status) : undefined,
        where: `${input.method} ${input.url} → ${input.status}`,
        body: parseBody(input.bodyText),
        view: 'core',
        validator: (doc, pointer) => validators.get(doc, pointer),
      };
    };
    for (const c of GENERIC_CHECKS) {
      const codes = new Set<string>();
      for (const x of exchanges) {
        const out: CheckResult = { checked: [], violations: [], findings: [] };
        c.run(exchangeOf(x), out);
        for (const code of [...out.checked, ...out.violations.map((v) => v.code)]) codes.add(code);
        // a message names what it is counted against: the check's requirement, or the requirements
        // that state the broken constraint (types.ts `requirements`)
        for (const v of out.violations)
          expect(
            v.message.startsWith(`[${v.requirements?.length ? v.requirements.join(', ') : c.requirement}`),
            v.message,
          ).toBe(true);
      }
      expect([...codes], c.name).toEqual([c.requirement]);
    }
  });
});
