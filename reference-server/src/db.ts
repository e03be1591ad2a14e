// SQLite: open (file in WAL mode, or ':memory:') and create the schema from the data dictionary.
import Database from 'better-sqlite3';
import { CODE_LISTS, DOMAINS, type DomainDef, nativeColumns, q } from './dictionary.js';
import { own } from './own.js';

const SQL_TYPES = {
  integer: 'INTEGER',
  number: 'REAL',
  text: 'TEXT',
  date: 'TEXT', // yyyy-MM-dd
  timestamp: 'TEXT', // yyyy-MM-ddTHH:mm:ss.fff (UTC, no zone)
  boolean: 'INTEGER', // 0/1
  association: 'INTEGER',
  coded: 'INTEGER',
} as const;

/** File extension with its dot (`report.pdf` → `.pdf`); '' when there is none. */
export function fileExtension(name: unknown): string {
  if (typeof name !== 'string') return '';
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? base.slice(dot) : '';
}

export interface OpenOptions {
  /**
   * SQLite's exclusive locking mode (`--exclusive-db`): the server holds the file's lock for as long
   * as it runs, so no other connection (another process, the sqlite3 shell, a backup tool) can
   * read or write the file meanwhile. In exchange WAL needs no shared-memory index (no lock and
   * unlock system calls on the -shm file per transaction) and nothing can change the file behind
   * the server's back. For a server that is the database's only user; off by default.
   */
  exclusive?: boolean;
}

export function openDatabase(
  path = ':memory:',
  domains: DomainDef[] = DOMAINS,
  opts: OpenOptions = {},
): Database.Database {
  const db = new Database(path);
  const file = path !== ':memory:' && path !== '';
  // before journal_mode: WAL then keeps its index in heap memory instead of the -shm file
  if (file && opts.exclusive) db.pragma('locking_mode = EXCLUSIVE');
  if (file) db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  db.function('rflps_ext', { deterministic: true }, (name: unknown) => fileExtension(name));
  migrate(db, domains);
  cacheStatements(db);
  immediateTransactions(db);
  return db;
}

/** Makes `db.transaction(fn)` begin with BEGIN IMMEDIATE (nested ones stay savepoints). A deferred
 * transaction that reads first and writes later fails at once with SQLITE_BUSY ("database is
 * locked") when another connection holds the write lock: the busy timeout does not apply to that
 * upgrade. An immediate one waits for the lock (busy_timeout) before it reads anything. */
function immediateTransactions(db: Database.Database): void {
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: any[]) => unknown) => {
    const t = transaction(fn);
    const run = ((...args: unknown[]) => t.immediate(...args)) as unknown as typeof t;
    return Object.assign(run, {
      default: t.immediate,
      deferred: t.deferred,
      immediate: t.immediate,
      exclusive: t.exclusive,
    });
  }) as Database.Database['transaction'];
}

/** How many prepared statements `cacheStatements` keeps. */
const STATEMENT_CACHE_SIZE = 500;

/** Makes `db.prepare` return a cached statement per distinct SQL text (least recently used out
 * past `max`). The column engine and the areas build the same few SQL texts again and again, and
 * preparing one cost more than running it (about a fifth of the CPU of a record read). A statement
 * keeps no state between runs as long as nobody calls pluck/raw/expand/safeIntegers/bind on it:
 * the server does not, except on a statement whose SQL text no other code uses (the token cache's
 * `PRAGMA data_version -- auth cache stamp`, auth.ts) (docs/benchmarks.md has the measured effect). */
export function cacheStatements(db: Database.Database, max = STATEMENT_CACHE_SIZE): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((source: string) => {
    let st = cache.get(source);
    if (st) {
      cache.delete(source); // most recently used last
    } else {
      st = prepare(source);
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
    }
    cache.set(source, st);
    return st;
  }) as Database.Database['prepare'];
}

function domainTableSql(def: DomainDef): string[] {
  const cols = nativeColumns(def)
    .slice(1)
    .map((c) => `${q(c.name)} ${own(SQL_TYPES, c.type)!}`);
  const stmts = [
    `CREATE TABLE IF NOT EXISTS ${q(def.table)} (${q(def.key)} INTEGER PRIMARY KEY AUTOINCREMENT${cols.length ? ', ' + cols.join(', ') : ''})`,
  ];
  // Indexes on association / coded reference columns and other ID columns.
  for (const f of def.fields) {
    if (f.computed) continue;
    const col =
      f.type === 'association' || f.type === 'coded'
        ? f.name + 'ID'
        : f.type === 'integer' && f.name.endsWith('ID')
          ? f.name
          : undefined;
    if (col) stmts.push(`CREATE INDEX IF NOT EXISTS ${q(`ix_${def.table}_${col}`)} ON ${q(def.table)} (${q(col)})`);
  }
  for (const cols of def.indexes ?? []) {
    // 'Name DESC' → "Name" DESC; the index name spells the direction as _desc
    const terms = cols.map((c) => /^(.*?)(?:\s+(DESC|ASC))?$/i.exec(c.trim())!);
    const name = `ix_${def.table}_${terms.map((m) => m[1] + (m[2]?.toUpperCase() === 'DESC' ? '_desc' : '')).join('_')}`;
    const list = terms.map((m) => q(m[1]!) + (m[2]?.toUpperCase() === 'DESC' ? ' DESC' : '')).join(', ');
    stmts.push(`CREATE INDEX IF NOT EXISTS ${q(name)} ON ${q(def.table)} (${list})`);
  }
  return stmts;
}

