/**
 * Challenge passwords decided by the host (docs/guides/scep.md, docs/guides/est.md): an endpoint's `challengeWebhook`
 * is asked about a challenge that is neither the endpoint's static one nor a one-time one
 * (lib/enrolment/challenges.ts), as step-ca's SCEPCHALLENGE webhook is. The request is a POST of JSON
 * signed per the Standard Webhooks specification by the same sender as the outgoing webhooks (the
 * `WebhookSender` port; `webhook-id`, `webhook-timestamp`, `webhook-signature`), so that the host
 * verifies it with any Standard Webhooks library. The body:
 *
 *     { "type": "enrolment.challenge", "timestamp": "…",
 *       "data": { "protocol": "scep", "label": "", "ca_serial": "…", "challenge": "…",
 *                 "csr": "-----BEGIN CERTIFICATE REQUEST-----…", "subject": [{ "oid": "2.5.4.3", "value": "…" }],
 *                 "san": [{ "type": "DNS", "value": "…" }], "transaction_id": "…" | null } }
 *
 * Only a 2xx answer whose body is JSON with `"allow": true` accepts the challenge. Anything else — another
 * status, another body, a body over 64 KiB, no answer within `timeoutMs` — refuses it, to the device
 * as any wrong challenge ("missing or wrong"), and is logged for the operator, without the challenge
 * or the secret.
 */
import { randomBytes } from 'crypto';
import { checkOptionNames, isObjectLike, OptionsError, show } from '../http/option-checks';
import type { Logger, WebhookSender } from '../ports';
import type { ParsedCsr } from '../x509/csr';
import type { GeneralName } from '../x509/types';

/** An endpoint's challenge webhook, as resolved. */
export interface ChallengeWebhook {
  /** Where the question is POSTed: http:// or https://. */
  url: string;
  /** The signing secret, `whsec_<base64>` as the outgoing webhooks' secrets are written. */
  secret: string;
  /** How long to wait for the answer (ms). */
  timeoutMs: number;
  /** Set when there is no webhook to ask (unconfiguredChallengeWebhook): why; every challenge it would decide is refused. */
  unconfigured?: string;
}

/**
 * The webhook of an endpoint kept in the database with `--challenge webhook` (lib/enrolment/endpoint.ts)
 * where the router's options configure none for the protocol: the CLI cannot know the options, so a
 * request there is refused as a wrong challenge, and the operator is told why in the log.
 */
export function unconfiguredChallengeWebhook(protocol: 'est' | 'scep'): ChallengeWebhook {
  return {
    url: '',
    secret: '',
    timeoutMs: 0,
    unconfigured: `the endpoint uses the protocol's challenge webhook, but option \`${protocol}.challengeWebhook\` is not set`,
  };
}

/** The option as a host writes it. */
export interface ChallengeWebhookOptions {
  url: string;
  secret: string;
  /** Default 5000. */
  timeoutMs?: number;
}

/** What asking needs of the router: the signed sender (the outgoing webhooks'), and where refusals are logged. */
export interface ChallengeWebhookPorts {
  /** Null: none was wired (then an endpoint with a webhook refuses every such challenge, logged). */
  sender: WebhookSender | null;
  logger: Pick<Logger, 'warn'>;
}

/** What the webhook is asked about. */
export interface ChallengeQuestion {
  protocol: 'est' | 'scep';
  label: string;
  caSerial: string;
  challenge: string;
  csr: ParsedCsr;
  /** SCEP's transactionID; null for EST. */
  transactionId: string | null;
}

export const DEFAULT_CHALLENGE_WEBHOOK_TIMEOUT_MS = 5000;
/** The largest answer read: `{"allow": true}` needs a handful of bytes; room for a host's extra fields. */
export const CHALLENGE_WEBHOOK_ANSWER_LIMIT = 64 * 1024;
const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

