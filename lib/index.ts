/**
 * express-ca-api: a certificate-authority REST API (wire-compatible with django-ca's) as Express
 * middleware.
 *
 *   const store = knexStore(await openDatabase(process.env.DATABASE_URL));
 *   await store.migrate();
 *   app.use(createCaApiRouter({ enableRestApi: true, store }));
 *   // or the public CRL/OCSP/issuer endpoints alone, e.g. on another host app:
 *   revocationApp.use(createRevocationRouter({ store }));
 *   // Prometheus metrics: `metrics: { enabled: true }` above, or alone on an internal port:
 *   internalApp.use(createMetricsRouter({ store }));
 *
 * The package entry: an explicit list of what the package promises, no more — the names docs/reference/exports.md
 * documents, each once. docs/api-report.md records it with each name's kind
 * (test/package/api-report.test.ts keeps the three in step), so that a change to it shows in review.
 * The wiring of the default adapters is lib/wiring.ts. The certificate engine has its own entry
 * point, `express-ca-api/x509`.
 */

// Routers and delivery, with the default adapters filled in (lib/wiring.ts)
export { createCaApiRouter, createRevocationRouter, createMetricsRouter, createWebhookDelivery, createCaAdminRouter } from './wiring';
export type { CaApiRouter } from './router';
export type { CaApiRouterOptions, RestSettings, RevocationSettings } from './options';
export type { RevocationRouter } from './revocation-endpoints/router';
export type { RevocationRouterOptions } from './revocation-endpoints/options';
export type { MetricsRouter } from './metrics/router';
export type { MetricsRouterOptions } from './metrics/options';
export type { CaAdminRouter } from './admin/router';
export type { CaAdminRouterOptions, AdminSessionOptions } from './admin/options';
export type { WebhookDelivery } from './webhooks/delivery';
export type { WebhookOptions, WebhookDeliveryOptions, WebhookDeliveryTuning } from './webhooks/options';
export type { WebhookPayload } from './webhooks/payload';
export { answerClientErrorsAsJson } from './client-errors';

// Errors
export { OptionsError } from './ports/options-error';
export { CaError, type CaErrorCode } from './ca/errors';
export { isConnectionLost, StoreUnavailableError } from './ports/store-errors';
export { KeyBackendUnavailableError } from './ports/keys';
export { KeyBackendError } from '../adapters/keys/errors';

// Default adapters (docs/guides/embedding.md "Adapters: replacing a part")
export { knexStore } from '../adapters/store/knex';
export { openDatabase, parseDatabaseUrl, type DatabaseOptions } from '../adapters/store/database';
export { answerBackupRequests, type BackupAnswerer } from '../adapters/store/embedded-backup';
export { defaultKeyBackend, type DefaultKeyBackendOptions } from '../adapters/keys/default-backend';
// docs/operations/hsm.md: loads the optional pkcs11js only when called.
export { pkcs11KeyBackend, type Pkcs11KeyBackend, type Pkcs11KeyBackendOptions } from '../adapters/keys/pkcs11';
export { storeAuthenticator, type StoreAuthenticatorOptions } from '../adapters/auth/store-authenticator';
export { storePermissionChecker } from '../adapters/auth/store-permissions';
export { loginAttemptLimiter, databaseLoginAttemptLimiter, type LoginAttemptLimits } from '../adapters/auth/login-limiter';
export { jsonLinesLogger, type JsonLinesLoggerOptions } from '../adapters/logging/json-lines';
export { inProcessOrderRunner, type InProcessOrderRunnerOptions } from './ca/order-runner/in-process';