function migrate(db: Database.Database, domains: DomainDef[] = DOMAINS): void {
  const stmts: string[] = [];
  for (const def of domains) stmts.push(...domainTableSql(def));
  stmts.push(
    `CREATE INDEX IF NOT EXISTS ix_File_EntryDate ON "File" ("EntryDate")`,
    `CREATE TABLE IF NOT EXISTS file_contents (
       FileID INTEGER PRIMARY KEY REFERENCES "File" ("FileID") ON DELETE CASCADE,
       Contents BLOB NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS links (
       LinkID INTEGER PRIMARY KEY AUTOINCREMENT,
       ParentDomainID INTEGER NOT NULL,
       ParentID INTEGER NOT NULL,
       ChildDomainID INTEGER NOT NULL,
       ChildID INTEGER NOT NULL,
       ContactTypeID INTEGER REFERENCES codes (CodeID),
       EntryDate TEXT,
       UNIQUE (ParentDomainID, ParentID, ChildDomainID, ChildID))`,
    `CREATE INDEX IF NOT EXISTS ix_links_parent ON links (ParentDomainID, ParentID)`,
    `CREATE INDEX IF NOT EXISTS ix_links_child ON links (ChildDomainID, ChildID)`,
    `CREATE TABLE IF NOT EXISTS codes (
       CodeID INTEGER PRIMARY KEY AUTOINCREMENT,
       List TEXT NOT NULL,
       Code TEXT NOT NULL,
       Description TEXT NOT NULL,
       UNIQUE (List, Code))`,
    `CREATE TABLE IF NOT EXISTS users (
       UserID INTEGER PRIMARY KEY AUTOINCREMENT,
       Account TEXT NOT NULL,
       Name TEXT NOT NULL,
       PasswordHash TEXT,
       UNIQUE (Account, Name))`,
    `CREATE TABLE IF NOT EXISTS tokens (
       Token TEXT PRIMARY KEY,
       UserID INTEGER NOT NULL REFERENCES users (UserID) ON DELETE CASCADE,
       ClientName TEXT,
       Expires TEXT NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS ix_tokens_user ON tokens (UserID)`,
    `CREATE TABLE IF NOT EXISTS grants (
       UserID INTEGER NOT NULL REFERENCES users (UserID) ON DELETE CASCADE,
       Domain TEXT NOT NULL,
       Permission TEXT NOT NULL,
       PRIMARY KEY (UserID, Domain, Permission))`,
    `CREATE TABLE IF NOT EXISTS settings (
       Name TEXT PRIMARY KEY,
       Value TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS state_objects (
       Seq INTEGER PRIMARY KEY AUTOINCREMENT,
       TrackKey TEXT NOT NULL,
       TableName TEXT NOT NULL,
       RowID INTEGER NOT NULL,
       Data TEXT)`,
    `CREATE INDEX IF NOT EXISTS ix_state_objects_key ON state_objects (TrackKey)`,
  );
  db.transaction(() => {
    for (const s of stmts) db.exec(s);
    addNewColumns(db, domains);
    const ins = db.prepare('INSERT OR IGNORE INTO codes (List, Code, Description) VALUES (?, ?, ?)');
    for (const [list, entries] of Object.entries(CODE_LISTS))
      for (const [code, desc] of entries) ins.run(list, code, desc);
  })();
}

/** Columns the dictionary gained after a database file was made (CREATE TABLE IF NOT EXISTS leaves
 * an existing table as it was): added, empty, so an older file keeps working. */
function addNewColumns(db: Database.Database, domains: DomainDef[]): void {
  for (const def of domains) {
    const have = new Set(
      (db.prepare(`PRAGMA table_info(${q(def.table)})`).all() as Array<{ name: string }>).map((c) => c.name),
    );
    for (const c of nativeColumns(def))
      if (!have.has(c.name)) db.exec(`ALTER TABLE ${q(def.table)} ADD COLUMN ${q(c.name)} ${own(SQL_TYPES, c.type)!}`);
  }
}

/** Insert a row into a domain table from a column → value map (columns checked by the caller
 * against the dictionary). Returns the new ID. */
export function insertRow(db: Database.Database, def: DomainDef, values: Record<string, unknown>): number {
  const allowed = new Set(nativeColumns(def).map((c) => c.name));
  const cols = Object.keys(values).filter((k) => allowed.has(k));
  for (const k of Object.keys(values))
    if (!allowed.has(k)) throw new Error(`insertRow: ${def.name} has no column ${k}`);
  const sql = cols.length
    ? `INSERT INTO ${q(def.table)} (${cols.map(q).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`
    : `INSERT INTO ${q(def.table)} DEFAULT VALUES`;
  const vals = cols.map((k) => {
    const v = values[k];
    return typeof v === 'boolean' ? (v ? 1 : 0) : v;
  });
  return Number(db.prepare(sql).run(...vals).lastInsertRowid);
}

/** CodeID of a code (by Code or Description, case-insensitive) in a list. */
export function findCode(db: Database.Database, list: string, codeOrDescription: string): number | undefined {
  const row = db
    .prepare(
      `SELECT CodeID FROM codes WHERE List = ? AND (Code = ? COLLATE NOCASE OR Description = ? COLLATE NOCASE) ORDER BY CodeID LIMIT 1`,
    )
    .get(list, codeOrDescription, codeOrDescription) as { CodeID: number } | undefined;
  return row?.CodeID;
}
