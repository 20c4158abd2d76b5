/**
 * Durable domain events (docs/DESIGN.md "Domain events"): an outbox that the store writes in the same
 * transaction as the change itself, so that an event exists exactly when its change committed. Ids
 * rise in commit order, so a reader that remembers the last id it handled and asks for what came
 * since misses nothing and sees nothing twice — in this process or in another one on the same
 * PostgreSQL. Webhooks, the audit log and metrics read from here; the in-process caches keep their
 * own change notifications (lib/ports/changes.ts), which need no database round trip.
 */

export type DomainEventType =
  /** A certificate was signed and stored (sign, resign, `ca-admin sign_cert`/`resign_cert`). */
  | 'certificate.issued'
  /** A certificate signed elsewhere was stored (`ca-admin import_cert`). */
  | 'certificate.imported'
  | 'certificate.revoked'
  /** A sign order ended `failed`; `data.error` says why. */
  | 'order.failed'
  /** A failed sign order put back in the queue by an operator (`ca-admin retry_orders`). */
  | 'order.retried'
  | 'ca.created'
  /** A CA's settings changed; `data.changed` names the fields (never their values). */
  | 'ca.updated'
  /** A CA's issuance policy changed (docs/guides/issuance-policy.md); `data.old` and `data.new` are the policy before and after (null: the built-in one). */
  | 'ca.issuance_policy.updated'
  | 'ca.revoked'
  | 'user.created'
  /** A certificate's `not_after` is near (webhooks' `expiringDays`); once per certificate, for the fleet. */
  | 'certificate.expiring'
  /** A CRL number was drawn for a CRL being built (lib/ca/crls.ts); `data.scope`, `data.crl_number`. */
  | 'crl.published'
  /** An ACME account was registered; `data.account` is its slug. */
  | 'acme.account.created'
  /** An ACME account was deactivated, by itself over ACME or by an operator (admin interface); `data.account` is its slug. */
  | 'acme.account.deactivated'
  /** A CA's ACME policy changed (EAB required, names allowed and denied); `data` is the policy as it now is. */
  | 'acme.policy.updated'
  /** An external account binding key was made for a CA; `data.kid` is its key id (never the MAC key). */
  | 'acme.eab_key.created'
  /** A webhook endpoint was added, removed, or given a new secret; `data.webhook` is its id (never the secret). */
  | 'webhook.created'
  | 'webhook.removed'
  | 'webhook.secret_rotated'
  /** An enrolment endpoint kept in the database was made, changed (`data.changed` names the fields) or deleted; `data.protocol`, `data.label`. */
  | 'enrolment.endpoint.created'
  | 'enrolment.endpoint.updated'
  | 'enrolment.endpoint.deleted'
  /** An API user was deleted (with its grants and sign orders). */
  | 'user.deleted'
  /** An API user's password was set; the event never carries it or its hash. */
  | 'user.password_changed'
  /** An API user's permissions were replaced; `data.permissions` lists them as they now are. */
  | 'user.permissions_changed'
  /** Stored CA keys were re-encrypted under a new key-encryption key; `data` names the KEKs by id and the CAs. */
  | 'kek.rotated'
  /** Too many failed logins: a username or an address is refused for a while (not a row change). */
  | 'login.locked_out'
  /** An enrolment request waiting for an operator was approved; `serial` is the certificate it got, `data.request` its id. */
  | 'enrolment.approved'
  /** An enrolment request waiting for an operator was refused; `data.reason` says why, `data.request` is its id. */
  | 'enrolment.refused';

/** Every event type, once (a record keyed by the type, so that a type added above and not here fails to compile). */
const EVENT_TYPES: Record<DomainEventType, true> = {
  'certificate.issued': true,
  'certificate.imported': true,
  'certificate.revoked': true,
  'order.failed': true,
  'order.retried': true,
  'ca.created': true,
  'ca.updated': true,
  'ca.issuance_policy.updated': true,
  'ca.revoked': true,
  'user.created': true,
  'certificate.expiring': true,
  'crl.published': true,
  'acme.account.created': true,
  'acme.account.deactivated': true,
  'acme.policy.updated': true,
  'acme.eab_key.created': true,
  'webhook.created': true,
  'webhook.removed': true,
  'webhook.secret_rotated': true,
  'enrolment.endpoint.created': true,
  'enrolment.endpoint.updated': true,
  'enrolment.endpoint.deleted': true,
  'user.deleted': true,
  'user.password_changed': true,
  'user.permissions_changed': true,
  'kek.rotated': true,
  'login.locked_out': true,
  'enrolment.approved': true,
  'enrolment.refused': true,
};

