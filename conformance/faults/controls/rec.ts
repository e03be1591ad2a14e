// Controls of record access (REC): the error answers of missing records, the numbering of IDs, and
// a provider-state endpoint where twin records cannot exist.
import type { Control } from '../fault.js';
import { NOT_SHOWN, recode } from './util.js';

export const REC_CONTROLS: Control[] = [
  // Error answers: other statuses and bodies where the specification does not show them.
  {
    name: 'missing-record-400',
    area: 'REC',
    description: 'A record (or a match key) that does not exist is answered 400 instead of 404.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/RecordNotFound', 'components/responses/NotFound'],
    select: ['REC-', 'FILE-', 'LINK-', 'SCHED-'],
    rewrite: recode(['RecordNotFound'], 400),
  },
  {
    name: 'missing-record-410',
    area: 'REC',
    description: 'A record that does not exist (also one deleted permanently) is answered 410 Gone.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/RecordNotFound'],
    select: ['REC-', 'SCHED-', 'MEM-', 'BIND-'],
    rewrite: recode(['RecordNotFound'], 410),
  },
  // The numbering of IDs.
  {
    name: 'ids-from-a-million',
    area: 'REC',
    description: 'Record IDs (and link, user and code IDs) are numbered from 1,000,001 instead of 1.',
    allowedBy: 'Section 4.2: "`id`: integer, required, primary key of the record" (the numbering is not shown)',
    select: ['REC-', 'QRY-', 'LINK-', 'SCHED-', 'FILE-'],
    serverFlags: ['--id-start', '1000001'],
  },
  // The provider-state endpoint (spec/provider-states.yaml): the interface stays the reference's,
  // the endpoint that sets up its fixtures answers like another vendor's would. The interface spec
  // does not govern that endpoint; the protocol does, and it promises that an endpoint of an older
  // version, or one that supports only what the protocol requires, never turns a test red: the tests
  // it cannot serve end not-applicable or precondition-failed, with the state named
  // (judge: 'state-endpoint', judge-state-endpoint.ts).
  {
    name: 'one-id-sequence-for-every-domain',
    area: 'REC',
    description:
      'Record IDs of every domain come from one sequence, so no two records of different domains share an ID; the states that need such twins answer 501 FixtureCannotExist.',
    allowedBy:
      'Section 4.2: "`id`: integer, required, primary key of the record" (whether IDs are unique per domain or across domains is not shown)',
    select: ['FILE-', 'LINK-', 'REC-', 'QRY-'],
    serverFlags: ['--single-id-sequence'],
    judge: 'state-endpoint',
  },
];
