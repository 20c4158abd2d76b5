/**
 * `EnrolmentStore` (lib/ports/enrolment-challenges.ts) as `store.enrolment`: one-time challenges in
 * `ca_api_enrolment_challenges` (migration 0019) and answered transactions in
 * `ca_api_enrolment_transactions` (migration 0020), on the store's connection or transaction.
 */
import type { Knex } from 'knex';
import type {
  CertificateRecord,
  EnrolmentChallengeRecord,
  EnrolmentStore,
  EnrolmentTransactionKey,
  NewCertificate,
  NewEnrolmentChallenge,
} from '../../../lib/ports';
import { CERTIFICATE_COLUMN_LIST, CERTIFICATE_PLACEHOLDERS, certificateBindings } from './certificate-values';
import { insertedCertificateRecord } from './certificates';
import { mappingErrors } from './errors';
import { TABLES } from './tables';
import { fromNullableJson, toDate, toNullableDate, toNullableJson, toNumber } from './values';

/** Requests waiting for approval: the other half of device enrolment's store (`store.enrolmentRequests`). */
export { KnexEnrolmentRequestStore } from './enrolment-requests';

interface Row {
  id: unknown;
  protocol: string;
  label: string;
  secret_sha256: string;
  subject: unknown;
  san: unknown;
  created: unknown;
  expires: unknown;
  used: unknown;
  certificate_serial: string | null;
}

function record(row: Row): EnrolmentChallengeRecord {
  return {
    id: toNumber(row.id),
    protocol: row.protocol,
    label: row.label,
    secretSha256: row.secret_sha256,
    subject: fromNullableJson(row.subject),
    san: fromNullableJson(row.san),
    created: toDate(row.created),
    expires: toDate(row.expires),
    used: toNullableDate(row.used),
    certificateSerial: row.certificate_serial,
  };
}

const transactionKey = (k: EnrolmentTransactionKey) => ({
  protocol: k.protocol,
  label: k.label,
  transaction_id: k.transactionId,
  public_key_sha256: k.publicKeySha256,
});

export class KnexEnrolmentStore implements EnrolmentStore {
  constructor(private readonly db: Knex) {}

  createEnrolmentChallenge(c: NewEnrolmentChallenge): Promise<EnrolmentChallengeRecord> {
    return mappingErrors(async () => {
      const [row] = (await this.db(TABLES.enrolmentChallenges)
        .insert({
          protocol: c.protocol,
          label: c.label,
          secret_sha256: c.secretSha256,
          subject: toNullableJson(c.subject),
          san: toNullableJson(c.san),
          expires: c.expires,
        })
        .returning('*')) as Row[];
      return record(row);
    });
  }

  findEnrolmentChallenge(secretSha256: string): Promise<EnrolmentChallengeRecord | null> {
    return mappingErrors(async () => {
      const row = (await this.db(TABLES.enrolmentChallenges).where({ secret_sha256: secretSha256 }).first()) as Row | undefined;
      return row ? record(row) : null;
    });
  }

  useEnrolmentChallenge(id: number, certificateSerial: string | null, at: Date): Promise<boolean> {
    return mappingErrors(async () => {
      const changed = await this.db(TABLES.enrolmentChallenges)
        .where({ id })
        .whereNull('used')
        .update({ used: at, certificate_serial: certificateSerial });
      return changed === 1;
    });
  }

  findEnrolmentTransaction(key: EnrolmentTransactionKey): Promise<{ caId: number; certificateSerial: string } | null> {
    return mappingErrors(async () => {
      const row = (await this.db(TABLES.enrolmentTransactions).where(transactionKey(key)).first()) as
        { ca_id: unknown; certificate_serial: string } | undefined;
      return row ? { caId: toNumber(row.ca_id), certificateSerial: row.certificate_serial } : null;
    });
  }

  recordEnrolmentTransaction(key: EnrolmentTransactionKey, answer: { caId: number; certificateSerial: string }): Promise<boolean> {
    return mappingErrors(async () => {
      const inserted = (await this.db(TABLES.enrolmentTransactions)
        .insert({ ...transactionKey(key), ca_id: answer.caId, certificate_serial: answer.certificateSerial })
        .onConflict(['protocol', 'label', 'transaction_id', 'public_key_sha256'])
        .ignore()
        .returning('ca_id')) as unknown[];
      return inserted.length === 1;
    });
  }

  /**
   * One statement instead of a transaction of two: the transaction's row goes in unless it is there
   * already, and the certificate only with it (the foreign key of the row is checked at the end of the
   * statement, when the certificate is in). No transaction holds the embedded database's connection.
   */
  insertAnsweringCertificate(key: EnrolmentTransactionKey, certificate: NewCertificate): Promise<CertificateRecord | null> {
    return mappingErrors(async () => {
      const now = new Date();
      const result = (await this.db.raw(
        `with recorded as (
           insert into ?? (protocol, label, transaction_id, public_key_sha256, ca_id, certificate_serial)
           values (?, ?, ?, ?, ?, ?)
           on conflict (protocol, label, transaction_id, public_key_sha256) do nothing
           returning ca_id
         )
         insert into ?? (${CERTIFICATE_COLUMN_LIST}, created, updated)
         select ${CERTIFICATE_PLACEHOLDERS}, ?::timestamptz, ?::timestamptz where exists (select 1 from recorded)
         returning id`,
        [
          TABLES.enrolmentTransactions,
          key.protocol,
          key.label,
          key.transactionId,
          key.publicKeySha256,
          certificate.caId,
          certificate.serial,
          TABLES.certificates,
          ...certificateBindings(certificate),
          now,
          now,
        ],
      )) as { rows: { id: unknown }[] };
      const [row] = result.rows;
      return row ? insertedCertificateRecord(certificate, toNumber(row.id), now) : null;
    });
  }
}