/** The event types the library writes, sorted: what a filter offers (the admin interface's audit log). */
export const DOMAIN_EVENT_TYPES: readonly DomainEventType[] = (Object.keys(EVENT_TYPES) as DomainEventType[]).sort();

/** The protocols through which something happens; a store adds `sql` for writes made around the library. */
export type Protocol = 'rest' | 'cli' | 'library' | 'sql' | (string & {});

/** Who made a change, and through which way in. */
export interface Actor {
  /** `api_user`: an API user (REST); `operator`: someone at `ca-admin`; `system`: code of the host; `database`: SQL from outside the library. */
  type: 'api_user' | 'operator' | 'system' | 'database' | (string & {});
  /** The API user's id, where there is one. */
  id?: number | null;
  /** A username (API user, operating-system user of `ca-admin`, database role) where known. */
  name?: string | null;
  protocol: Protocol;
  /** The client's network address (Express's `req.ip`) where the change came over the network. */
  address?: string | null;
}

export interface DomainEvent {
  /** Rises in commit order; gaps are possible (a rolled-back write), repeats are not. */
  id: number;
  type: DomainEventType;
  /** When the change committed. */
  created: Date;
  actor: Actor;
  /** Serial of the CA concerned (upper-case hex), or null (`user.created`). */
  caSerial: string | null;
  /** Serial of the certificate concerned, or null for CA and user events. */
  serial: string | null;
  /** What else a subscriber needs to act: profile, reason, order slug, error, changed fields... */
  data: Record<string, unknown>;
}

/** Optional store capability: read the outbox in order. */
export interface EventLog {
  /** Events with an id above `afterId`, oldest first, at most `limit` (default 100). */
  eventsSince(afterId: number, limit?: number): Promise<DomainEvent[]>;
  /** The highest event id written so far (0 when none): where a new subscriber that wants only new events starts. */
  latestEventId(): Promise<number>;
}

/** A page of a filtered read of the outbox (`FilteredEventLog`). */
export interface EventsOfTypes {
  /** The events of the asked-for types, oldest first. */
  events: DomainEvent[];
  /**
   * Every event up to this id has been looked at: the next read may start here. The last event's id
   * when the page is full; further (up to the newest event, or as far as one read looks) when not.
   */
  scannedTo: number;
  /** Whether there may be more after `scannedTo` (a full page, or the read stopped looking before the newest event). */
  more: boolean;
}

/**
 * Part of `Store`: read only events of some types, the others skipped by the store rather
 * than handed over (a webhook that wants one type of a busy outbox). Ids rise in commit order
 * (`DomainEvent.id`), so everything up to `scannedTo` has been seen and none will appear below it.
 */
export interface FilteredEventLog {
  eventsOfTypesSince(afterId: number, types: readonly string[], limit?: number): Promise<EventsOfTypes>;
}

export function hasEventLog<S extends object>(store: S): store is S & EventLog {
  const s = store as Partial<EventLog>;
  return typeof s.eventsSince === 'function' && typeof s.latestEventId === 'function';
}

/**
 * Optional store capability: a view of the store whose writes record `actor` in their events. Orders
 * need none: their events name the order's API user.
 */
export interface ActorScopedStore<S> {
  actingAs(actor: Actor): S;
}

/** `store` acting as `actor` where the store can record actors; else `store` itself. */
export function actingAs<S extends object>(store: S, actor: Actor | undefined): S {
  if (!actor) return store;
  const scoped = store as Partial<ActorScopedStore<S>>;
  return typeof scoped.actingAs === 'function' ? scoped.actingAs(actor) : store;
}
