/**
 * express-ca-api: a certificate-authority REST API (wire-compatible with django-ca's) as Express
 * middleware.
 *
 *   const store = knexStore(await openDatabase(process.env.DATABASE_URL));
 *   await store.migrate();
 *   app.use(createCaApiRouter({ enableRestApi: true, store, keyBackends: { default: defaultKeyBackend() } }));
 *
 * The certificate engine has its own entry point, `express-ca-api/x509`.
 */
export { createCaApiRouter, type CaApiRouter } from './router';
export { resolveOptions, OptionsError, DEFAULT_PROFILE_NAMES, type CaApiRouterOptions, type ProfileConfig, type ResolvedOptions, type DefaultExpires } from './options';
export * from './ports';

// Default adapters
export { knexStore } from '../adapters/store/knex';
export { openDatabase, parseDatabaseUrl, DEFAULT_DATA_DIRECTORY, type DatabaseOptions } from '../adapters/store/database';
export { defaultKeyBackend, DEFAULT_KEY_BACKEND_ALIAS, KeyBackendError, type DefaultKeyBackendOptions } from '../adapters/keys';
export { storeAuthenticator, type StoreAuthenticator, type StoreAuthenticatorOptions } from '../adapters/auth/store-authenticator';
export { storePermissionChecker } from '../adapters/auth/store-permissions';
export { inProcessOrderRunner, type InProcessOrderRunner, type InProcessOrderRunnerOptions } from '../adapters/worker/in-process';

// Administration (the functions behind `ca-admin`)
export { createApiUser, type ApiUserPermissions, type CreateApiUserOptions } from './ca/users';
export { initCa, importCa, editCa, listCas, type InitCaOptions, type ImportCaOptions } from './ca/authorities';
export { importCert, signCert, resignCert, revokeCert, type SignCertOptions, type ResignCertOptions } from './ca/certificates';
export { CaError, type CaErrorCode } from './ca/errors';
export {
  resolveProfiles,
  defaultProfiles,
  profileToJson,
  DEFAULT_PROFILE_CONFIGS,
  type Profile,
  type Profiles,
  type ProfileJson,
  type ProfilesConfig,
} from './ca/profiles';
export { caToJson, certificateToJson, orderToJson } from './ca/serialize';