// Ports a host implements, and the optional capabilities docs/reference/exports.md names (lib/ports)
export type { Store } from './ports/store';
export type {
  IntentFilter,
  IntentState,
  IntentTaken,
  IssuanceDoor,
  IssuanceIntentRecord,
  IssuanceIntentStore,
  NewIssuanceIntent,
} from './ports/intents';
export type { OrderListing, OrderRetry } from './ports/store';
export type { KeyBackend, KeyDecryption, RawRsaDecrypter } from './ports/keys';
export type { Authenticator, PermissionChecker, UserRecord, UserAdministration } from './ports/users';
export type { LoginAttemptLimiter } from './ports/login-limits';
export type { Logger } from './ports/logger';
export type { OrderRunner, ImmediateOrders, IssuedOrderStore } from './ports/runner';
export type { BatchOrderStore } from './ports/batch-orders';
export type { CertificateVersionListing } from './ports/inventory';
export type { RevocationStore } from './ports/revocation';
export type { DelegateKeyStore, DelegateKeyRecord, DelegatePurpose } from './ports/delegate-keys';
export type { AdminSessionStore, AdminSessionStoreProvider, AdminSessionRecord, NewAdminSession } from './ports/admin-sessions';
export type {
  EnrolmentStore,
  EnrolmentStoreProvider,
  EnrolmentChallengeRecord,
  NewEnrolmentChallenge,
  EnrolmentTransactionKey,
} from './ports/enrolment-challenges';
export type {
  EnrolmentRequestStore,
  EnrolmentRequestStoreProvider,
  EnrolmentRequestRecord,
  NewEnrolmentRequest,
  EnrolmentRequestStatus,
  EnrolmentDecision,
  EnrolmentRequestFilter,
} from './ports/enrolment-requests';
export type {
  EnrolmentEndpointStore,
  EnrolmentEndpointStoreProvider,
  StoredEnrolmentEndpoint,
  NewStoredEnrolmentEndpoint,
  StoredEnrolmentEndpointPatch,
  EnrolmentNamePolicy,
  EnrolmentProtocol,
} from './ports/enrolment-endpoints';
export type { KekRotatingKeyBackend, StoredKeyRewriting } from './ports/key-rotation';
export type { ChallengeValidator, SecretBox } from './ports/acme';
export type { CaIssuancePolicy, CaRecord, CaPatch, CertificateRecord } from './ports/records';

// Domain events (docs/operations/audit-and-events.md "Domain events")
export {
  hasEventLog,
  actingAs,
  type EventLog,
  type FilteredEventLog,
  type DomainEvent,
  type DomainEventType,
  type Actor,
} from './ports/events';

// Administration: the functions behind `ca-admin`
export { initCa, importCa, listCas, type InitCaOptions, type ImportCaOptions, type CaAcmeSettings } from './ca/authorities';
export { editCa } from './ca/ca-update';
export { importCert, signCert, resignCert, type SignCertOptions, type ResignCertOptions } from './cli/certificates';
export { revokeCa, revokeCert } from './ca/revocation';
export { defaultProfiles } from './ca/profiles';
export {
  createApiUser,
  setApiUserPermissions,
  setApiUserPassword,
  listApiUsers,
  deleteApiUser,
  type CreateApiUserOptions,
} from './accounts/users';
export { readSettings, SettingsError, developmentKekPath, DEVELOPMENT_KEK_FILE, type CaSettings } from './settings';

// Device enrolment (docs/guides/est.md, docs/guides/scep.md): the functions behind ca-admin's enrolment commands
export {
  createEnrolmentEndpoint,
  editEnrolmentEndpoint,
  deleteEnrolmentEndpoint,
  listEnrolmentEndpoints,
  type EnrolmentEndpointSettings,
  type EnrolmentEndpointContext,
} from './enrolment/stored-endpoints';
export { createEnrolmentChallenge, type CreateEnrolmentChallengeOptions, type CreatedEnrolmentChallenge } from './enrolment/challenges';
export {
  listEnrolmentRequests,
  approveEnrolmentRequest,
  refuseEnrolmentRequest,
  type EnrolmentApprovalOptions,
} from './enrolment/approval';

// Webhooks (docs/operations/webhooks.md)
export {
  addWebhook,
  listWebhooks,
  listWebhookDeadLetters,
  removeWebhook,
  rotateWebhookSecret,
  replayWebhook,
  type AddWebhookOptions,
  type WebhookEndpointView,
} from './webhooks/management';
