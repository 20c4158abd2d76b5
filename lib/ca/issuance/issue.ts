/**
 * The issuing service's entry (docs/DESIGN.md "Issuance service"): every certificate the library
 * makes is signed by sign.ts and stored by one of the `keep` functions here, in one transaction (or
 * one statement) with whatever the way in links to it — nothing else in the library builds or stores a
 * certificate (test/architecture/issuance.test.ts).
 *
 *   issue(signing, ca, request, requester, keep)   sign now and keep: ca-admin sign_cert/resign_cert
 *                                                  (`keepAlone`), ACME finalize (`keepWithAcmeOrder`),
 *                                                  a REST order signed in its request (`keepAsIssuedOrder`)
 *   placeOrder (place-order.ts)                    a REST order, signed now or by a runner (order-store.ts)
 *   issueResponder (responder.ts)                  the CA's automatic OCSP responder certificate
 *   importCertificate                              a certificate signed elsewhere (ca-admin import_cert)
 *
 * The requester — the API user, ACME account, operator or the library itself, with the client's
 * address — is written with the certificate row and is the actor of its `certificate.issued` event
 * (migration 0017): a new way in names its requester and needs no migration for the audit log.
 */
import type {
  AcmeOrderStep,
  AcmeStore,
  Actor,
  CaRecord,
  CertificateRecord,
  EnrolmentStore,
  EnrolmentTransactionKey,
  IssuedOrderStore,
  NewCertificate,
  NewOrder,
  OrderRecord,
  SignRequest,
  Store,
} from '../../ports';
import { parseCertificate } from '../../x509/certificate';
import { CaError } from '../errors';
import { newCertificateRecord } from '../records';
import { isConnectionLost } from '../../ports';
import { signCertificate, type Asked, type IntentLedger, type SignedCertificate, type Signing } from './sign';

/** Stores a signed certificate together with what the way in links to it; one transaction or statement. */
export type Keep<T> = (certificate: NewCertificate) => Promise<T>;

/** Sign `request` with `ca`'s key now, for whoever `asked`, and `keep` it. */
export async function issue<T>(signing: Signing, ca: CaRecord, request: SignRequest, asked: Asked, keep: Keep<T>, now?: Date): Promise<T> {
  return keepSigned(signing.intents, await signCertificate(signing, ca, request, asked, now), keep);
}

/**
 * `keep` a certificate just signed. When `keep` refuses it — the way in's state moved on while the
 * key was signing (the CA revoked meanwhile, a one-time challenge used by another request, the order
 * finished elsewhere) — the certificate is not issued: it never left the process, and its intent,
 * which holds the TBSCertificate, is failed with the refusal, so the signature stays on record
 * (docs/DESIGN.md "Issuing authority"). The refusal is thrown on. An outage leaves the intent pending
 * until `settleInterruptedIntents` marks it failed.
 */
export async function keepSigned<T>(ledger: IntentLedger, certificate: SignedCertificate, keep: Keep<T>): Promise<T> {
  try {
    return await keep(certificate);
  } catch (refusal) {
    if (!isConnectionLost(refusal)) await recordNotIssued(ledger, certificate, refusal);
    throw refusal;
  }
}

/** A signed certificate its way in refused: its intent failed with why (the certificate is not stored). */
export async function recordNotIssued(ledger: IntentLedger, certificate: SignedCertificate, refusal: unknown): Promise<void> {
  const why = refusal instanceof Error ? refusal.message : String(refusal);
  await ledger.failIntent(certificate.intentId, `Signed, not issued (it never left the process): ${why}`).catch(() => undefined); // an outage: the sweep settles the intent
}

/**
 * The certificate alone, in one statement (the command line; an enrolment that links nothing): the
 * knex store writes concurrent ones as one INSERT (docs/DESIGN.md "Group commit").
 */
export function keepAlone(store: Pick<Store, 'insertCertificate'>): Keep<CertificateRecord> {
  return (certificate) => store.insertCertificate(certificate);
}

/**
 * The certificate and what `link` writes for it (a one-time enrolment challenge used up), in one
 * transaction: if `link` throws, the certificate is not stored either.
 */
export function keepLinked(
  store: Pick<Store, 'transaction'>,
  link: (tx: Store, certificate: CertificateRecord) => Promise<void>,
): Keep<CertificateRecord> {
  return (certificate) =>
    store.transaction(async (tx) => {
      const stored = await tx.insertCertificate(certificate);
      await link(tx, stored);
      return stored;
    });
}

/**
 * As the answer of an enrolment transaction (EST/SCEP, lib/enrolment/transactions.ts), in one
 * statement: `repeated()` is thrown, and nothing stored, when the transaction has its answer already.
 */
export function keepAsAnswer(
  enrolment: Pick<EnrolmentStore, 'insertAnsweringCertificate'>,
  key: EnrolmentTransactionKey,
  repeated: () => Error,
): Keep<CertificateRecord> {
  return async (certificate) => {
    const stored = await enrolment.insertAnsweringCertificate(key, certificate);
    if (!stored) throw repeated();
    return stored;
  };
}

/** With its ACME order's step applied (made `valid`, RFC 8555 §7.4; lib/acme/state-machine.ts `onIssued`), in one statement. */
export function keepWithAcmeOrder(acme: Pick<AcmeStore, 'completeIssuance'>, order: AcmeOrderStep): Keep<CertificateRecord> {
  return (certificate) => acme.completeIssuance(order, certificate);
}

/**
 * As a REST order written already issued, in one statement (the store's `createIssuedOrder`,
 * docs/DESIGN.md "Orders signed in the request"); null when the CA was revoked or removed meanwhile.
 */
export function keepAsIssuedOrder(store: IssuedOrderStore, order: NewOrder): Keep<OrderRecord | null> {
  return (certificate) => store.createIssuedOrder({ ...order, certificate });
}

/**
 * A certificate signed elsewhere, stored under `ca` with no CSR and no profile (docs/COMPATIBILITY.md
 * §4.4): `certificate.imported` by `requester`.
 */
export async function importCertificate(
  store: Pick<Store, 'findCertificateBySerial' | 'insertCertificate'>,
  ca: CaRecord,
  certificate: string | Buffer,
  requester: Actor | null = null,
): Promise<CertificateRecord> {
  const parsed = parseCertificate(certificate);
  if ((await store.findCertificateBySerial(parsed.serial)).some((c) => c.caId === ca.id)) {
    throw new CaError('conflict', `${parsed.serial}: Certificate already exists.`);
  }
  return store.insertCertificate(newCertificateRecord(parsed, { caId: ca.id, csr: null, requester }));
}
