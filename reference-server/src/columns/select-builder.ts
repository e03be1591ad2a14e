// Column names into SQL (spec 4.1): plain, computed and dotted names, association and coded fields,
// resolveAssociationNames, and the LEFT JOINs the resolved names need. Column names are validated
// against the dictionary; only dictionary names reach the SQL text.
import { type ColumnType, type DomainDef, type FieldDef, nativeColumns, q } from '../dictionary.js';
import { ApiError } from '../errors.js';
import { can } from '../auth.js';
import type { User } from '../permissions.js';
import type { Deps } from '../deps.js';
import { own } from '../own.js';

export type Mode = 'select' | 'filter' | 'sort';

export type Resolved =
  { kind: 'sql'; sql: string; type: ColumnType } | { kind: 'null' } | { kind: 'contents' } | { kind: 'download' };

function expand(sql: string, alias: string): string {
  return sql.replace(/\$t\b/g, alias);
}

const CODE_PROPS: Record<string, ColumnType> = { Code: 'text', Description: 'text', CodeID: 'integer' };

/** Builds one SELECT over a domain table with the joins its columns, filter and sort need. */
export class SelectBuilder {
  readonly alias = 't';
  private joins = new Map<string, { alias: string; sql: string }>();
  /** domains other than `def` whose records the columns, filter or sort read (association targets) */
  private readonly reachedDomains = new Set<string>();

  constructor(
    readonly deps: Deps,
    readonly def: DomainDef,
  ) {}

  // REQ: COL-012
  private fail(mode: Mode, detail: string): never {
    throw new ApiError(400, mode === 'filter' ? 'InvalidFilter' : 'UnknownColumn', detail);
  }

  private join(key: string, make: (alias: string) => string): string {
    let j = this.joins.get(key);
    if (!j) {
      const alias = `j${this.joins.size + 1}`;
      j = { alias, sql: make(alias) };
      this.joins.set(key, j);
    }
    return j.alias;
  }

  /** Join the target of an association field; returns the target definition and join alias. */
  private joinAssociation(f: FieldDef): { target: DomainDef; alias: string } {
    const target = this.deps.dict.get(f.target!);
    if (!target) throw new Error(`dictionary: ${this.def.name}.${f.name} targets unknown domain ${f.target}`);
    if (target.name !== this.def.name) this.reachedDomains.add(target.name);
    const alias = this.join(
      'a:' + f.name,
      (a) => `LEFT JOIN ${q(target.table)} ${a} ON ${a}.${q(target.key)} = ${this.alias}.${q(f.name + 'ID')}`,
    );
    return { target, alias };
  }

  private joinCode(f: FieldDef): string {
    return this.join(
      'c:' + f.name,
      (a) =>
        `LEFT JOIN codes ${a} ON ${a}.CodeID = ${this.alias}.${q(f.name + 'ID')} AND ${a}.List = ${sqlString(f.target!)}`,
    );
  }

  /** A plain column of `def` read through table alias `alias` (key, stored column, computed-sql field). */
  private plainColumn(def: DomainDef, alias: string, name: string): { sql: string; type: ColumnType } | undefined {
    if (name === def.key) return { sql: `${alias}.${q(def.key)}`, type: 'integer' };
    const native = nativeColumns(def).find((c) => c.name === name);
    if (native) return { sql: `${alias}.${q(native.name)}`, type: native.type };
    const f = def.fields.find((x) => x.name === name);
    if (f?.computed?.sql) return { sql: `(${expand(f.computed.sql, alias)})`, type: f.type };
    return undefined;
  }

  /** The display string of an association's target (its displayField). */
  private displayOf(target: DomainDef, alias: string): string {
    const col = target.displayField ? this.plainColumn(target, alias, target.displayField) : undefined;
    return col ? `CAST(${col.sql} AS TEXT)` : `CAST(${alias}.${q(target.key)} AS TEXT)`;
  }

  resolve(name: string, mode: Mode, resolveNames = false): Resolved {
    const def = this.def;
    const dot = name.indexOf('.');
    if (dot < 0) {
      const plain = this.plainColumn(def, this.alias, name);
      if (plain) return { kind: 'sql', ...plain };
      const f = def.fields.find((x) => x.name === name);
      if (!f) this.fail(mode, `Domain '${def.name}' has no column '${name}'.`);
      if (f.computed?.onDemand) {
        if (mode !== 'select') this.fail(mode, `Column '${name}' cannot be used in a ${mode}.`);
        return name === 'Contents' ? { kind: 'contents' } : { kind: 'download' };
      }
      if (f.type === 'association') {
        if (mode !== 'select')
          this.fail(mode, `Association '${name}' cannot be used in a ${mode}; use ${name}ID or ${name}.<Field>.`);
        // REQ: COL-006
        // REQ: COL-008
        // REQ: COL-009
        // REQ: COL-010
        if (!resolveNames) return { kind: 'null' };
        const { target, alias } = this.joinAssociation(f);
        return { kind: 'sql', sql: this.displayOf(target, alias), type: 'text' };
      }
      if (f.type === 'coded') {
        if (mode !== 'select')
          this.fail(
            mode,
            `Coded field '${name}' cannot be used in a ${mode}; use ${name}.Code or ${name}.Description.`,
          );
        // REQ: COL-007
        return { kind: 'null' };
      }
      this.fail(mode, `Domain '${def.name}' has no column '${name}'.`);
    }
    // Dotted: <Field>.<Property>
    const head = name.slice(0, dot);
    const prop = name.slice(dot + 1);
    const f = def.fields.find((x) => x.name === head);
    if (f?.type === 'association') {
      // REQ: COL-004
      const { target, alias } = this.joinAssociation(f);
      const col = this.plainColumn(target, alias, prop);
      if (col) return { kind: 'sql', ...col };
      const tf = target.fields.find((x) => x.name === prop && !x.computed);
      if (tf && mode === 'select') return { kind: 'null' }; // a bare association/coded field of the target
      this.fail(mode, `Domain '${target.name}' (through '${head}') has no column '${prop}'.`);
    }
    if (f?.type === 'coded') {
      // REQ: COL-005
      const type = own(CODE_PROPS, prop);
      if (!type) this.fail(mode, `Coded field '${head}' has the properties Code and Description, not '${prop}'.`);
      const alias = this.joinCode(f);
      return { kind: 'sql', sql: `${alias}.${q(prop)}`, type };
    }
    this.fail(mode, `Domain '${def.name}' has no association or coded field '${head}' (in '${name}').`);
  }

  /** The other domains this select reads through associations (dotted names, resolved names). */
  reached(): string[] {
    return [...this.reachedDomains];
  }

  fromSql(): string {
    return `FROM ${q(this.def.table)} ${this.alias}` + [...this.joins.values()].map((j) => ' ' + j.sql).join('');
  }
}

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/**
 * 403 Forbidden unless `user` may View every domain in `reached`: a dotted column, filter or sort
 * (`Location.Name`) or a resolved association name reads a record of the target domain, which
 * needs View there as reading it directly does (docs/implementation-defined.md, cross-domain reads).
 */
// REQ: AUTH-012
export function requireReachable(user: User, reached: readonly string[]): void {
  for (const domain of reached) {
    if (!can(user, domain, 'View'))
      throw new ApiError(
        403,
        'Forbidden',
        `Permission 'View' on domain '${domain}' is required to read its fields through an association.`,
      );
  }
}
