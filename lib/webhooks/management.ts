/**
 * Managing webhook endpoints (docs/operations/webhooks.md): the functions behind `ca-admin add_webhook`,
 * `list_webhooks`, `remove_webhook`, `rotate_webhook_secret` and `replay_webhook`, for hosts to call
 * too. The secret is made here (32 random bytes, shown as `whsec_<base64>` as the Standard Webhooks
 * specification's libraries take it), stored sealed (`SecretBox`) and returned once, to the caller
 * that made it; nothing else ever shows or logs it.
 */
import { randomBytes } from 'crypto';
import { CaError } from '../ca/errors';
import { WEBHOOK_EVENT_TYPES, type SecretBox, type WebhookDeadLetter, type WebhookEndpointRecord, type WebhookStore } from '../ports';

const SECRET_PREFIX = 'whsec_';
const MAX_URL_LENGTH = 2000;

/** An endpoint as shown to operators: everything but the secret. */
export type WebhookEndpointView = Omit<WebhookEndpointRecord, 'sealedSecret'>;

export interface AddWebhookOptions {
  url: string;
  /** Event types to receive (WEBHOOK_EVENT_TYPES), or `['*']`. Default `['*']`. */
  eventTypes?: readonly string[];
}

function view(record: WebhookEndpointRecord): WebhookEndpointView {
  const { sealedSecret: _sealed, ...rest } = record;
  void _sealed;
  return rest;
}

/** An http(s) URL with a host and no credentials (they would be logged and shown in lists). */
export function checkWebhookUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CaError('invalid', `${JSON.stringify(text)} is not a URL; expected e.g. https://hooks.example.com/ca`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) {
    throw new CaError('invalid', `webhook URL must be http:// or https:// with a host (got ${url.protocol})`);
  }
  if (url.username || url.password) throw new CaError('invalid', 'webhook URL must not carry credentials: the secret signs the requests');
  if (text.length > MAX_URL_LENGTH) throw new CaError('invalid', `webhook URL is longer than ${MAX_URL_LENGTH} characters`);
  return url.toString();
}

export function checkEventTypes(types: readonly string[] | undefined): string[] {
  if (types === undefined || types.length === 0) return ['*'];
  const known: readonly string[] = WEBHOOK_EVENT_TYPES;
  for (const t of types) {
    if (t !== '*' && !known.includes(t))
      throw new CaError('invalid', `unknown event type ${JSON.stringify(t)}; known: *, ${known.join(', ')}`);
  }
  return types.includes('*') ? ['*'] : [...new Set(types)];
}

function newSecret(): { bytes: Buffer; text: string } {
  const bytes = randomBytes(32);
  return { bytes, text: SECRET_PREFIX + bytes.toString('base64') };
}

/** Add an endpoint; it receives the events committed from now on. The secret is returned here only. */
export async function addWebhook(
  store: WebhookStore,
  box: SecretBox,
  options: AddWebhookOptions,
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const url = checkWebhookUrl(options.url);
  const eventTypes = checkEventTypes(options.eventTypes);
  const secret = newSecret();
  const record = await store.addWebhookEndpoint({ url, eventTypes, sealedSecret: box.seal(secret.bytes) });
  return { endpoint: view(record), secret: secret.text };
}

export async function listWebhooks(store: WebhookStore): Promise<WebhookEndpointView[]> {
  return (await store.listWebhookEndpoints()).map(view);
}

export async function removeWebhook(store: WebhookStore, id: number): Promise<void> {
  if (!(await store.removeWebhookEndpoint(id))) throw notFound(id);
}

/** A new secret for the endpoint, returned once; requests are signed with it from the next one on. */
export async function rotateWebhookSecret(store: WebhookStore, box: SecretBox, id: number): Promise<string> {
  const secret = newSecret();
  if (!(await store.setWebhookSecret(id, box.seal(secret.bytes)))) throw notFound(id);
  return secret.text;
}

/** Deliver again every wanted event from `fromEventId` on, in order (receivers see the same `webhook-id`s). */
export async function replayWebhook(store: WebhookStore, id: number, fromEventId: number): Promise<void> {
  if (!Number.isSafeInteger(fromEventId) || fromEventId < 1)
    throw new CaError('invalid', `event id must be a positive integer (got ${fromEventId})`);
  if (!(await store.rewindWebhookEndpoint(id, fromEventId))) throw notFound(id);
}

/** The events the endpoint gave up on (dead letters), oldest first; an unknown endpoint is an error, not an empty list. */
export async function listWebhookDeadLetters(store: WebhookStore, id: number, limit?: number): Promise<WebhookDeadLetter[]> {
  if (!(await store.getWebhookEndpoint(id))) throw notFound(id);
  return store.listWebhookDeadLetters(id, limit);
}

/** Worded as the CLI's other unknown names (`<value>: Certificate authority not found.`). */
function notFound(id: number): CaError {
  return new CaError('not-found', `${id}: Webhook endpoint not found.`);
}
