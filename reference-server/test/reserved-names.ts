// Names every JavaScript object inherits, and SQL words: the class of names that once reached SQL
// through a prototype lookup (issue 35). reserved-names.test.ts sends them to every place a name is
// read; the hostile-input battery (reliability/hostile.test.ts) sends them over the wire.
export const INHERITED = [
  'constructor',
  '__proto__',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  'toLocaleString',
];
const SQL_WORDS = ['rowid', 'oid', '_rowid_', 'SELECT', 'FROM', 'WHERE', 'NULL', 'sqlite_master'];
export const RESERVED_NAMES = [...INHERITED, ...SQL_WORDS];
