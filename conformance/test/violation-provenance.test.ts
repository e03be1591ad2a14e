// Which requirements a schema violation breaks (generic-checks/violation-provenance.ts): the
// provenance of the schema node that refused the body, from the real document's validators. A test
// of one of them fails on the violation; any other test that meets it is blocked by it (dsl.ts).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SchemaValidators } from '../src/suite-api/generic-checks/schema-validators.js';
import { violatedRequirements } from '../src/suite-api/generic-checks/violation-provenance.js';
import { ROOT } from '../../spec/paths.js';

const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'spec/generated/openapi.json'), 'utf8'));
const validators = new SchemaValidators(doc);
const response = (p: string) => `/paths/${p.replace(/\//g, '~1')}/get/responses/200/content/application~1json/schema`;

function broken(pathName: string, body: unknown): string[] {
  const pointer = response(pathName);
  const v = validators.get('core', pointer);
  expect(v(body), JSON.stringify(body)).toBe(false);
  return violatedRequirements(pointer, v.errors);
}

describe('violatedRequirements', () => {
  it('an ID of a link row sent as a string breaks the link row’s requirement', () => {
    const row = { ParentDomainID: '1', ParentID: 2, ChildDomainID: 2, ChildID: 3 };
    expect(broken('/api/Link/Query', { List: [row] })).toEqual(['LINK-001']);
  });

  it('a file column of the wrong type breaks the requirement of that column, not the others', () => {
    expect(broken('/api/File/Query', { List: [{ FileID: 1, MimeType: 'png', IsUnlinked: 'no' }] })).toEqual([
      'FILE-003',
      'FILE-006',
    ]);
  });

  it('a missing required member is the member’s own node (its provenance, all of it)', () => {
    expect(broken('/api/File/Query', {})).toEqual(['FILE-008', 'QRY-004']);
    expect(broken('/api/Link/Query', {})).toEqual(['LINK-011']);
  });

  it('an allOf that narrows a shared property: the narrowing member names what broke', () => {
    const del = (body: unknown) => {
      const pointer = `/paths/${'/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/{scheduleId}'.replace(/\//g, '~1')}/delete/responses/200/content/application~1json/schema`;
      const v = validators.get('core', pointer);
      expect(v(body)).toBe(false);
      return violatedRequirements(pointer, v.errors);
    };
    // the single delete's OrderNumber is null (SCHED-004), not an index (SCHED-003)
    expect(del({ IsSuccessful: true, RecordID: 1, OrderNumber: 0, Message: 'x', Warnings: null })).toEqual([
      'SCHED-004',
    ]);
  });

  it('a nullable timestamp that is neither: the timestamp’s requirement, not every alternative’s', () => {
    const bound = {
      ProposalID: 1,
      Status: 'Bound',
      ErrorMessage: null,
      PolicyID: 1,
      MemberID: 1,
      PolicyNumber: 'P',
      MemberName: 'M',
      BoundDateUTC: '2024-03-05T14:02:11',
    };
    expect(broken('/api/Quotes/Proposals/{proposalId}/BindStatus', bound)).toEqual(['BIND-005']);
    // a number is no timestamp either: still the timestamp's requirement
    expect(broken('/api/Quotes/Proposals/{proposalId}/BindStatus', { ...bound, BoundDateUTC: 5 })).toEqual([
      'BIND-005',
    ]);
  });

  it('no errors, no requirements; a path outside the document names none', () => {
    expect(violatedRequirements(response('/api/File/Query'), undefined)).toEqual([]);
    expect(
      violatedRequirements('/paths/~1nowhere', [
        { instancePath: '/x', schemaPath: '#/type', keyword: 'type', params: {} },
      ]),
    ).toEqual([]);
  });
});
