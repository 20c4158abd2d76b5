/**
 * An UPDATE of one row (`where` names it by a unique key) that also says what it changed, for the
 * events of the change: `compare` names SQL expressions over the row before (`o`) and after (`n`),
 * evaluated by the database in the same statement — the comparisons the database itself makes
 * (`IS DISTINCT FROM`, `to_jsonb`), not JavaScript's idea of equal values. The row is locked as it is
 * read (`FOR UPDATE`), so before and after are those of this change.
 */
import type { Knex } from 'knex';
import type { Row } from './rows';
import { fromJson } from './values';

/** The updated row, and the value of each `compare` expression (parsed JSON). */
export interface ChangedRow {
  row: Row;
  change: Record<string, unknown>;
}

/** Column of the result that carries the comparisons; not a column of any table. */
const CHANGE = 'ca_api_row_change';

export async function updateComparing(
  db: Knex,
  table: string,
  where: Row,
  set: Row,
  compare: Record<string, string>,
): Promise<ChangedRow | null> {
  const keys = Object.keys(where);
  const columns = Object.keys(set);
  const comparisons = Object.entries(compare);
  const result = (await db.raw(
    `WITH o AS (SELECT * FROM ?? WHERE ${keys.map(() => '?? = ?').join(' AND ')} FOR UPDATE)
     UPDATE ?? AS n SET ${columns.map(() => '?? = ?').join(', ')} FROM o WHERE ${keys.map(() => 'n.?? = o.??').join(' AND ')}
     RETURNING n.*, json_build_object(${comparisons.map(([, sql]) => `?::text, ${sql}`).join(', ')}) AS ??`,
    [
      table,
      ...keys.flatMap((k) => [k, where[k]]),
      table,
      ...columns.flatMap((c) => [c, set[c]]),
      ...keys.flatMap((k) => [k, k]),
      ...comparisons.map(([name]) => name),
      CHANGE,
    ] as Knex.RawBinding[],
  )) as { rows: Row[] };
  const found = result.rows[0];
  if (!found) return null;
  const { [CHANGE]: change, ...row } = found;
  return { row, change: fromJson<Record<string, unknown>>(change) };
}
