/**
 * The second step of issuance (docs/DESIGN.md "Issuance service", "Issuing authority"): a prepared
 * `SignRequest` signed with the CA's key into the certificate row to store, naming who asked for it.
 * The only place where an end-entity certificate is built and signed (test/architecture/issuance.test.ts):
 * the CA is checked again here (it may have been disabled, revoked or have expired since the request
 * was prepared), and the validity rule of lib/ca/signing-ca.ts applied.
 *
 * Every signature is recorded first: the TBSCertificate, its serial, the door, the requester and what
 * the certificate answers are written and committed as an issuance intent (lib/ports/intents.ts)
 * before the key is asked to sign — no signature without a row, whatever happens to the process
 * next. Storing the certificate is the caller's, in the transaction of whatever it links to it
 * (issue.ts, order-store.ts, delegate.ts); the statement that stores it marks its intent issued.
 */
import {
  isIntentTaken,
  type Actor,
  type CaRecord,
  type IssuanceDoor,
  type IssuanceIntentRecord,
  type NewCertificate,
  type SignRequest,
  type Store,
} from '../../ports';
import { signUnsignedCertificate, unsignedCertificate, type CertificateTemplate } from '../../x509/builder';
import { parseCertificate } from '../../x509/certificate';
import { serialToHex } from '../../x509/serial-format';
import { csrPublicKeyDer } from '../../x509/csr';
import { X509Error } from '../../x509/errors';
import type { Signer } from '../../x509/signer';
import type { Extension, HashAlgorithmName } from '../../x509/types';
import { caFacts, defaultHashFor, isEdwards } from '../ca-facts';
import { CaError } from '../errors';
import { composeExtensions, mandatoryExtensions } from '../extensions';
import { caSigner, type KeyBackends } from '../key-backends';
import { DEFAULT_EXPIRES_MS, type Profiles } from '../profiles';
import { newCertificateRecord } from '../records';
import { assertCaCanSign, floorToMinute, outlivesCa, outlivesCaMessage, validityEnd } from '../signing-ca';

/** Where signatures are recorded before they are made, and given up. */
export type IntentLedger = Pick<Store, 'recordIntent' | 'failIntent'>;

/** What signing needs: the CA keys, the profiles, the default validity (CA_DEFAULT_EXPIRES), the intent ledger. */
export interface Signing {
  keyBackends: KeyBackends;
  profiles: Profiles;
  defaultExpiresMs?: number;
  /** The store outside any transaction: an intent must be committed before its signature. */
  intents: IntentLedger;
}

/** Who asks, through which way in, and what the certificate answers: recorded with the intent. */
export interface Asked {
  requester: Actor | null;
  door: IssuanceDoor;
  /** Where a second request could ask for the same certificate (`order:12`): at most one intent answers it. */
  answers?: string | null;
  /**
   * The way in's own claim, made while the intent is recorded (ACME's move of the order to
   * `processing`): nothing is signed unless it resolves; if it rejects, the intent fails with its reason.
   */
  ready?: Promise<void>;
  /**
   * How old another pending intent for the same thing must be before this request signs its TBS
   * again (its instance is taken for dead); younger, this request is `IssuanceTaken` and signs
   * nothing. Default 0: at once. The REST order runner gives its order lease, so that two runners
   * never sign for one order side by side.
   */
  takeOverAfterMs?: number;
}

/** A certificate signed and not yet stored, with the intent recorded for it. */
export type SignedCertificate = NewCertificate & { readonly intentId: number };

/**
 * Another intent, not failed, answers the same thing (`Asked.answers`): nothing was signed. `intent`
 * is the other one: pending (another request or instance is signing it) or issued (`certificateId`).
 */
export class IssuanceTaken extends Error {
  constructor(readonly intent: IssuanceIntentRecord) {
    super(`Certificate for ${String(intent.answers)} is being issued or was issued already (intent ${intent.id}).`);
  }
}

