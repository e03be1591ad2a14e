// Controls of the provider-state endpoint (spec/provider-states.yaml): the interface stays the
// reference's, the endpoint that sets up its fixtures answers like another vendor's would. The
// interface spec does not govern that endpoint; the protocol does, and it promises that an endpoint
// of an older version, or one that supports only what the protocol requires, never turns a test
// red: the tests it cannot serve end not-applicable or precondition-failed, with the state named
// (judge: 'state-endpoint', judge-state-endpoint.ts).
import type { Control } from '../fault.js';

export const PROVIDER_STATE_CONTROLS: Control[] = [
  {
    name: 'state-endpoint-protocol-1-0-0',
    area: 'GEN',
    description:
      'The provider-state endpoint speaks protocol 1.0.0: it declares no version, ignores the newer params, leaves out the newer values and makes records of Claim only.',
    allowedBy:
      'Section 9: "Versioning: not shown"; spec/provider-states.yaml, "Versions and negotiation": an endpoint that declares no version speaks 1.0.0, and a test that needs more is not run',
    serverFlags: ['--provider-states-mode', '1.0.0'],
    judge: 'state-endpoint',
  },
  {
    name: 'state-endpoint-required-only',
    area: 'GEN',
    description:
      'The provider-state endpoint declares the newest protocol but supports only what it requires: optional params newer than 1.0.0 are ignored, optional values left out.',
    allowedBy:
      'Section 9: "Versioning: not shown"; spec/provider-states.yaml, "Versions and negotiation": a param that shapes the fixture is confirmed by the answer, and a test whose param was not honoured is precondition-failed',
    serverFlags: ['--provider-states-mode', 'minimal'],
    judge: 'state-endpoint',
  },
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
