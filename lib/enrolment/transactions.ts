/**
 * Answering a repeated request as it was answered (docs/guides/scep.md): a device that lost the answer, or
 * micromdm's scepclient re-sending its PKCSReq, asks again with the same transaction and key. The
 * first answer is recorded with the certificate, in the transaction that stores it (`recordWith`),
 * and a repetition gets that certificate back (`previousAnswer`) — no second certificate, and no
 * second use of a one-time challenge. Two repetitions racing: the record's primary key lets one win,
 * the other's certificate is rolled back and it gets the winner's.
 */
import * as crypto from 'crypto';
import type { CaRecord, CertificateRecord, EnrolmentTransactionKey, Store } from '../ports';
import { EnrolmentError } from './errors';
import { IssuanceTaken } from '../ca/issuance/sign';

/** The key of a request: its protocol, endpoint label, transaction and the SHA-256 of its public key(s). */
export function transactionKey(protocol: string, label: string, transactionId: string, publicKeys: Buffer): EnrolmentTransactionKey {
  return { protocol, label, transactionId, publicKeySha256: crypto.createHash('sha256').update(publicKeys).digest('hex') };
}

/** The certificate this transaction was answered with at `ca`, or null when it is a new one. */
export async function previousAnswer(store: Store, ca: CaRecord, key: EnrolmentTransactionKey): Promise<CertificateRecord | null> {
  const answer = await store.enrolment.findEnrolmentTransaction(key);
  if (!answer || answer.caId !== ca.id) return null;
  return store.findCertificate(ca.id, answer.certificateSerial);
}

/** A raced repetition: the other request recorded its answer first. */
export class RepeatedTransaction extends Error {
  constructor() {
    super('the transaction was answered by another request meanwhile');
  }
}

/**
 * The link (lib/enrolment/enrol.ts) that records `key`'s answer with the certificate; throws
 * `RepeatedTransaction` — rolling the certificate back — when one was recorded first.
 */
export function recordWith(key: EnrolmentTransactionKey, ca: CaRecord): (tx: Store, certificate: CertificateRecord) => Promise<void> {
  return async (tx, certificate) => {
    if (!(await tx.enrolment.recordEnrolmentTransaction(key, { caId: ca.id, certificateSerial: certificate.serial }))) {
      throw new RepeatedTransaction();
    }
  };
}

/**
 * `issue` (a PKCSReq, a RenewalReq) answered once per transaction: a repetition, even a racing one,
 * gets the first answer. The answer is looked for only when `issue` fails — a repetition always does:
 * the first request's issuance intent answers the transaction already (`IssuanceTaken`, before
 * anything is signed), its certificate cannot be stored beside the first answer
 * (`RepeatedTransaction`), and a one-time challenge it carries was used up — so that a new request,
 * nearly every request, costs no lookup (docs/DESIGN.md "Enrolment throughput"). A repetition may
 * thus be checked again (its challenge, a webhook asked again).
 */
export async function oncePerTransaction(
  store: Store,
  ca: CaRecord,
  key: EnrolmentTransactionKey,
  issue: () => Promise<CertificateRecord>,
): Promise<CertificateRecord> {
  try {
    return await issue();
  } catch (e) {
    // A lookup that fails too (the database gone) must not hide why `issue` failed.
    const previous = await previousAnswer(store, ca, key).catch(() => null);
    if (previous) return previous;
    if (e instanceof RepeatedTransaction || e instanceof IssuanceTaken) {
      throw new EnrolmentError(400, 'The transaction was answered meanwhile; ask again.');
    }
    throw e;
  }
}