/**
 * Sign `request` with `ca`'s key: the certificate row to store, naming `requester` (the actor of its
 * `certificate.issued` event). Throws `CaError` / `X509Error` with a human-readable message (an order
 * keeps it as its reason, docs/reference/differences.md D3).
 */
export async function signCertificate(
  signing: Signing,
  ca: CaRecord,
  request: SignRequest,
  asked: Asked,
  now: Date = new Date(),
): Promise<SignedCertificate> {
  const { hash, ...fields } = composeCertificate(signing, ca, request, now);
  const signer = await caSigner(signing.keyBackends, ca, request.keyBackendOptions);
  const { der, intentId } = await recordAndSign(
    signing,
    ca,
    { issuer: caFacts(ca).subjectDer, ...fields, signature: { hash } },
    signer,
    asked,
  );
  const certificate = newCertificateRecord(parseCertificate(der), {
    caId: ca.id,
    csr: request.csr,
    profile: request.profile,
    autogenerated: request.autogenerated,
    requester: asked.requester,
  });
  return Object.assign(certificate, { intentId });
}

/** What `request` becomes when `ca` signs it at `now`: the certificate's fields, all but its serial and signature. */
export interface ComposedCertificate {
  subject: SignRequest['subject'];
  notBefore: Date;
  notAfter: Date;
  /** The signature's hash; null for an Ed25519/Ed448 CA, whose signatures name none. */
  hash: HashAlgorithmName | null;
  publicKeyDer: Buffer;
  /** Every extension, in the certificate's order: the mandatory ones, then request > profile > CA (docs/reference/differences.md D1). */
  extensions: Extension[];
}

/**
 * The certificate `request` would become, composed as signing composes it and nothing else: no key
 * is opened, nothing is written. Signing (below) and the admin interface's preview both read it, so
 * that the preview shows exactly what "Sign" signs.
 */
export function composeCertificate(
  signing: Pick<Signing, 'profiles' | 'defaultExpiresMs'>,
  ca: CaRecord,
  request: SignRequest,
  now: Date = new Date(),
): ComposedCertificate {
  // Asked at the entry already (prepare.ts); again now, with the same words: an order waits, and its CA
  // may be revoked, disabled or expired by the time it is signed.
  assertCaCanSign(ca, now);
  const facts = caFacts(ca);
  const profile = signing.profiles.get(request.profile);

  const notBefore = floorToMinute(now);
  const notAfter = request.notAfter
    ? floorToMinute(new Date(request.notAfter))
    : validityEnd(ca, now, profile?.expiresMs ?? signing.defaultExpiresMs ?? DEFAULT_EXPIRES_MS);
  if (Number.isNaN(notAfter.getTime())) throw new CaError('invalid', `${request.notAfter}: not_after is not a datetime.`);
  if (notAfter < notBefore) throw new CaError('invalid', 'not_after is in the past.');
  if (outlivesCa(ca, notAfter)) throw new CaError('invalid', outlivesCaMessage(ca, now)); // one rule, one message (lib/ca/signing-ca.ts)

  if (request.algorithm !== null && isEdwards(facts.keyType)) {
    throw new CaError('invalid', `${facts.keyType} keys do not allow an algorithm for signing.`);
  }
  const hash = (request.algorithm as HashAlgorithmName | null) ?? defaultHashFor(facts.keyType, facts.signatureHash);

  // The CSR was parsed and verified when the request was prepared: only its key is needed now.
  const publicKeyDer = csrPublicKeyDer(request.csr);
  const extensions = [...mandatoryExtensions(facts.keyIdentifier, publicKeyDer), ...composeExtensions(request.extensions, profile, ca)];
  return { subject: request.subject, notBefore, notAfter, hash, publicKeyDer, extensions };
}

/**
 * The authority's one order of work: the TBSCertificate (serial reserved) recorded and committed as
 * an intent, then signed — never the other way round, and never inside a transaction of the caller's
 * (`signing.intents` is the store itself). A signing failure fails the intent with its reason.
 *
 * When another intent, still pending, answers the same thing (an order retried after its instance
 * died, a repeated enrolment transaction), the recorded TBSCertificate is signed again instead of a
 * new one: the serial keeps naming one to-be-signed certificate, and whichever signature is stored
 * first is the certificate — the store takes one row per serial. An intent answered already is
 * `IssuanceTaken`: nothing is signed.
 */
