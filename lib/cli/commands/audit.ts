/**
 * verify_audit_log and audit_log (docs/operations/audit-and-events.md "Audit"): prove the audit log's hash chain
 * unbroken, and export the records page by page (never the whole log in memory).
 */
import { Option, type Command } from 'commander';
import { verifyAuditChain } from '../../audit/audit-chain';
import { csvField } from '../certificates-csv';
import { CaError } from '../../ca/errors';
import { findCa } from '../../ca/lookup';
import type { AuditFilter, AuditRow } from '../../ports';
import type { CommandContext } from '../context';
import type { Action } from './shared';

/** Records read per statement. */
const PAGE = 500;

const CSV_COLUMNS = [
  'id',
  'created',
  'type',
  'actor_type',
  'actor_name',
  'actor_id',
  'protocol',
  'address',
  'ca_serial',
  'serial',
  'data',
  'hash',
];

/** RFC 4180 and neutralised against spreadsheet formulas, as the certificate CSV (lib/cli/certificates-csv.ts). */
const auditCsvField = (value: unknown): string => csvField(value === null || value === undefined ? '' : String(value));

export function auditLine(row: AuditRow, format: 'jsonl' | 'csv'): string {
  const actor = JSON.parse(row.actorText) as Record<string, unknown>;
  if (format === 'jsonl') {
    const data = JSON.parse(row.dataText) as unknown;
    return JSON.stringify({
      id: row.id,
      created: row.created,
      type: row.type,
      actor,
      ca_serial: row.caSerial,
      serial: row.serial,
      data,
      hash: row.hash,
    });
  }
  const values = [row.id, row.created, row.type, actor.type, actor.name, actor.id, actor.protocol, actor.address];
  return [...values, row.caSerial, row.serial, row.dataText, row.hash].map(auditCsvField).join(',');
}

/** `--since`: an event id (records after it) or an ISO 8601 date/time (records committed from then). */
function sinceFilter(since: string | undefined): Pick<AuditFilter, 'afterId' | 'since'> {
  if (since === undefined) return {};
  if (/^\d+$/.test(since.trim())) return { afterId: Number(since.trim()) };
  const when = /^\d{4}-\d{2}-\d{2}/.test(since.trim()) ? new Date(since.trim()) : new Date(NaN);
  if (Number.isNaN(when.getTime())) throw new CaError('invalid', `--since ${since}: neither an event id nor an ISO 8601 date.`);
  return { since: when };
}

export function registerAuditCommands(program: Command, run: Action): void {
  program
    .command('verify_audit_log')
    .description("Recompute the audit log's hash chain: exit 0 if intact, else name the first record that breaks it.")
    .action(
      run(async (ctx: CommandContext) => {
        const verdict = await verifyAuditChain((await ctx.store()).auditLog);
        if (!verdict.intact) {
          const after = verdict.previousId === null ? 'the start of the log' : `record ${verdict.previousId}`;
          throw new CaError(
            'invalid',
            `Audit log broken at record ${verdict.brokenAt}: its hash does not follow from ${after} ` +
              `(the record was changed, or one before it removed or inserted). ${verdict.records} record(s) before it are intact.`,
          );
        }
        ctx.write(`Audit log intact: ${verdict.records} record(s), chain head ${verdict.head}.\n`);
      }),
    );

  program
    .command('audit_log')
    .description('Export audit log records, oldest first, as JSON lines or CSV.')
    .option('--since <id-or-date>', 'records after this event id, or committed from this ISO 8601 date/time')
    .option('--ca <ca>', "only this CA's records (serial or name)")
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl', 'csv']).default('jsonl'))
    .action(
      run(async (ctx: CommandContext, o: { since?: string; ca?: string; format: 'jsonl' | 'csv' }) => {
        const store = await ctx.store();
        const log = store.auditLog;
        const filter: AuditFilter = { ...sinceFilter(o.since), limit: PAGE };
        if (o.ca !== undefined) filter.caSerial = (await findCa(store, o.ca, { allowDisabled: true })).serial;
        if (o.format === 'csv') ctx.write(CSV_COLUMNS.join(',') + '\n');
        for (let afterId = filter.afterId ?? 0; ;) {
          const page = await log.auditRows({ ...filter, afterId });
          if (!page.length) break;
          ctx.write(page.map((row) => auditLine(row, o.format) + '\n').join(''));
          afterId = page[page.length - 1].id;
        }
      }),
    );
}
