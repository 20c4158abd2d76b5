/**
 * SCEP transactions answered together with their certificates (`EnrolmentStore.insertAnsweringCertificate`,
 * lib/ports): the certificate and the record of the transaction's answer (migration 0020) in ONE
 * statement, followed by the certificates' events (transaction-events.ts), and on the root store
 * several requests' in one (group-commit.ts).
 *
 * The transaction's row goes in unless the transaction has an answer already, and a certificate only
 * with the row that names its serial: of two requests of one transaction, in one statement or two,
 * exactly one is stored. The row's foreign keys are checked at the end of the statement, when the
 * certificate is in.
 */
import type { Knex } from 'knex';
import type { CertificateRecord, EnrolmentTransactionKey, NewCertificate } from '../../../lib/ports';
import { CERTIFICATE_COLUMN_LIST, CERTIFICATE_PLACEHOLDERS, certificateBindings, certificateColumnsOf } from './certificate-values';
import { insertedCertificateRecord } from './certificates';
import { certificateStored } from './event-data';
import { newCertificateToRow, type Row } from './rows';
import { TABLES } from './tables';
import { writeWithEvents, type RecordEvents } from './transaction-events';
import { toNumber } from './values';

export interface AnsweringCertificate {
  key: EnrolmentTransactionKey;
  certificate: NewCertificate;
}

/**
 * Each certificate stored as its transaction's answer, or null where the transaction had one already;
 * in input order. With the events of those stored, in a transaction of their own (or the one `db` is:
 * transaction-events.ts).
 */
export async function insertAnsweringCertificates(db: Knex, items: AnsweringCertificate[]): Promise<(CertificateRecord | null)[]> {
  if (items.length === 0) return [];
  return writeWithEvents(db, null, null, (db, record) => insertAnswering(db, items, record));
}

async function insertAnswering(db: Knex, items: AnsweringCertificate[], record: RecordEvents): Promise<(CertificateRecord | null)[]> {
  const now = new Date();
  const rowSql = `(?::text, ?::text, ?::text, ?::text, ${CERTIFICATE_PLACEHOLDERS})`;
  // Each certificate's row made once, for the statement and for the record returned.
  const rows = items.map(({ certificate }) => newCertificateToRow(certificate));
  const bindings = items.flatMap(({ key, certificate }, i) => [
    key.protocol,
    key.label,
    key.transactionId,
    key.publicKeySha256,
    ...certificateBindings(certificate, rows[i]),
  ]);
  const result = (await db.raw(
    `with incoming (protocol, label, transaction_id, public_key_sha256, ${CERTIFICATE_COLUMN_LIST}) as (values ${items.map(() => rowSql).join(', ')}),
     recorded as (
       insert into ?? (protocol, label, transaction_id, public_key_sha256, ca_id, certificate_serial)
       select protocol, label, transaction_id, public_key_sha256, ca_id, serial from incoming
       on conflict (protocol, label, transaction_id, public_key_sha256) do nothing
       returning protocol, label, transaction_id, public_key_sha256, ca_id, certificate_serial
     )
     insert into ?? (${CERTIFICATE_COLUMN_LIST}, created, updated)
     select ${certificateColumnsOf('i')}, ?::timestamptz, ?::timestamptz
     from incoming i join recorded r
       on r.protocol = i.protocol and r.label = i.label and r.transaction_id = i.transaction_id
      and r.public_key_sha256 = i.public_key_sha256 and r.ca_id = i.ca_id and r.certificate_serial = i.serial
     returning id, ca_id, serial`,
    [...bindings, TABLES.enrolmentTransactions, TABLES.certificates, now, now],
  )) as { rows: Row[] };
  // Matched by (ca_id, serial), which is unique, rather than trusted by position.
  const ids = new Map(result.rows.map((r) => [`${toNumber(r.ca_id)}:${String(r.serial)}`, toNumber(r.id)]));
  return items.map(({ certificate }, i) => {
    const id = ids.get(`${certificate.caId}:${certificate.serial}`);
    if (id === undefined) return null;
    record(certificateStored(certificate, null));
    return insertedCertificateRecord(certificate, id, now, rows[i]);
  });
}
