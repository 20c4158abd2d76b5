/**
 * Webhooks (README "Webhooks"; docs/DESIGN.md "Webhooks"): endpoints that receive the domain events
 * of the outbox (lib/ports/events.ts), signed per the Standard Webhooks specification. The store keeps
 * the endpoints, where each one is in the outbox (`position`: the id of the last event it has
 * handled), and the lease that lets one instance of a fleet deliver to an endpoint at a time.
 */
import type { DomainEvent } from './events';

/** The event types an endpoint may ask for, besides `'*'` (all). */
export const WEBHOOK_EVENT_TYPES = [
  'certificate.issued',
  'certificate.imported',
  'certificate.revoked',
  'certificate.expiring',
  'order.failed',
  'ca.created',
  'ca.updated',
  'ca.revoked',
  'crl.published',
  'acme.account.created',
  'user.created',
  'webhook.created',
  'webhook.removed',
  'webhook.secret_rotated',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface WebhookEndpointRecord {
  id: number;
  url: string;
  /** The secret as the store keeps it: sealed (`SecretBox`). */
  sealedSecret: unknown;
  /** The event types wanted, or `['*']`. */
  eventTypes: string[];
  enabled: boolean;
  /** The id of the last event handled (delivered, not wanted, or dead-lettered). */
  position: number;
  /** Failed attempts at the event after `position`. */
  attempts: number;
  /** Not before this time is the event after `position` tried again (back-off), or null. */
  nextAttempt: Date | null;
  lastError: string | null;
  /** Events delivered with a 2xx answer. */
  delivered: number;
  created: Date;
}

export interface WebhookDeadLetter {
  id: number;
  endpointId: number;
  eventId: number;
  eventType: string;
  attempts: number;
  lastError: string | null;
  created: Date;
}

export interface NewWebhookEndpoint {
  url: string;
  sealedSecret: unknown;
  eventTypes: string[];
  /** Where delivery starts: the id of the last event not to send. Default: the latest event now. */
  position?: number;
}

/** What a delivery attempt did, to be recorded against the endpoint while its lease holds. */
export type WebhookOutcome =
  /** Events up to `position` are handled (delivered or not wanted); `delivered` of them were sent. */
  | { kind: 'advanced'; position: number; delivered: number }
  /** The event after the position failed; try again at `nextAttempt`. */
  | { kind: 'retry'; error: string; nextAttempt: Date }
  /** The event `event` failed for the last time: dead-letter it and move past it. */
  | { kind: 'dead'; event: DomainEvent; attempts: number; error: string };

/** Optional store capability: the webhook endpoints and their delivery state. */
export interface WebhookStore {
  addWebhookEndpoint(endpoint: NewWebhookEndpoint): Promise<WebhookEndpointRecord>;
  listWebhookEndpoints(): Promise<WebhookEndpointRecord[]>;
  getWebhookEndpoint(id: number): Promise<WebhookEndpointRecord | null>;
  /** False when there was none. */
  removeWebhookEndpoint(id: number): Promise<boolean>;
  /** Replace the sealed secret; false when there was no such endpoint. */
  setWebhookSecret(id: number, sealedSecret: unknown): Promise<boolean>;
  /** Deliver again from event `fromEventId` (inclusive); clears the back-off. False when there was no such endpoint. */
  rewindWebhookEndpoint(id: number, fromEventId: number): Promise<boolean>;
  listWebhookDeadLetters(endpointId: number, limit?: number): Promise<WebhookDeadLetter[]>;

  /**
   * Lease up to `limit` enabled endpoints that have events after their position and are due, for
   * `leaseMs`, to `owner`: no other owner gets them until the lease runs out or is released. Leased
   * endpoints are not returned again, nor those of `except` (the caller's turns still under way, whose
   * lease a replay may have ended).
   */
  claimWebhookEndpoints(owner: string, leaseMs: number, limit: number, except?: readonly number[]): Promise<WebhookEndpointRecord[]>;
  /** Record `outcome` and extend the lease by `leaseMs`; false when `owner` no longer holds the lease (stop). */
  recordWebhookOutcome(id: number, owner: string, outcome: WebhookOutcome, leaseMs: number): Promise<boolean>;
  releaseWebhookEndpoint(id: number, owner: string): Promise<void>;

  /**
   * Announce certificates that are neither revoked nor expired and whose `notAfter` is before
   * `before`, each once ever (`certificate.expiring`), at most `limit` per call; resolves to how many
   * were announced now. Only one caller at a time across the fleet scans; the others get 0.
   */
  announceExpiringCertificates(before: Date, limit: number): Promise<number>;
}

export interface WebhookStoreProvider {
  readonly webhooks: WebhookStore;
}

export function hasWebhookStore<S extends object>(store: S): store is S & WebhookStoreProvider {
  const w = (store as Partial<WebhookStoreProvider>).webhooks;
  return typeof w === 'object' && w !== null && typeof w.claimWebhookEndpoints === 'function';
}

/** One signed POST of one event to one endpoint. */
export interface WebhookMessage {
  url: string;
  /** The endpoint's secret (the bytes behind `whsec_…`). */
  secret: Buffer;
  /** `webhook-id`: the same for every attempt at this event, so that receivers can drop repeats. */
  id: string;
  /** `webhook-timestamp`. */
  timestamp: Date;
  /** The JSON body, exactly as signed. */
  body: string;
  /** Give up on the request after this long. */
  timeoutMs: number;
  /** Give up on it when this aborts (delivery closing). */
  signal?: AbortSignal;
}

/** `ok`: the receiver answered 2xx; else what went wrong, for the endpoint's `lastError` (never the secret). */
export type WebhookSendResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/** Sends signed webhook requests (the default adapter signs per the Standard Webhooks specification). */
export interface WebhookSender {
  send(message: WebhookMessage): Promise<WebhookSendResult>;
  close?(): Promise<void> | void;
}
