/**
 * Ports: the interfaces between the library's rules and the outside world (database, key storage,
 * user directory, order processing). Defaults live in `adapters/`; a host replaces any of them by
 * passing its own implementation to `createCaApiRouter` or the admin functions.
 *
 * Shape follows smallstep's backends: small required interfaces, optional capabilities as separate
 * interfaces, backends addressed by name (`KeyBackend.alias`).
 *
 * Everything here is data in the library's own terms (Dates, Buffers, API JSON from lib/x509/types);
 * no SQL, no Express, no ASN.1.
 */

export type { KeySpec } from '../x509/types';
export * from './keys';
export { OptionsError } from './options-error';
export * from './records';
export * from './store';
export * from './intents';
export * from './changes';
export * from './batch-orders';
export * from './runner';
export * from './users';
export * from './inventory';
export * from './revocation';
export * from './delegate-keys';
export * from './enrolment-challenges';
export * from './enrolment-endpoints';

export * from './enrolment-requests';
export * from './admin-sessions';
export * from './certificate-statistics';
export * from './key-rotation';
export type { LockoutStart, LoginAttemptLimiter } from './login-limits';
export { isConnectionLost, StoreConflictError, StoreNotFoundError, StoreUnavailableError, type StoreEntity } from './store-errors';
export * from './events';
export * from './audit';
export * from './logger';
export * from './crypto';
export * from './acme';
export * from './acme-states';
export * from './acme-store';
export * from './metrics';
export * from './metrics-readings';
export * from './webhooks';
export * from './jobs';
