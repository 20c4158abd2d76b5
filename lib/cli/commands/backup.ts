/**
 * backup, restore and verify_restore (docs/operations/backup-restore.md): a consistent copy of the
 * embedded database, its restore into a new directory, and the checks a restored database passes
 * before it serves (lib/cli/restore-check.ts). PostgreSQL is backed up with its own tools; after its
 * restore, verify_restore runs the same checks.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Command } from 'commander';
import { CaError } from '../../ca/errors';
import { checkRestoredDatabase, parseAuditExport, type ExportedAuditRecord, type RestoreReport } from '../restore-check';
import { actingAs, type Store } from '../../ports';
import type { CommandContext } from '../context';
import type { Action } from './shared';

function readExport(file: string | undefined): ExportedAuditRecord[] | null {
  if (file === undefined) return null;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CaError('invalid', `--audit-log ${file}: ${(e as Error).message}`);
  }
  return parseAuditExport(text);
}

/** The check's outcome in one sentence. */
function summary(report: RestoreReport): string {
  const last = report.lastRecord;
  const audit = last
    ? `audit log intact (${report.auditRecords} record(s), the newest #${last.id} of ${last.created}: the backup's moment)`
    : 'audit log intact (no records)';
  const keys = `${report.casChecked.length} CA key(s) open`;
  const after = !report.exportRead
    ? 'what happened after the backup is not in it (--audit-log FILE lists it)'
    : `${report.issuedAfter.length} certificate(s) issued and ${report.revokedAfter.length} revocation(s) after the backup missing`;
  return `${audit}, ${keys}, ${after}`;
}

/** What the operator has to do about what happened after the backup, line by line. */
function details(report: RestoreReport): string[] {
  const lines: string[] = [];
  if (!report.exportRead) {
    const since = report.lastRecord ? ` (its records after #${report.lastRecord.id})` : '';
    lines.push(
      `Certificates issued or revoked after the backup are not in this database: list them from an audit log export of the lost database${since}, ` +
        'made with ca-admin audit_log --format jsonl and kept elsewhere, given as --audit-log FILE.',
    );
    return lines;
  }
  if (report.issuedAfter.length) {
    lines.push(
      'Certificates issued after the backup that this database does not hold (OCSP answers "unknown" for them): import them with import_cert, or revoke them:',
    );
    for (const c of report.issuedAfter) lines.push(`  ${c.serial} (CA ${c.caSerial ?? '?'}): ${c.type} at ${c.created}`);
  }
  if (report.revokedAfter.length) {
    lines.push(
      'Revocations after the backup that this database does not know (OCSP answers "good" for them): revoke them again with revoke_cert:',
    );
    for (const r of report.revokedAfter) lines.push(`  ${r.serial} (CA ${r.caSerial ?? '?'}): revoked at ${r.created}`);
  }
  return lines;
}

/** Empty `directory` again (restore's promise: nothing is left after a failure). */
function emptyDirectory(directory: string): void {
  for (const name of fs.readdirSync(directory)) fs.rmSync(path.join(directory, name), { recursive: true, force: true });
}

export function registerBackupCommands(program: Command, run: Action): void {
  program
    .command('backup')
    .description(
      'Write a consistent backup of the embedded database to FILE (also while the example server runs). PostgreSQL: use pg_dump.',
    )
    .argument('<file>', 'the backup file to write (must not exist)')
    .action(
      run(async (ctx: CommandContext, file: string) => {
        const backup = ctx.io.backupDatabase;
        if (!backup) throw new CaError('invalid', 'This ca-admin cannot write backups (no backupDatabase given).');
        const written = await backup(ctx.io.env.DATABASE_URL, file); // the database every command opens
        const by = written.byProcess === null ? '' : ` by the server holding it (process ${written.byProcess})`;
        // It holds the CA keys encrypted, never the key-encryption key (docs/operations/backup-restore.md).
        ctx.write(`Wrote a backup of the embedded database to ${written.file} (${written.bytes} bytes)${by}.\n`);
      }),
    );

  program
    .command('restore')
    .description('Restore a backup of the embedded database into a new, empty DIRECTORY and check it (verify_restore).')
    .argument('<file>', 'a backup written by ca-admin backup')
    .argument('<directory>', 'the new database directory (must be empty or not exist)')
    .option(
      '--audit-log <file>',
      'an audit log export (audit_log --format jsonl) of the lost database: report what it did after the backup',
    )
    .action(
      run(async (ctx: CommandContext, file: string, directory: string, o: { auditLog?: string }) => {
        const restore = ctx.io.restoreDatabase;
        const openStore = ctx.io.openStore;
        if (!restore || !openStore) throw new CaError('invalid', 'This ca-admin cannot restore backups (no restoreDatabase given).');
        const newer = readExport(o.auditLog);
        await restore(file, directory);
        let store: Store | null = null;
        let report: RestoreReport;
        try {
          store = actingAs(await openStore(path.resolve(directory)), ctx.operator);
          report = await checkRestoredDatabase(store, ctx.keyBackends(), newer);
        } catch (e) {
          await store?.close().catch(() => undefined);
          emptyDirectory(path.resolve(directory));
          throw e;
        }
        await store.close();
        // One line says what changed (docs/reference/cli.md); what to do next goes to stderr, as rotate_kek's.
        ctx.write(`Restored ${file} into ${path.resolve(directory)}: ${summary(report)}.\n`);
        for (const line of details(report)) ctx.note(line);
        ctx.note(`Serve it with DATABASE_URL=${path.resolve(directory)} and the same CA_KEY_ENCRYPTION_KEY.`);
      }),
    );

  program
    .command('verify_restore')
    .description(
      "Check a restored database before it serves: the audit log's chain, every CA's key, and what the lost database did after the backup.",
    )
    .option('--audit-log <file>', 'an audit log export (audit_log --format jsonl) of the lost database')
    .action(
      run(async (ctx: CommandContext, o: { auditLog?: string }) => {
        const newer = readExport(o.auditLog);
        const report = await checkRestoredDatabase(await ctx.store(), ctx.keyBackends(), newer);
        ctx.write([`Restored database checked: ${summary(report)}.`, ...details(report)].join('\n') + '\n');
      }),
    );
}
