// Every pair of the query and column features (spec 4.1, 4.2, 4.3, 8) on the three listings: a
// pairwise covering array drawn from the run's seed (support/feature-pairs.ts), each answer judged
// by an oracle over the fixture the suite chose (support/query-combinations.ts judge(); the
// attached files by their reads by ID). One run per listing, shared by one test per requirement it
// judges: a wrong answer fails the test of the requirement whose sentence broke, shrunk to the
// smallest request still refused for it; a rule the run does not judge (a step) blocks the others.
import { conformance } from '../src/suite-api/dsl.js';
import { type Listing, judgePair } from './support/feature-pairs.js';

const JUDGED: Record<Listing, Array<[string, string]>> = {
  records: [
    ['COL-001', 'exactly the requested columns'],
    ['COL-003', 'aliased columns under their alias'],
    ['COL-004', 'dotted columns with the value a read by ID gives'],
    ['COL-008', 'resolveAssociationNames=true resolves a bare association as a read by ID does'],
    ['COL-010', 'resolveAssociationNames false or absent leaves a bare association null'],
    ['QRY-003', '30 records without take'],
    ['QRY-004', 'never more than 100 records'],
    ['QRY-005', 'take=n gives n records'],
    ['QRY-006', 'the start offset skips that many of the ordered records'],
    ['QRY-008', 'the sort order'],
    ['QRY-010', 'the LINQ filter selects its records'],
    ['QRY-011', 'suppression drops all-null columns'],
    ['QRY-012', 'suppression keeps columns with a value'],
    ['QRY-013', 'no suppression unless asked'],
    ['QRY-014', 'the total count of all selected records when asked'],
    ['QRY-015', 'no total count unless asked'],
    ['QRY-023', 'the explicit asc keyword'],
    ['QRY-024', 'sort on two columns'],
  ],
  files: [
    ['COL-001', 'exactly the requested columns'],
    ['COL-003', 'aliased columns under their alias'],
    ['QRY-003', '30 files without take'],
    ['QRY-004', 'never more than 100 files'],
    ['QRY-005', 'take=n gives n files'],
    ['QRY-008', 'the sort order'],
    ['QRY-010', 'the LINQ filter selects its files'],
    ['FILE-022', 'the start offset and sort of the domain query'],
    ['FILE-023', 'the suppression of the domain query'],
    ['FILE-024', 'the total count of the domain query'],
  ],
  attached: [
    ['COL-001', 'exactly the requested columns'],
    ['COL-011', 'aliases and values as on the other operations'],
    ['QRY-005', 'take=n gives n files'],
    ['FILE-007', "exactly the parent's files"],
  ],
};

const WHERE: Record<Listing, string> = {
  records: 'GET /api/{domain}/Query',
  files: 'GET /api/File/Query',
  attached: 'GET /api/{domain}/{id}/Files',
};

for (const listing of ['records', 'files', 'attached'] as const) {
  const judged = JUDGED[listing].map(([r]) => r);
  for (const [requirement, what] of JUDGED[listing])
    conformance(
      {
        id: `pairs.${listing}-${requirement.toLowerCase()}`,
        title: `every pair of query and column features on ${WHERE[listing]}: ${what}`,
        requirements: [requirement],
        timeoutMs: 120_000,
      },
      async (t) => {
        await judgePair(t, listing, requirement, judged);
      },
    );
}
