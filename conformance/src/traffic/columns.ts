// The column language of section 4.1 as far as the traffic rules read it: which response keys a
// `columns` parameter asks for (`Name`, `Name as Alias`, `Field.Property`).

export interface RequestedColumn {
  /** The field as written (`Field` or `Field.Property`). */
  field: string;
  /** The key the answer carries it under: the alias, else the field. */
  key: string;
  alias: boolean;
  dotted: boolean;
}

/** The requested columns; undefined when `columns` is absent or empty (all in-use columns). */
export function requestedColumns(param: string | null): RequestedColumn[] | undefined {
  if (param === null || param.trim() === '') return undefined;
  return param
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .map((c) => {
      const m = /^(.+?)\s+as\s+(.+)$/i.exec(c);
      const field = (m ? m[1] : c).trim();
      return { field, key: (m ? m[2] : c).trim(), alias: !!m, dotted: field.includes('.') };
    });
}

/** Whether the same key is asked for twice (the answer can then hold it once: rules skip). */
export function hasDuplicateKeys(cols: RequestedColumn[]): boolean {
  return new Set(cols.map((c) => c.key)).size !== cols.length;
}