function secretBytes(secret: string): Buffer | null {
  const m = SECRET.exec(secret);
  const bytes = m ? Buffer.from(m[1], 'base64') : null;
  return bytes && bytes.length >= 16 ? bytes : null;
}

/** `value` (the option `name`) checked; null when absent. */
export function resolveChallengeWebhook(name: string, value: unknown): ChallengeWebhook | null {
  if (value === undefined || value === null) return null;
  const example = `{ ${name}: { url: 'https://mdm.example.org/scep-challenge', secret: 'whsec_…' } }`;
  if (!isObjectLike(value)) throw new OptionsError(`option \`${name}\` must be an object such as ${example} (got ${show(value)})`);
  checkOptionNames(value, ['url', 'secret', 'timeoutMs'], example, 'createCaApiRouter');
  const o = value as Record<string, unknown>;
  const url = typeof o.url === 'string' && URL.canParse(o.url) ? new URL(o.url) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.username || url.password) {
    throw new OptionsError(`option \`${name}.url\` must be an http:// or https:// URL with a host and no credentials (got ${show(o.url)})`);
  }
  if (typeof o.secret !== 'string' || secretBytes(o.secret) === null) {
    // The value is a secret: never shown.
    throw new OptionsError(
      `option \`${name}.secret\` must be whsec_ and the base64 of at least 16 random bytes, as ca-admin add_webhook makes`,
    );
  }
  const timeoutMs = o.timeoutMs ?? DEFAULT_CHALLENGE_WEBHOOK_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 60_000) {
    throw new OptionsError(`option \`${name}.timeoutMs\` must be an integer from 100 to 60000 (got ${show(timeoutMs)})`);
  }
  return { url: url.toString(), secret: o.secret, timeoutMs };
}

function body(q: ChallengeQuestion, now: Date): string {
  const san = (q.csr.requestedExtensions.find((e) => e.type === 'subject_alternative_name')?.value as GeneralName[] | undefined) ?? [];
  return JSON.stringify({
    type: 'enrolment.challenge',
    timestamp: now.toISOString(),
    data: {
      protocol: q.protocol,
      label: q.label,
      ca_serial: q.caSerial,
      challenge: q.challenge,
      csr: q.csr.pem,
      subject: q.csr.subject,
      san,
      transaction_id: q.transactionId,
    },
  });
}

/** Why an answer does not accept the challenge, or null when it does (`{"allow": true}`). */
function refusalOf(answer: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer);
  } catch {
    return 'an answer that is not JSON';
  }
  if (!isObjectLike(parsed) || Array.isArray(parsed)) return 'an answer that is not a JSON object';
  return (parsed as Record<string, unknown>).allow === true ? null : 'an answer without "allow": true';
}

/** Whether `webhook` accepts the question's challenge; a refusal is logged (without the challenge or the secret). */
export async function webhookAccepts(
  ports: ChallengeWebhookPorts,
  webhook: ChallengeWebhook,
  question: ChallengeQuestion,
  now = new Date(),
): Promise<boolean> {
  const refuse = (reason: string) => {
    ports.logger.warn('express-ca-api: the challenge webhook refused an enrolment', {
      protocol: question.protocol,
      label: question.label,
      url: webhook.url,
      reason,
    });
    return false;
  };
  if (webhook.unconfigured !== undefined) return refuse(webhook.unconfigured);
  if (!ports.sender) return refuse('no webhook sender is wired');
  const result = await ports.sender.send({
    url: webhook.url,
    secret: secretBytes(webhook.secret) as Buffer,
    id: `msg_${randomBytes(16).toString('hex')}`,
    timestamp: now,
    body: body(question, now),
    timeoutMs: webhook.timeoutMs,
    answerLimit: CHALLENGE_WEBHOOK_ANSWER_LIMIT,
  });
  if (!result.ok) return refuse(result.error);
  const refusal = refusalOf(result.answer ?? '');
  return refusal === null ? true : refuse(refusal);
}