async function recordAndSign(
  signing: Signing,
  ca: CaRecord,
  template: CertificateTemplate,
  signer: Signer,
  asked: Asked,
): Promise<{ der: Buffer; intentId: number }> {
  let unsigned = await build(() => unsignedCertificate(template, signer.keyType));
  const recorded = await signing.intents.recordIntent({
    caId: ca.id,
    serial: serialToHex(unsigned.serialNumber),
    door: asked.door,
    requester: asked.requester,
    answers: asked.answers ?? null,
    tbs: unsigned.tbs,
  });
  let intent: IssuanceIntentRecord;
  if (isIntentTaken(recorded)) {
    intent = recorded.taken;
    const young = Date.now() - intent.created.getTime() < (asked.takeOverAfterMs ?? 0);
    const tbs = intent.tbs;
    if (young || intent.certificateId !== null || intent.caId !== ca.id || tbs === null || !tbs.includes(unsigned.algorithm)) {
      throw new IssuanceTaken(intent);
    }
    unsigned = { ...unsigned, tbs };
  } else intent = recorded;
  try {
    await asked.ready;
    return { der: await build(() => signUnsignedCertificate(unsigned, signer)), intentId: intent.id };
  } catch (e) {
    if (!isIntentTaken(recorded)) {
      await signing.intents.failIntent(intent.id, `Not signed: ${(e as Error).message}`).catch(() => undefined); // else the sweep settles it
    }
    throw e;
  }
}

/** What the CA certifies for a key it made itself (a delegate's: delegate.ts). */
export interface AutogeneratedCertificate {
  subject: CertificateTemplate['subject'];
  publicKeyDer: Buffer;
  /** The profile whose extensions it carries (`ocsp`), or only the name recorded (`scep_ra`) where no profile has it. */
  profile: string;
  /** Extensions before the profile's (a SCEP RA's key usage). */
  extensions?: readonly Extension[];
  validityMs: number;
}

/**
 * A certificate `ca` issues to a key of its own making, without a CSR (`autogenerated`). The CA is not
 * checked for `enabled` here: a disabled CA still answers OCSP for what it issued (docs/guides/revocation.md),
 * and its responder must be renewed for that.
 */
export async function signAutogenerated(
  signing: Signing,
  ca: CaRecord,
  made: AutogeneratedCertificate,
  asked: Asked,
  now: Date = new Date(),
): Promise<SignedCertificate> {
  const facts = caFacts(ca);
  const notBefore = floorToMinute(now);
  const { der, intentId } = await recordAndSign(
    signing,
    ca,
    {
      issuer: facts.subjectDer,
      subject: made.subject,
      notBefore,
      notAfter: validityEnd(ca, notBefore, made.validityMs),
      publicKeyDer: made.publicKeyDer,
      extensions: [
        ...mandatoryExtensions(facts.keyIdentifier, made.publicKeyDer),
        ...composeExtensions(made.extensions ?? [], signing.profiles.get(made.profile), ca),
      ],
      signature: { hash: defaultHashFor(facts.keyType, facts.signatureHash) },
    },
    await caSigner(signing.keyBackends, ca),
    asked,
  );
  const certificate = newCertificateRecord(parseCertificate(der), {
    caId: ca.id,
    csr: null,
    profile: made.profile,
    autogenerated: true,
    requester: asked.requester,
  });
  return Object.assign(certificate, { intentId });
}

/** `make`'s certificate part; a key's failure as the CA's error (its message is an order's reason). */
async function build<T>(make: () => T | Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (e) {
    if (e instanceof X509Error || e instanceof CaError) throw e;
    throw new CaError('key', `Could not sign certificate: ${(e as Error).message}`);
  }
}
