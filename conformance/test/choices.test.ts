// "Choices exercised" is read from the exchanges a run recorded (report/choices.ts): per kind of
// refusal the reference documents, where the run met it and how it was answered, and where it never
// did; refusals with statuses the reference does not document; success answers by shape.
import { describe, expect, it } from 'vitest';
import { answerShape, choicesExercised, mergeChoices } from '../src/report/choices.js';
import { loadOpenApi } from '../src/spec/openapi.js';
import type { Exchange } from '../src/suite-api/client.js';

const json = 'application/json; charset=utf-8';
const ex = (operationId: string, status: number, body: unknown, type = json): Exchange => ({
  method: 'GET',
  url: 'http://x/',
  requestHeaders: {},
  status,
  responseHeaders: { 'content-type': type },
  responseBody: typeof body === 'string' ? body : JSON.stringify(body),
  ms: 1,
  operationId,
});

describe('choices exercised', () => {
  const index = loadOpenApi();

  it('names each answer by content type and top-level shape', () => {
    expect(answerShape(ex('q', 400, { title: 't', code: 'c' }, 'application/problem+json'))).toBe(
      'application/problem+json {code,title}',
    );
    expect(answerShape(ex('q', 200, [1]))).toBe('application/json array');
    expect(answerShape(ex('q', 500, 'oops', 'text/plain'))).toBe('text/plain (not JSON)');
    expect(answerShape(ex('q', 400, ''))).toBe('application/json (empty)');
  });

  it('per kind of refusal: met (with the answers) and never exercised; other statuses; success shapes', () => {
    const c = choicesExercised(
      [
        ex('queryRecords', 404, { error: 'unknown domain' }),
        ex('queryRecords', 404, { error: 'unknown domain' }),
        ex('queryFiles', 422, { error: 'Contents cannot be queried' }),
        ex('listDomains', 200, [{ DomainID: 1 }]),
        ex('listDomains', 200, { List: [] }),
      ],
      index,
    );
    const unknown = c.refusals.find((k) => k.kind === 'UnknownDomain')!;
    expect(unknown.status).toBe(404);
    expect(unknown.met).toEqual([
      { operationId: 'queryRecords', count: 2, answers: [{ shape: 'application/json {error}', count: 2 }] },
    ]);
    // a documented refusal no request got is never exercised there
    const badQuery = c.refusals.find((k) => k.kind === 'BadQuery')!;
    expect(badQuery.met).toEqual([]);
    expect(badQuery.neverExercised).toEqual(expect.arrayContaining(['queryFiles', 'queryRecords']));
    // a status the reference does not document for the operation: the implementation's own choice
    expect(c.otherRefusals).toEqual([
      { operationId: 'queryFiles', status: 422, count: 1, answers: [{ shape: 'application/json {error}', count: 1 }] },
    ]);
    expect(c.successShapes).toEqual([
      {
        operationId: 'listDomains',
        status: 200,
        count: 2,
        answers: [
          { shape: 'application/json array', count: 1 },
          { shape: 'application/json {List}', count: 1 },
        ],
      },
    ]);
  });

  it('merged shards: met where any shard met it, never exercised where none did, counts added', () => {
    const a = choicesExercised([ex('queryRecords', 404, { e: 1 })], index);
    const b = choicesExercised([ex('queryRecords', 404, { e: 1 }), ex('getRecord', 404, { e: 1 })], index);
    const m = mergeChoices([a, b]);
    expect(m).toEqual(
      choicesExercised(
        [ex('queryRecords', 404, { e: 1 }), ex('queryRecords', 404, { e: 1 }), ex('getRecord', 404, { e: 1 })],
        index,
      ),
    );
  });

  it('orders: listings asked without sort, by the order of their first numeric ID column; sorted ones and short ones not counted', () => {
    const at = (url: string, e: Exchange): Exchange => ({ ...e, url });
    const c = choicesExercised(
      [
        ex('queryLinks', 200, {
          List: [
            { LinkID: 9, ParentID: 1 },
            { LinkID: 4, ParentID: 1 },
          ],
        }),
        ex('queryLinks', 200, { List: [{ LinkID: 2 }, { LinkID: 7 }, { LinkID: 8 }] }),
        ex('listDomains', 200, [{ DomainID: 3 }, { DomainID: 1 }, { DomainID: 2 }]),
        ex('listDomains', 200, { Domains: [{ DomainID: 1 }, { DomainID: 2 }] }),
        // one row, equal IDs, a sort asked, no numeric ID: not counted
        ex('queryFiles', 200, { List: [{ FileID: 1 }] }),
        ex('queryFiles', 200, { List: [{ FileID: 1 }, { FileID: 1 }] }),
        at(
          'http://x/api/File/Query?sort=FileID%20desc',
          ex('queryFiles', 200, { List: [{ FileID: 2 }, { FileID: 1 }] }),
        ),
        ex('queryRecords', 200, { List: [{ Name: 'a' }, { Name: 'b' }] }),
      ],
      index,
    );
    expect(c.orders).toEqual([
      { operationId: 'listDomains', keys: ['DomainID'], ascending: 1, descending: 0, other: 1 },
      { operationId: 'queryLinks', keys: ['LinkID'], ascending: 1, descending: 1, other: 0 },
    ]);
    const merged = mergeChoices([c, c]);
    expect(merged.orders?.find((o) => o.operationId === 'queryLinks')).toMatchObject({ ascending: 2, descending: 2 });
  });
});
