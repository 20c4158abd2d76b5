/**
 * The default `WebhookSender` (lib/ports/webhooks.ts): an HTTP POST signed per the Standard Webhooks
 * specification (https://www.standardwebhooks.com/, "Signature scheme"): headers `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`), made by the specification's own library (npm `standardwebhooks`), so that
 * receivers verify them with any of its published libraries.
 *
 * The answer's body is read only when the message asks for it (`answerLimit`: a webhook that decides,
 * docs/guides/scep.md), and never beyond that many bytes.
 *
 * Only a 2xx answer counts as delivered (the specification's "Retry Schedule": anything else is
 * retried). Redirects are not followed: a receiver that moved is a configuration to fix, and following
 * one would send the signed body to a URL nobody configured. The request is abandoned after
 * `timeoutMs`, so that a receiver that never answers costs one pending request, nothing more.
 */
import { Webhook } from 'standardwebhooks';
import type { WebhookMessage, WebhookSender, WebhookSendResult } from '../../lib/ports';

const USER_AGENT = 'express-ca-api-webhooks';

async function send(message: WebhookMessage): Promise<WebhookSendResult> {
  // The library takes the secret as its base64 text (a Buffer of another realm would not pass its `instanceof`).
  const signature = new Webhook(message.secret.toString('base64')).sign(message.id, message.timestamp, message.body);
  try {
    const response = await fetch(message.url, {
      method: 'POST',
      redirect: 'manual',
      signal: message.signal
        ? AbortSignal.any([message.signal, AbortSignal.timeout(message.timeoutMs)])
        : AbortSignal.timeout(message.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': message.id,
        'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: message.body,
    });
    const ok = response.status >= 200 && response.status < 300;
    if (ok && message.answerLimit !== undefined) {
      const answer = await readAnswer(response, message.answerLimit);
      if (answer === null) return { ok: false, status: response.status, error: `an answer larger than ${message.answerLimit} bytes` };
      return { ok: true, status: response.status, answer };
    }
    // The body is not read: cancel it so that the connection can be reused or closed.
    await response.body?.cancel().catch(() => undefined);
    if (ok) return { ok: true, status: response.status };
    return { ok: false, status: response.status, error: `HTTP ${response.status}` };
  } catch (e) {
    const name = errorField(e, 'name');
    const error = name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${message.timeoutMs} ms` : describe(e);
    return { ok: false, status: null, error };
  }
}

/** The body as UTF-8 text, read until `limit` bytes at most (the rest cancelled); null when it is longer. */
async function readAnswer(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A field of an error, read without `instanceof` (fetch's errors may come from another realm). */
function errorField(e: unknown, field: 'name' | 'message' | 'code' | 'cause'): unknown {
  return typeof e === 'object' && e !== null ? (e as Record<string, unknown>)[field] : undefined;
}

/** fetch's "fetch failed" hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, a TLS error…). */
function describe(e: unknown): string {
  const message = typeof errorField(e, 'message') === 'string' ? String(errorField(e, 'message')) : String(e);
  const cause = errorField(e, 'cause');
  const code = errorField(cause, 'code');
  if (typeof code === 'string') return `${message} (${code})`;
  const causeMessage = errorField(cause, 'message');
  return typeof causeMessage === 'string' ? `${message}: ${causeMessage}` : message;
}

export function httpWebhookSender(): WebhookSender {
  return { send };
}
