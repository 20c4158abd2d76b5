/**
 * Challenge passwords (RFC 8894 §2.2; docs/guides/scep.md): what authenticates a device's first request.
 *
 * - *Static*: one per endpoint (`scep.challenge`; an endpoint kept in the database keeps only its
 *   SHA-256, set by `ca-admin create_enrolment_endpoint --challenge`), compared in constant time.
 * - *One-time*: made by an operator for one device (`ca-admin create_enrolment_challenge`), 160 random
 *   bits printed once and kept as their SHA-256; valid until it expires, for its endpoint only, for the
 *   subject and subjectAltNames it is bound to (if any), and used once — in the transaction that
 *   stores the certificate (`useOnce`), so that two requests racing with it get one certificate.
 *
 * - *Webhook*: where the endpoint has a `challengeWebhook`, a challenge that is neither of the above
 *   is sent to the host, which decides (lib/enrolment/challenge-webhook.ts).
 *
 * Every refusal reads the same to the device ("missing or wrong", badRequest): which of the checks
 * failed is not something to tell whoever holds a guess.
 */
import * as crypto from 'crypto';
import type { CertificateRecord, EnrolmentChallengeRecord, Store } from '../ports';
import type { ParsedCsr } from '../x509/csr';
import type { Name } from '../x509/types';
import type { ResolvedEndpoint } from './endpoint';
import { webhookAccepts, type ChallengeWebhookPorts } from './challenge-webhook';
import { EnrolmentError } from './errors';

/** What a request's challenge turned out to be. */
export type ChallengeUse = { kind: 'static' } | { kind: 'one-time'; challenge: EnrolmentChallengeRecord } | { kind: 'webhook' };

/** Asking the endpoint's challenge webhook: the ports, and what of the request it is told besides the CSR. */
export interface ChallengeWebhookCall {
  ports: ChallengeWebhookPorts;
  /** SCEP's transactionID; null for EST. */
  transactionId: string | null;
}

export const WRONG_CHALLENGE = 'The challenge password is missing or wrong.';

const sha256 = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest();

/** Equal strings, compared without telling by time how much of them is equal. */
function sameSecret(given: string, expected: string): boolean {
  return crypto.timingSafeEqual(sha256(given), sha256(expected));
}

/** `given` hashes to `sha256Hex` (a stored endpoint's static challenge), compared in constant time. */
function sameDigest(given: string, sha256Hex: string): boolean {
  const expected = Buffer.from(sha256Hex, 'hex');
  return expected.length === 32 && crypto.timingSafeEqual(sha256(given), expected);
}

/** The SAN of a CSR as the set a challenge is bound to: `TYPE:value`, sorted. */
function sanSet(names: readonly { type: string; value: string }[] | null | undefined): string {
  return JSON.stringify((names ?? []).map((n) => `${n.type}:${n.value}`).sort());
}

function csrSan(csr: ParsedCsr): { type: string; value: string }[] {
  const ext = csr.requestedExtensions.find((e) => e.type === 'subject_alternative_name');
  return (ext?.value as { type: string; value: string }[] | undefined) ?? [];
}

/**
 * Which challenge `given` (the CSR's challengePassword) is at `endpoint` over `protocol` for `csr`:
 * the static one, else a one-time one, else — when the endpoint has a webhook and `webhook` says how
 * to call it — one the webhook accepts; else 403 / badRequest, the same for every reason.
 */
export async function checkChallenge(
  store: Store,
  protocol: 'est' | 'scep',
  endpoint: ResolvedEndpoint,
  given: string | undefined,
  csr: ParsedCsr,
  now = new Date(),
  webhook: ChallengeWebhookCall | null = null,
): Promise<ChallengeUse> {
  // Made only when refused: an Error's stack costs more than the whole check of a right static challenge.
  const wrong = () => new EnrolmentError(403, WRONG_CHALLENGE, 'badRequest');
  if (given === undefined || given === '') throw wrong();
  if (endpoint.challenge !== null && sameSecret(given, endpoint.challenge)) return { kind: 'static' };
  if (endpoint.challengeSha256 !== null && sameDigest(given, endpoint.challengeSha256)) return { kind: 'static' };
  const challenge = await store.enrolment.findEnrolmentChallenge(sha256(given).toString('hex'));
  if (!challenge) {
    // Neither static nor one-time: the host's to decide, where it has a webhook.
    if (endpoint.challengeWebhook === null || webhook === null) throw wrong();
    const question = {
      protocol,
      label: endpoint.label,
      caSerial: endpoint.ca.serial,
      challenge: given,
      csr,
      transactionId: webhook.transactionId,
    };
    if (await webhookAccepts(webhook.ports, endpoint.challengeWebhook, question, now)) return { kind: 'webhook' };
    throw wrong();
  }
  if (
    challenge.used !== null ||
    challenge.expires <= now ||
    challenge.protocol !== protocol ||
    challenge.label !== endpoint.label ||
    (challenge.subject !== null && JSON.stringify(challenge.subject) !== JSON.stringify(csr.subject)) ||
    (challenge.san !== null && sanSet(challenge.san) !== sanSet(csrSan(csr)))
  ) {
    throw wrong();
  }
  return { kind: 'one-time', challenge };
}

/**
 * The link that uses a one-time challenge up in the transaction that stores the certificate
 * (lib/enrolment/enrol.ts) or keeps the request waiting for approval (approval.ts: no certificate
 * yet); undefined for another kind, which needs no transaction. A challenge used meanwhile: 403 /
 * badRequest, and nothing is kept.
 */
export function useOnce(use: ChallengeUse | null): ((tx: Store, certificate?: CertificateRecord) => Promise<void>) | undefined {
  if (use?.kind !== 'one-time') return undefined;
  const { id } = use.challenge;
  return async (tx, certificate) => {
    if (!(await tx.enrolment.useEnrolmentChallenge(id, certificate?.serial ?? null, new Date()))) {
      throw new EnrolmentError(403, WRONG_CHALLENGE, 'badRequest');
    }
  };
}

export interface CreatedEnrolmentChallenge {
  id: number;
  /** The secret: shown once, never stored. */
  secret: string;
  expires: Date;
}

export interface CreateEnrolmentChallengeOptions {
  /** `est` or `scep`. */
  protocol: string;
  /** The endpoint's label; '' for the protocol's URLs without one. */
  label: string;
  /** The subject the CSR must ask for, exactly; null: any. */
  subject: Name | null;
  /** The subjectAltNames the CSR must ask for, all of them and no other (`{ type: 'DNS', value }`, …); null: any. */
  san: { type: string; value: string }[] | null;
  /** How long it may wait unused. */
  validityMs: number;
}

/** Make a one-time challenge for `protocol`'s endpoint `label`, bound to `subject` and `san` when given. */
export async function createEnrolmentChallenge(
  store: Store,
  o: CreateEnrolmentChallengeOptions,
  now = new Date(),
): Promise<CreatedEnrolmentChallenge> {
  // 160 bits, in a form every client's challenge field takes (PrintableString: letters and digits).
  const secret = crypto.randomBytes(20).toString('hex');
  const expires = new Date(now.getTime() + o.validityMs);
  const record = await store.enrolment.createEnrolmentChallenge({
    protocol: o.protocol,
    label: o.label,
    secretSha256: sha256(secret).toString('hex'),
    subject: o.subject,
    san: o.san,
    expires,
  });
  return { id: record.id, secret, expires };
}
