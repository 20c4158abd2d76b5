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
import { insertAnsweringCertificates, type AnsweringCertificate } from './enrolment-answers';
import { mappingErrors } from './errors';
import type { GroupCommit } from './group-commit';
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
  constructor(
    private readonly db: Knex,
    /** The root store's group commit of answers; none in a transaction. */
    private readonly answers?: GroupCommit<AnsweringCertificate, CertificateRecord | null>,
  ) {}

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

  /** One statement (enrolment-answers.ts); on the root store grouped with concurrent ones. */
  insertAnsweringCertificate(key: EnrolmentTransactionKey, certificate: NewCertificate): Promise<CertificateRecord | null> {
    if (this.answers) return mappingErrors(() => this.answers!.write({ key, certificate }));
    return mappingErrors(async () => (await insertAnsweringCertificates(this.db, [{ key, certificate }]))[0]);
  }
}
