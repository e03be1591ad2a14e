// --seed demo: a small realistic dataset (idempotent: a second run on the same database is a no-op).
import type { Deps } from './deps.js';
import { timestamp } from './deps.js';
import { insertRow, findCode } from './db.js';
import { createUser } from './auth.js';
import { type Permission } from './permissions.js';
import { insertFile, insertLink } from './areas/files.js';
import { seedProposals } from './proposals/seed.js';

export interface SeedResult {
  seeded: boolean;
  users: Array<{ account: string; user: string; password: string; role: string }>;
  todo: string[];
}

const DEMO_USERS = [
  { account: 'demo', user: 'admin', password: 'admin', role: 'every permission except RestrictDownload' },
  { account: 'demo', user: 'viewer', password: 'viewer', role: 'View on every domain' },
  { account: 'demo', user: 'restricted', password: 'restricted', role: 'View everywhere, RestrictDownload on File' },
];

export function seedDemo(deps: Deps): SeedResult {
  const { db, dict } = deps;
  const result: SeedResult = { seeded: false, users: DEMO_USERS, todo: [] };
  if (db.prepare(`SELECT 1 FROM settings WHERE Name = 'Seed.demo'`).get()) return result;
  const def = (name: string) => dict.get(name)!;
  const now = timestamp(deps.clock());
  const code = (list: string, c: string) => findCode(db, list, c)!;

  db.transaction(() => {
    const view: Record<string, Permission[]> = { '*': ['View'] };
    createUser(db, { account: 'demo', name: 'admin', password: 'admin' });
    createUser(db, { account: 'demo', name: 'viewer', password: 'viewer', grants: view });
    createUser(db, {
      account: 'demo',
      name: 'restricted',
      password: 'restricted',
      grants: { '*': ['View'], File: ['View', 'RestrictDownload'] },
    });

    const loc = [
      {
        Name: 'Main Street Warehouse',
        Address1: '100 Main Street',
        City: 'Portland',
        StateCode: 'OR',
        ZipCode: '97201',
      },
      { Name: 'Harbor Office', Address1: '2 Pier Road', City: 'Seattle', StateCode: 'WA', ZipCode: '98101' },
      {
        Name: 'Distribution Center East',
        Address1: '77 Industrial Way',
        City: 'Boise',
        StateCode: 'ID',
        ZipCode: '83702',
      },
    ].map((v) => insertRow(db, def('Location'), v));
    const members = [
      { Name: 'Acme Logistics LLC', Address1: '100 Main Street', City: 'Portland', StateCode: 'OR', ZipCode: '97201' },
      { Name: 'Blue River Foods Inc', Address1: '9 Mill Lane', City: 'Eugene', StateCode: 'OR', ZipCode: '97401' },
    ].map((v) => insertRow(db, def('Member'), v));
    const policies = [
      {
        PolicyNumber: 'POL-2024-0001',
        EffectiveDate: '2024-01-01',
        ExpirationDate: '2025-01-01',
        Premium: 12500,
        MemberID: members[0],
      },
      {
        PolicyNumber: 'POL-2024-0002',
        EffectiveDate: '2024-04-01',
        ExpirationDate: '2025-04-01',
        Premium: 8300.5,
        MemberID: members[1],
      },
    ].map((v) => insertRow(db, def('Policy'), v));
    const claims = [
      ['CLM-2024-0001', 'Jane Doe', '2024-02-11', 2500.5, 'Open', 0, 0, 'PR', 'Roof damage after storm'],
      ['CLM-2024-0002', 'John Roe', '2024-03-02', 12000, 'Open', 1, 0, 'AU', null],
      ['CLM-2024-0003', 'Maria Lopez', '2024-03-20', 800, 'Closed', 2, 1, 'WC', 'Back strain at loading dock'],
      ['CLM-2024-0004', 'Sam Lee', '2024-04-05', null, 'Open', 0, 1, 'AU', null],
      ['CLM-2024-0005', 'Ana Silva', '2024-05-17', 4300, 'Reopened', 1, 0, 'PR', 'Water leak'],
    ].map(([n, who, date, reserve, status, l, p, cat, notes]) =>
      insertRow(db, def('Claim'), {
        ClaimNumber: n,
        ClaimantName: who,
        LossDate: date,
        ReserveAmount: reserve,
        Status: status,
        LocationID: loc[l as number],
        PolicyID: policies[p as number],
        Custom2CodeID: code('ClaimCategory', cat as string),
        Notes: notes,
        EntryDate: now,
      }),
    );
    const contacts = [
      ['Alex', 'Adjuster', 'alex.adjuster@example.com', '555-0101', 1001],
      ['Bea', 'Broker', 'bea.broker@example.com', '555-0102', 1002],
      ['Jane', 'Doe', 'jane.doe@example.com', '555-0103', 1003],
      ['Dan', 'Defense', 'dan.defense@example.com', '555-0104', 1004],
    ].map(([f, l, e, p, c]) =>
      insertRow(db, def('Contact'), { FirstName: f, LastName: l, Email: e, Phone: p, ContactCode: c }),
    );
    insertRow(db, def('Note'), { Subject: 'First notice of loss', Body: 'Reported by phone.', EntryDate: now });
    insertRow(db, def('Note'), { Subject: 'Inspection scheduled', Body: 'Inspector on site Monday.', EntryDate: now });
    insertRow(db, def('Task'), { Title: 'Call claimant', DueDate: '2024-03-01', Status: 'Open', ClaimID: claims[0] });
    insertRow(db, def('Task'), { Title: 'Review estimate', DueDate: '2024-03-15', Status: 'Done', ClaimID: claims[1] });
    insertRow(db, def('Incident'), {
      IncidentNumber: 'INC-0001',
      Description: 'Forklift collision',
      IncidentDate: '2024-03-19',
      LocationID: loc[2],
    });
    insertRow(db, def('Custom.Inspection'), {
      InspectionNumber: 'INS-0001',
      InspectorName: 'Kim Park',
      LocationID: loc[0],
      SeverityID: code('InspectionSeverity', 'H'),
    });
    insertRow(db, def('Custom.Inspection'), {
      InspectionNumber: 'INS-0002',
      InspectorName: null,
      LocationID: loc[1],
      SeverityID: code('InspectionSeverity', 'L'),
    });

    const files = [
      insertFile(deps, {
        fileName: 'photo.png',
        description: 'Roof photo',
        contents: Buffer.from('89504e470d0a1a0a', 'hex'),
      }),
      insertFile(deps, {
        fileName: 'report.pdf',
        description: 'Adjuster report',
        contents: Buffer.from('%PDF-1.4 demo'),
      }),
      insertFile(deps, { fileName: 'orphan.docx', description: 'Unfiled letter', contents: Buffer.from('PK demo') }),
      insertFile(deps, {
        fileName: 'external.pdf',
        description: 'Stored elsewhere',
        contents: Buffer.alloc(0),
        externalDirectURL: 'https://files.example.com/external.pdf',
      }),
      insertFile(deps, {
        fileName: 'archive.zip',
        description: 'Archived in repository',
        contents: Buffer.alloc(0),
        externalFileRepositoryId: 1,
      }),
    ];
    const [claimDom, contactDom, fileDom] = [def('Claim').id, def('Contact').id, def('File').id];
    insertLink(deps, claimDom, claims[0]!, fileDom, files[0]!);
    insertLink(deps, claimDom, claims[0]!, fileDom, files[1]!);
    insertLink(deps, claimDom, claims[1]!, fileDom, files[3]!);
    insertLink(deps, claimDom, claims[2]!, fileDom, files[4]!);
    insertLink(deps, claimDom, claims[0]!, contactDom, contacts[0]!, code('ContactType', 'ADJ'));
    insertLink(deps, claimDom, claims[0]!, contactDom, contacts[2]!, code('ContactType', 'CLM'));
    insertLink(deps, claimDom, claims[1]!, contactDom, contacts[0]!, code('ContactType', 'ADJ'));
    insertLink(deps, claimDom, claims[1]!, contactDom, contacts[1]!, code('ContactType', 'BRK'));
    insertLink(deps, def('Policy').id, policies[0]!, contactDom, contacts[1]!, code('ContactType', 'BRK'));
    insertLink(deps, claimDom, claims[2]!, contactDom, contacts[3]!, code('ContactType', 'DEF'));
  })();

  seedProposals(deps);

  db.prepare(`INSERT INTO settings (Name, Value) VALUES ('Seed.demo', ?)`).run(JSON.stringify(now));
  result.seeded = true;
  return result;
}
