/**
 * Table names. Every table carries the `ca_api_` prefix so that the library can share a host
 * application's database (and schema) without clashing with the host's own `orders` or `users`.
 */
export const TABLES = {
  cas: 'ca_api_certificate_authorities',
  certificates: 'ca_api_certificates',
  orders: 'ca_api_orders',
  users: 'ca_api_users',
  permissions: 'ca_api_user_permissions',
  watchers: 'ca_api_watchers',
  certificateWatchers: 'ca_api_certificate_watchers',
  events: 'ca_api_events',
  acmeNonces: 'ca_api_acme_nonces',
  acmeAccounts: 'ca_api_acme_accounts',
  acmeOrders: 'ca_api_acme_orders',
  acmeAuthorizations: 'ca_api_acme_authorizations',
  acmeChallenges: 'ca_api_acme_challenges',
  acmePolicies: 'ca_api_acme_policies',
  acmeEabKeys: 'ca_api_acme_eab_keys',
  webhookEndpoints: 'ca_api_webhook_endpoints',
  webhookDeadLetters: 'ca_api_webhook_dead_letters',
  expiryNotices: 'ca_api_certificate_expiry_notices',
  delegateKeys: 'ca_api_delegate_keys',
  enrolmentChallenges: 'ca_api_enrolment_challenges',
  enrolmentTransactions: 'ca_api_enrolment_transactions',
  enrolmentEndpoints: 'ca_api_enrolment_endpoints',

  enrolmentRequests: 'ca_api_enrolment_requests',
  adminSessions: 'ca_api_admin_sessions',
  issuanceIntents: 'ca_api_issuance_intents',
  jobs: 'ca_api_jobs',
} as const;
