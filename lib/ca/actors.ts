/**
 * Who acts, as the domain events record it (lib/ports/events.ts, docs/DESIGN.md "Domain events"):
 * the services take an `Actor` and hand the store a view acting as it.
 */
import type { Actor, ApiUser, Protocol } from '../ports';

/** An API user acting through `protocol` (the REST API, EST), from `address` where known (the audit log records it). */
export function apiUserActor(user: ApiUser, address?: string | null, protocol: Protocol = 'rest'): Actor {
  const actor: Actor = { type: 'api_user', id: user.id, name: user.username, protocol };
  return address ? { ...actor, address } : actor;
}

/**
 * The library acting on its own: the certificates and settings it makes without anyone asking at
 * that moment (the automatic OCSP responder certificates, docs/DESIGN.md "Domain events"). The
 * audit log's `database`/`sql` actor stays reserved for writes made around the library.
 */
export const LIBRARY_ACTOR: Actor = Object.freeze({ type: 'system', name: 'express-ca-api', protocol: 'library' });
