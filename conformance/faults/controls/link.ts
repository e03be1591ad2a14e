// Controls of the link endpoints (LINK): body and parameter names, the relationship column, LinkID,
// the answers of Upsert and Remove, the order of Link/Query, and their error answers.
import type { Control } from '../fault.js';
import {
  bodyJson,
  cloneRequest,
  formatColumns,
  isOk,
  keysOf,
  parseColumns,
  problem,
  withRequestJson,
  withResponseJson,
} from '../exchange.js';
import { operationOf } from '../operations.js';
import { chain, noContent, only, onSuccess, recode, renameBodyKeys, renameQueryParams } from './util.js';
import { defaultBindings } from '../../src/model/bindings.js';
import { linkByRelationship } from './link-by-relationship.js';

const UPSERT =
  'Section 4.4: "POST /api/Link/Upsert: creates a link or updates an existing one. Body fields for the relationship and the child side, and the response: not shown."';

const REMOVE = 'Section 4.4: "POST /api/Link/Remove: deletes an existing link. Body and response: not shown."';

/** The columns of the Link record the spec documents (section 2.3). */
const DOCUMENTED_LINK_COLUMNS = new Set(['ParentDomainID', 'ParentID', 'ChildDomainID', 'ChildID']);

/** Binding key → the reference's body name (the suite's default binding): what the proxy renames to. */
const CAMEL: Record<string, string> = { ...defaultBindings.link };

/** Binding key → dotted body path of the nested link body. */
const NESTED: Record<string, string> = {
  parentDomain: 'Parent.Domain',
  parentRecordId: 'Parent.RecordID',
  parentRecordKey: 'Parent.RecordKey',
  parentRecordMatchField: 'Parent.MatchField',
  childDomain: 'Child.Domain',
  childRecordId: 'Child.RecordID',
  childRecordKey: 'Child.RecordKey',
  childRecordMatchField: 'Child.MatchField',
  relationship: 'Relationship',
  newRelationship: 'NewRelationship',
};

