/** `EnrolmentChallengeStore` (lib/ports/enrolment-challenges.ts) on `ca_api_enrolment_challenges` (migration 0019). */
import type { Knex } from 'knex';
import type { EnrolmentChallengeRecord, NewEnrolmentChallenge } from '../../../lib/ports';
import { TABLES } from './tables';
import { fromNullableJson, toDate, toNullableDate, toNullableJson, toNumber } from './values';

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

export async function createEnrolmentChallenge(db: Knex, c: NewEnrolmentChallenge): Promise<EnrolmentChallengeRecord> {
  const [row] = (await db(TABLES.enrolmentChallenges)
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
}

export async function findEnrolmentChallenge(db: Knex, secretSha256: string): Promise<EnrolmentChallengeRecord | null> {
  const row = (await db(TABLES.enrolmentChallenges).where({ secret_sha256: secretSha256 }).first()) as Row | undefined;
  return row ? record(row) : null;
}

export async function useEnrolmentChallenge(db: Knex, id: number, certificateSerial: string, at: Date): Promise<boolean> {
  const changed = await db(TABLES.enrolmentChallenges)
    .where({ id })
    .whereNull('used')
    .update({ used: at, certificate_serial: certificateSerial });
  return changed === 1;
}
