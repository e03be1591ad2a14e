// The tables of the proposal area that are not domains of the data dictionary: proposal sets, bind
// status and bind jobs. Created by the app at start (and by anything that needs them first).
import type Database from 'better-sqlite3';

const migrated = new WeakSet<Database.Database>();

/** Creates the tables of the proposal area that are not domains. Idempotent. */
export function migrate(db: Database.Database): void {
  if (migrated.has(db)) return;
  db.exec(`
    CREATE TABLE IF NOT EXISTS proposal_sets (
      ProposalSetID INTEGER PRIMARY KEY AUTOINCREMENT,
      Name TEXT,
      IsBound INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS bind_status (
      ProposalID INTEGER PRIMARY KEY,
      Status TEXT NOT NULL CHECK (Status IN ('NotBound', 'Bound', 'Error')),
      ErrorMessage TEXT,
      PolicyID INTEGER,
      MemberID INTEGER,
      PolicyNumber TEXT,
      MemberName TEXT,
      BoundDateUTC TEXT,
      UpdatedDateUTC TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS bind_jobs (
      JobID INTEGER PRIMARY KEY AUTOINCREMENT,
      ProposalID INTEGER NOT NULL,
      State TEXT NOT NULL CHECK (State IN ('queued', 'running', 'done')),
      BillingFrequencyCode TEXT,
      BillingStatus TEXT,
      Outcome TEXT,
      QueuedDateUTC TEXT NOT NULL,
      StartedDateUTC TEXT,
      FinishedDateUTC TEXT
    );
    CREATE INDEX IF NOT EXISTS bind_jobs_state ON bind_jobs (State, JobID);
    CREATE INDEX IF NOT EXISTS bind_jobs_proposal ON bind_jobs (ProposalID);
  `);
  migrated.add(db);
}