export const LINK_CONTROLS: Control[] = [
  // Error answers: other statuses and bodies where the specification does not show them.
  {
    name: 'link-bad-request-422',
    area: 'LINK',
    description:
      'A refused link request (non-linkable child, bad match field, unknown relationship, a match key that matches several records) is answered 422.',
    allowedBy:
      'Section 4.4: "POST /api/Link/Upsert: ... Body fields for the relationship and the child side, and the response: not shown."',
    markers: ['components/responses/LinkBadRequest', 'components/responses/LinkConflict'],
    select: ['LINK-', 'AUTH-'],
    rewrite: recode(['MalformedRequest', 'Conflict'], 422, ['upsertLink', 'removeLink', 'queryLinks']),
  },
  // The link endpoints: body and parameter names, the relationship column, LinkID, the answers of
  // Upsert and Remove, and the order of Link/Query.
  {
    name: 'link-body-camel-case',
    area: 'LINK',
    description:
      'Link/Upsert and Link/Remove take camelCase body fields (`parentDomain`, `childRecordId`, ...); PascalCase fields are ignored.',
    allowedBy: `${UPSERT} ${REMOVE} Section 4.4: "Child-side names for these parameters: not shown."`,
    markers: [
      'components/schemas/LinkIdentification',
      'components/schemas/LinkUpsertRequest',
      'components/schemas/LinkRemoveRequest',
      'paths/~1api~1Link~1Upsert/post/requestBody',
      'paths/~1api~1Link~1Remove/post/requestBody',
    ],
    select: ['LINK-', 'AUTH-', 'FILE-006', 'FILE-007'],
    config: { bindings: { link: Object.fromEntries(Object.keys(CAMEL).map((k) => [k, k])) } },
    rewrite: renameBodyKeys(['upsertLink', 'removeLink'], CAMEL),
  },
  {
    name: 'link-body-nested',
    area: 'LINK',
    description:
      'Link/Upsert and Link/Remove take nested bodies: `{"Parent": {"Domain", "RecordID", "RecordKey", "MatchField"}, "Child": {...}, "Relationship"}`.',
    allowedBy: `${UPSERT} ${REMOVE}`,
    markers: [
      'components/schemas/LinkIdentification',
      'components/schemas/LinkUpsertRequest',
      'components/schemas/LinkRemoveRequest',
      'paths/~1api~1Link~1Upsert/post/requestBody',
      'paths/~1api~1Link~1Remove/post/requestBody',
    ],
    select: ['LINK-', 'AUTH-', 'FILE-006', 'FILE-007'],
    config: { bindings: { link: NESTED } },
    rewrite: async (req, _ctx, next) => {
      const op = operationOf(req).op;
      const b = bodyJson(req);
      if ((op !== 'upsertLink' && op !== 'removeLink') || !b || typeof b !== 'object' || Array.isArray(b))
        return next(req);
      const flat: Record<string, unknown> = {};
      for (const [key, dotted] of Object.entries(NESTED)) {
        const v = dotted.split('.').reduce<any>((o, k) => (o && typeof o === 'object' ? o[k] : undefined), b);
        if (v !== undefined) flat[CAMEL[key]!] = v;
      }
      return next(withRequestJson(req, flat));
    },
  },
  {
    name: 'link-query-params-renamed',
    area: 'LINK',
    description:
      'Link/Query takes `parentId`, `parentKey`, `parentMatchField`, `childKey`, `childMatchField` and `contactType` for the undocumented filters.',
    allowedBy:
      'Section 4.4: "Child-side names for these parameters: not shown." (Link/Query documents only childDomain, childRecordID, parentDomain and columns)',
    markers: [
      'components/parameters/LinkParentRecordID',
      'components/parameters/LinkParentRecordKey',
      'components/parameters/LinkParentRecordMatchField',
      'components/parameters/LinkChildRecordKey',
      'components/parameters/LinkChildRecordMatchField',
      'components/parameters/LinkRelationship',
    ],
    select: ['LINK-'],
    config: {
      bindings: {
        linkQuery: {
          parentRecordId: 'parentId',
          parentRecordKey: 'parentKey',
          parentRecordMatchField: 'parentMatchField',
          childRecordKey: 'childKey',
          childRecordMatchField: 'childMatchField',
          relationship: 'contactType',
        },
      },
    },
    rewrite: renameQueryParams(['queryLinks'], {
      parentId: 'parentRecordID',
      parentKey: 'parentRecordKey',
      parentMatchField: 'parentRecordMatchField',
      childKey: 'childRecordKey',
      childMatchField: 'childRecordMatchField',
      contactType: 'relationship',
    }),
  },
  {
    name: 'relationship-column-as-code',
    area: 'LINK',
    description:
      'The relationship column of a link row is `Relationship`, a string code (`"CT3"`); there is no ContactTypeID column.',
    allowedBy: 'Section 2.3 item 4: "Name and type of the relationship column in the Link record: not shown."',
    markers: ['components/schemas/LinkRecord/properties/ContactTypeID'],
    select: ['LINK-', 'AUTH-'],
    config: { bindings: { linkColumns: { relationship: 'Relationship' } } },
    rewrite: async (req, _ctx, next) => {
      if (operationOf(req).op !== 'queryLinks') return next(req);
      const cols = parseColumns(req.query.get('columns'));
      if (!cols) return next(req);
      if (cols.some((c) => c.field === 'ContactTypeID'))
        return problem(400, 'UnknownColumn', 'Unknown column ContactTypeID.');
      const r = cloneRequest(req);
      r.query.set(
        'columns',
        formatColumns(cols.map((c) => (c.field === 'Relationship' ? { field: 'ContactTypeID', key: c.key } : c))),
      );
      const res = await next(r);
      const body = bodyJson(res);
      if (!isOk(res) || !Array.isArray(body?.List)) return res;
      const keys = keysOf(req, 'Relationship');
      for (const row of body.List)
        for (const k of keys) if (row && row[k] !== null && row[k] !== undefined) row[k] = `CT${row[k]}`;
      return withResponseJson(res, body);
    },
  },
  {
    name: 'link-query-documented-columns-only',
    area: 'LINK',
    description:
      'Link/Query refuses (400) a `columns` list naming any column but the four documented ones: no relationship column, no LinkID.',
    allowedBy: `Section 2.3: the Link record documents ParentDomainID, ParentID, ChildDomainID and ChildID; item 4: "Name and type of the relationship column in the Link record: not shown."`,
    markers: [
      'components/schemas/LinkRecord/properties/ContactTypeID',
      'components/schemas/LinkRecord/properties/LinkID',
    ],
    select: ['LINK-', 'AUTH-', 'COL-', 'FILE-'],
    judge: 'undocumented-part',
    rewrite: async (req, _ctx, next) => {
      if (operationOf(req).op !== 'queryLinks') return next(req);
      const other = (parseColumns(req.query.get('columns')) ?? []).filter((c) => !DOCUMENTED_LINK_COLUMNS.has(c.field));
      if (other.length === 0) return next(req);
      return problem(400, 'UnknownColumn', `Unknown column ${other.map((c) => c.field).join(', ')}.`);
    },
  },
  {
    name: 'link-query-undocumented-columns-left-out',
    area: 'LINK',
    description:
      'Link/Query answers a `columns` list naming undocumented columns (the relationship column, LinkID) with rows that leave those columns out.',
    allowedBy: `Section 2.3 item 4: "Name and type of the relationship column in the Link record: not shown."`,
    markers: [
      'components/schemas/LinkRecord/properties/ContactTypeID',
      'components/schemas/LinkRecord/properties/LinkID',
    ],
    select: ['LINK-', 'AUTH-', 'COL-', 'FILE-'],
    judge: 'undocumented-part',
    rewrite: onSuccess(['queryLinks'], (res, body, req) => {
      const cols = parseColumns(req.query.get('columns'));
      if (!cols || !Array.isArray(body?.List)) return res;
      const drop = cols.filter((c) => !DOCUMENTED_LINK_COLUMNS.has(c.field)).map((c) => c.key);
      if (drop.length === 0) return res;
      const List = body.List.map((row: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(row).filter(([k]) => !drop.includes(k))),
      );
      return withResponseJson(res, { ...body, List });
    }),
  },
  {
    name: 'link-id-as-string',
    area: 'LINK',
    description: 'LinkID is a string (`"L-17"`) in link rows and in the Upsert answer.',
    allowedBy:
      'Section 2.3: the Link record documents ParentDomainID, ParentID, ChildDomainID and ChildID; LinkID is not shown',
    markers: ['components/schemas/LinkRecord/properties/LinkID'],
    select: ['LINK-'],
    rewrite: only(['queryLinks', 'upsertLink', 'removeLink'], async (req, _ctx, next) => {
      const route = operationOf(req);
      const res = await next(req);
      const body = bodyJson(res);
      if (!isOk(res) || !body || typeof body !== 'object') return res;
      const str = (v: unknown) => (typeof v === 'number' ? `L-${v}` : v);
      if (route.op === 'queryLinks' && Array.isArray(body.List)) {
        for (const row of body.List) for (const k of keysOf(req, 'LinkID')) if (row && k in row) row[k] = str(row[k]);
      } else if ((route.op === 'upsertLink' || route.op === 'removeLink') && 'LinkID' in body)
        body.LinkID = str(body.LinkID);
      else return res;
      return withResponseJson(res, body);
    }),
  },
  {
    name: 'link-writes-answer-204',
    area: 'LINK',
    description: 'A successful Link/Upsert or Link/Remove answers 204 without a body.',
    allowedBy: `${UPSERT} ${REMOVE}`,
    markers: [
      'components/schemas/LinkUpsertResult',
      'components/schemas/LinkRemoveResult',
      'paths/~1api~1Link~1Upsert/post/responses/200',
      'paths/~1api~1Link~1Remove/post/responses/200',
    ],
    select: ['LINK-', 'AUTH-', 'FILE-'],
    rewrite: onSuccess(['upsertLink', 'removeLink'], (res, body) =>
      body?.IsSuccessful === false ? res : noContent(res),
    ),
  },
  {
    name: 'link-remove-missing-404',
    area: 'LINK',
    description: 'Link/Remove of a link that does not exist answers 404 instead of 200 with IsSuccessful false.',
    allowedBy: REMOVE,
    markers: ['components/schemas/LinkRemoveResult'],
    select: ['LINK-', 'AUTH-'],
    rewrite: onSuccess(['removeLink'], (res, body) =>
      body?.IsSuccessful === false ? problem(404, 'RecordNotFound', String(body.Message ?? 'No such link.')) : res,
    ),
  },
  {
    name: 'link-upsert-other-result',
    area: 'LINK',
    description: 'Link/Upsert answers `{"Created": true|false, "Link": {...}}` instead of the reference result.',
    allowedBy: UPSERT,
    markers: ['components/schemas/LinkUpsertResult'],
    select: ['LINK-', 'AUTH-'],
    rewrite: onSuccess(['upsertLink'], (res, body) =>
      body && typeof body === 'object' && body.IsSuccessful !== false
        ? withResponseJson(res, { Created: true, Link: { Parent: body.ParentRecordID, Child: body.ChildRecordID } })
        : res,
    ),
  },
  {
    name: 'link-identified-by-relationship',
    area: 'LINK',
    description:
      'A Contact link is identified by parent, child and relationship: an Upsert of an existing link with another relationship adds a second link, and Remove takes away the link with the relationship it names.',
    allowedBy: `${UPSERT} Section 2.3 item 3: "The same contact can be linked to many parents with different relationships." (what identifies a link is not shown; the real service sets another relationship through NewRelationship)`,
    select: ['LINK-'],
    rewrite: only(['upsertLink', 'removeLink', 'queryLinks'], linkByRelationship),
  },
  {
    name: 'link-query-newest-first',
    area: 'LINK',
    description: 'Link/Query lists the newest link first instead of the oldest.',
    allowedBy: 'Section 4.4: "GET /api/Link/Query | Response | `List`: array of link records" (no order is documented)',
    select: ['LINK-', 'AUTH-', 'FILE-'],
    rewrite: chain(
      onSuccess(['queryLinks'], (res, body) =>
        Array.isArray(body?.List) ? withResponseJson(res, { ...body, List: [...body.List].reverse() }) : res,
      ),
    ),
  },
];
