/**
 * Domain events are written by the code that makes the change, in its transaction, with the actor it
 * is handed (docs/DESIGN.md "Domain events"; adapters/store/knex/transaction-events.ts) — not derived
 * from row changes by the database. On a migrated database, no trigger's function writes an event:
 * neither inserts into `ca_api_events` nor calls, directly or through other functions, one that does
 * (`ca_api_event()`). The audit log's own triggers on `ca_api_events` (the hash chain, the append-only
 * guards of migration 0011) are not event writers and are left out.
 */
import type { Knex } from 'knex';
import { openTestDatabase, type TestDatabase } from '../helpers/database';

const EVENTS_TABLE = 'ca_api_events';

/** The triggers (by name, sorted) of the current schema whose functions write events. */
async function eventWritingTriggers(db: Knex): Promise<string[]> {
  const rows = async <R>(sql: string) => ((await db.raw(sql)) as { rows: R[] }).rows;
  const functions = await rows<{ name: string; body: string }>(`
    SELECT p.proname AS name, p.prosrc AS body FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = current_schema()`);
  // Functions that write an event: an INSERT into the events table, or a call of one that writes.
  const writers = new Set(
    functions.filter((f) => new RegExp(`\\binsert\\s+into\\s+${EVENTS_TABLE}\\b`, 'i').test(f.body)).map((f) => f.name),
  );
  for (let grew = true; grew;) {
    grew = false;
    for (const f of functions) {
      if (writers.has(f.name)) continue;
      if ([...writers].some((w) => new RegExp(`\\b${w}\\s*\\(`, 'i').test(f.body))) {
        writers.add(f.name);
        grew = true;
      }
    }
  }
  const triggers = await rows<{ trigger: string; fn: string; on: string }>(`
    SELECT t.tgname AS trigger, p.proname AS fn, c.relname AS on FROM pg_trigger t
      JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_proc p ON p.oid = t.tgfoid
     WHERE n.nspname = current_schema() AND NOT t.tgisinternal`);
  return triggers
    .filter((t) => t.on !== EVENTS_TABLE && writers.has(t.fn))
    .map((t) => t.trigger)
    .sort();
}

describe('no trigger writes a domain event', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('on a migrated database, no trigger writes events', async () => {
    expect(await eventWritingTriggers(db.knex)).toEqual([]);
  });

  it('the check sees an event written through a helper function, and leaves the audit chain out', async () => {
    await db.knex
      .transaction(async (tx) => {
        await tx.raw(`CREATE FUNCTION ca_api_test_note() RETURNS void LANGUAGE plpgsql AS $$
          BEGIN INSERT INTO ca_api_events (type, actor, data) VALUES ('user.created', '{}', '{}'); END $$`);
        await tx.raw(`CREATE FUNCTION ca_api_test_noted() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN PERFORM ca_api_test_note(); RETURN NULL; END $$`);
        await tx.raw(`CREATE TRIGGER ca_api_test_noted AFTER INSERT ON ca_api_users FOR EACH ROW EXECUTE FUNCTION ca_api_test_noted()`);
        const writing = await eventWritingTriggers(tx);
        expect(writing).toContain('ca_api_test_noted');
        expect(writing).not.toContain('ca_api_audit_chain');
        throw new Error('rolled back');
      })
      .catch((e: Error) => expect(e.message).toBe('rolled back'));
    expect(await eventWritingTriggers(db.knex)).not.toContain('ca_api_test_noted');
  });
});
