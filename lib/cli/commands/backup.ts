/**
 * backup, restore and verify_restore (docs/operations/backup-restore.md): a consistent copy of the
 * embedded database, its restore into a new directory, and the checks a restored database passes
 * before it serves (lib/ca/restore-check.ts). PostgreSQL is backed up with its own tools; after its
 * restore, verify_restore runs the same checks.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Command } from 'commander';
import { CaError } from '../../ca/errors';
import { checkRestoredDatabase, parseAuditExport, type ExportedAuditRecord, type RestoreReport } from '../../ca/restore-check';
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

function reportLines(report: RestoreReport): string {
  const lines: string[] = [];
  const last = report.lastRecord;
  lines.push(
    last
      ? `Audit log intact: ${report.auditRecords} record(s); the newest, #${last.id}, was committed at ${last.created} (the backup's moment).`
      : 'Audit log intact: no records.',
  );
  lines.push(report.casChecked.length ? `CA keys open: ${report.casChecked.join(', ')}.` : 'No CA keys to open.');
  if (!report.exportRead) {
    lines.push(
      `Certificates issued or revoked after the backup are not in this database. List them from an audit log export of the lost database ` +
        `(ca-admin audit_log --format jsonl, kept elsewhere) with --audit-log FILE${last ? `, or read its records after #${last.id}` : ''}.`,
    );
    return lines.join('\n') + '\n';
  }
  if (report.issuedAfter.length) {
    lines.push(
      `Certificates issued after the backup that this database does not hold (OCSP answers "unknown" for them): revoke them, or import them with import_cert:`,
    );
    for (const c of report.issuedAfter) lines.push(`  ${c.serial} (CA ${c.caSerial ?? '?'}): ${c.type} at ${c.created}`);
  } else lines.push('No certificate was issued after the backup.');
  if (report.revokedAfter.length) {
    lines.push(
      'Revocations after the backup that this database does not know (OCSP answers "good" for them): revoke them again with revoke_cert:',
    );
    for (const r of report.revokedAfter) lines.push(`  ${r.serial} (CA ${r.caSerial ?? '?'}): revoked at ${r.created}`);
  } else lines.push('No revocation after the backup is missing.');
  return lines.join('\n') + '\n';
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
        const written = await backup(ctx.io.env.DATABASE_URL ?? ctx.settings.dataDir, file);
        const by = written.byProcess === null ? '' : ` by the server holding it (process ${written.byProcess})`;
        ctx.write(`Wrote a backup of the embedded database to ${written.file} (${written.bytes} bytes)${by}.\n`);
        ctx.write('It holds the CA keys encrypted, never the key-encryption key: keep that apart (docs/operations/backup-restore.md).\n');
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
        ctx.write(`Restored ${file} into ${path.resolve(directory)}.\n`);
        ctx.write(reportLines(report));
        ctx.write(`Serve it with DATABASE_URL=${path.resolve(directory)} and the same CA_KEY_ENCRYPTION_KEY.\n`);
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
        ctx.write(reportLines(await checkRestoredDatabase(await ctx.store(), ctx.keyBackends(), newer)));
      }),
    );
}
