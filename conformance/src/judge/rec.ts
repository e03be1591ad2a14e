// REC-001, FILE-009: the envelope of a single read, GET /api/{domain}/{id} and GET /api/File/{id}
// (spec 4.2, 4.3). The suite asserts these findings on the reads of its envelope tests
// (conformance/suite/records.test.ts, files.test.ts) and the traffic rule single_read_envelope
// emits them for every recorded read (traffic/rules-columns.ts).
import { type DecodedExchange, type Finding, type JudgeEntry, isObject, show } from './finding.js';

export const SINGLE_READ_JUDGE: JudgeEntry = { name: 'judgeSingleRead', requirements: ['REC-001', 'FILE-009'] };

/**
 * A read by a positive integer ID answered 200: Record an object, Domain the path's domain (`File`
 * for a file) and Id the path's ID. Another status, or an ID that is no positive integer, is not
 * this rule's (no finding).
 */
export function judgeSingleRead(x: Pick<DecodedExchange, 'operationId' | 'pathParams' | 'status' | 'body'>): Finding[] {
  const file = x.operationId === 'getFile';
  const domain = file ? 'File' : x.pathParams.domain;
  const id = String(x.pathParams.id);
  if (x.status !== 200 || !/^[1-9]\d{0,14}$/.test(id)) return [];
  const j = isObject(x.body) ? x.body : {};
  const good = isObject(j.Record) && j.Domain === domain && j.Id === Number(id);
  const detail = good
    ? `Record, Domain ${domain}, Id ${id}`
    : `expected a Record object, Domain ${show(domain)} and Id ${id}, got Record ${show(j.Record)}, Domain ${show(j.Domain)}, Id ${show(j.Id)}`;
  return [{ requirement: file ? 'FILE-009' : 'REC-001', ok: good, detail }];
}
