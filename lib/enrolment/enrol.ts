/**
 * The enrolment core's one way to make a certificate (docs/DESIGN.md "Enrolment"): the CSR's
 * self-signature verified (proof of possession), its subject and subjectAltName checked against the
 * endpoint's name policy (lib/enrolment/name-policy.ts) and asked for as they are, the endpoint's
 * profile and validity (its `validityDays`, else the profile's; clamped by the CA) applied by
 * the authority's `prepareIssuance`, then the one issuance service of lib/ca signs and stores it with the device's
 * requester. EST and SCEP differ in how a request arrives and is authenticated, never in this.
 */
import { createHash } from 'crypto';
import { CaError } from '../ca/errors';
import { issue, keepAlone, keepAsAnswer, keepLinked, type Keep } from '../ca/issuance/issue';
import { prepareIssuance } from '../ca/issuance/prepare';
import { loadPolicyContext, type PolicyContext } from '../ca/policy/context';
import type { Signing } from '../ca/issuance/sign';
import type { Profiles } from '../ca/profiles';
import { validityEnd } from '../ca/signing-ca';
import {
  type Actor,
  type CaRecord,
  type CertificateRecord,
  type EnrolmentTransactionKey,
  type SignatureVerifier,
  type Store,
} from '../ports';
import { parseCsr, parseVerifiedCsr, type ParsedCsr } from '../x509/csr';
import { DAY_MS } from '../x509/datetime';
import { X509Error } from '../x509/errors';
import { EnrolmentError } from './errors';
import { recordWith, RepeatedTransaction } from './transactions';
import { checkNamePolicy, type EnrolmentNamePolicy } from './name-policy';

/** What enrolling needs of the router: the store, the CA keys and profiles, the default profile. */
export interface EnrolmentServices {
  store: Store;
  signing: Signing & { profiles: Profiles };
  /** The router's default profile (`CA_DEFAULT_PROFILE`). */
  defaultProfile: string;
  /** Checks CSR self-signatures off the event loop (the router's worker threads); absent or null: on it. */
  verifier?: SignatureVerifier | null;
  /** Where the issuing policy reads the CAs (the router's CA cache); absent: the store. */
  cas?: Pick<Store, 'listCas'>;
}

/** The CA's issuing policy context for enrolling at `target` (docs/guides/issuance-policy.md). */
export function enrolmentPolicy(services: EnrolmentServices, target: EnrolmentTarget): Promise<PolicyContext> {
  return loadPolicyContext(services.cas ?? services.store, target.ca);
}

/** Where a request enrols: the CA, and the profile (null: the router's default). */
export interface EnrolmentTarget {
  ca: CaRecord;
  profile: string | null;
  /** Validity of the certificate in days, clamped by the CA; null or absent: the profile's or the CA's default. */
  validityDays?: number | null;
  /** The endpoint's name policy (lib/enrolment/name-policy.ts); null or absent: any name. */
  names?: EnrolmentNamePolicy | null;
}

/** A refusal of the request's content: 400 / badRequest with the engine's reason. */
function refused(e: unknown): never {
  if (e instanceof X509Error || e instanceof CaError)
    throw new EnrolmentError(400, `The certificate request cannot be signed: ${e.message}`);
  throw e;
}

/** The PKCS#10 `der`, parsed and its self-signature verified (proof of possession) by `verifier` where given; else 400. */
export async function readCsr(der: Buffer, verifier: SignatureVerifier | null = null): Promise<ParsedCsr> {
  try {
    if (!verifier) return parseCsr(der, { verify: true });
    return await parseVerifiedCsr(der, (algorithm, spki, data, signature) => verifier.verify(algorithm, spki, data, signature));
  } catch (e) {
    refused(e);
  }
}

/** What is stored with the certificate: nothing more, a `link`, the answer of a transaction, or both. */
export interface KeptWith {
  /** Runs in the transaction that stores it (a one-time challenge used up); if it throws, nothing is stored. */
  link?: (tx: Store, certificate: CertificateRecord) => Promise<void>;
  /** The certificate is this transaction's answer (lib/enrolment/transactions.ts); `RepeatedTransaction` if it has one. */
  answers?: EnrolmentTransactionKey;
}

/**
 * How to keep a certificate with what goes with it, in as few writes as the store allows: alone, one
 * INSERT grouped with concurrent ones; as a transaction's answer, one statement where the store has
 * one (`insertAnsweringCertificate`); with a link, one transaction. No transaction holds the embedded
 * database's one connection unless a link needs it.
 */
function keeping(store: Store, ca: CaRecord, { link, answers }: KeptWith): Keep<CertificateRecord> {
  if (!link && !answers) return keepAlone(store);
  if (!link && answers) return keepAsAnswer(store.enrolment, answers, () => new RepeatedTransaction());
  return keepLinked(store, async (tx, certificate) => {
    await link?.(tx, certificate);
    if (answers) await recordWith(answers, ca)(tx, certificate);
  });
}

/**
 * What signing `csr` at `target` would sign (the endpoint's profile and validity, clamped by the CA), checked as
 * signing checks it; else 400. Also what a request waiting for approval must pass before it waits
 * (lib/enrolment/approval.ts): an operator is never asked about a request that cannot be signed.
 */
export function enrolmentRequest(
  services: EnrolmentServices,
  target: EnrolmentTarget,
  csr: ParsedCsr,
  policy: PolicyContext,
  now = new Date(),
) {
  const san = csr.requestedExtensions.filter((e) => e.type === 'subject_alternative_name');
  if (csr.subject.length === 0 && san.length === 0) {
    throw new EnrolmentError(400, 'The certificate request names nothing: give a subject or a subjectAltName.');
  }
  // Every issuance at the endpoint, renewals and approvals too: a policy tightened since stops a renewal (docs/guides/est.md).
  checkNamePolicy(target.names ?? null, csr);
  try {
    return prepareIssuance(
      {
        csr,
        subject: csr.subject,
        extensions: san.map((e) => ({ ...e, critical: csr.subject.length === 0 })),
        profile: target.profile ?? services.defaultProfile,
        notAfter: target.validityDays ? validityEnd(target.ca, now, target.validityDays * DAY_MS) : null,
      },
      {
        ca: target.ca,
        profiles: services.signing.profiles,
        defaultProfile: services.defaultProfile,
        defaultExpiresMs: services.signing.defaultExpiresMs,
        now,
        policy,
      },
    );
  } catch (e) {
    refused(e);
  }
}

/**
 * What the intent of a transaction's answer answers (lib/ports/intents.ts): a repetition racing the
 * first request meets the first's intent before it signs anything. Hashed: the key's parts exceed the column.
 */
function transactionIntent(key: EnrolmentTransactionKey): string {
  const text = JSON.stringify([key.protocol, key.label, key.transactionId, key.publicKeySha256]);
  return `enrolment:${createHash('sha256').update(text).digest('hex')}`;
}

/** Sign `csr` at `target` for `requester` and keep it as `kept` says: the stored certificate. */
export async function enrol(
  services: EnrolmentServices,
  target: EnrolmentTarget,
  csr: ParsedCsr,
  requester: Actor,
  kept: KeptWith = {},
): Promise<CertificateRecord> {
  const now = new Date();
  const request = enrolmentRequest(services, target, csr, await enrolmentPolicy(services, target), now);
  try {
    const asked = { requester, door: requester.protocol, answers: kept.answers ? transactionIntent(kept.answers) : null };
    return await issue(services.signing, target.ca, request, asked, keeping(services.store, target.ca, kept), now);
  } catch (e) {
    refused(e);
  }
}
