/**
 * The settings from the environment, read and checked in one place (docs/reference/environment.md):
 * `ca-admin` (lib/cli/context.ts), the router's defaults for options the host left out
 * (lib/options.ts) and the example server all take them from here, so that one environment means the
 * same to each — the same profiles, ACME switch, URL path and default CA. A mistake is a
 * `SettingsError` that names the variable and what it accepts, raised before anything is opened.
 *
 * Each concept has its own reader (one file each) for a caller that needs only that one; `readSettings`
 * reads them all. The process's environment itself is read only by `environment()` (environment.ts):
 * everything else, adapters included, is given an environment or the values read from one.
 */
import type { ProfileConfig, Profiles } from '../ca/profiles';
import { allowedHostsSetting, type AllowedHosts } from './allowed-hosts';
import { dataDirSetting } from './data-dir';
import { databaseUrlSetting } from './database-url';
import { estClientCertHeaderSetting, scepChallengeSetting } from './enrolment';
import { hsmSettings, type HsmSettings } from './hsm';
import { defaultCaSetting } from './default-ca';
import { profileSettings } from './profiles';
import { switchSetting, type Env } from './switch';
import { urlPathSetting } from './url-path';

export { SettingsError } from './errors';
export { environment } from './environment';
export { parseSwitch, switchSetting, type Env } from './switch';
export { DEFAULT_URL_PATH, urlPathProblem, urlPathSetting } from './url-path';
export { defaultExpiresSetting, defaultProfileSetting, profileSettings, type ProfileSettings } from './profiles';
export { defaultCaSetting } from './default-ca';
export { DEFAULT_DATA_DIR, DEVELOPMENT_KEK_FILE, dataDirSetting, developmentKekPath } from './data-dir';
export { allowedHostsSetting, type AllowedHosts } from './allowed-hosts';
export { acmeValidationSettings, type AcmeValidationSettings } from './acme-validation';
export { databaseUrlSetting } from './database-url';
export { hsmSettings, type HsmSettings } from './hsm';
export { KEK_VARIABLE, keyEncryptionKeySetting } from './key-encryption-key';
export { estClientCertHeaderSetting, scepChallengeSetting } from './enrolment';

export interface CaSettings {
  /** `CA_ENABLE_REST_API`: serve the REST API. Default false. */
  enableRestApi: boolean;
  /** `CA_URL_PATH`: prefix of the API and the revocation URLs, `''` or ending in `/`. Default `django_ca/`. */
  urlPath: string;
  /** `CA_ALLOWED_HOSTS`: the hosts the router answers for; null: every host (lib/settings/allowed-hosts.ts). */
  allowedHosts: AllowedHosts;
  /**
   * `CA_ENABLE_ACME`: the router serves ACME; `ca-admin` offers the `--acme-*` options and shows a
   * CA's ACME settings. Default false (docs/guides/acme.md), for both.
   */
  enableAcme: boolean;
  /** `CA_ENABLE_EST`: the router serves EST at `/.well-known/est/` (docs/guides/est.md). Default false. */
  enableEst: boolean;
  /** `CA_ENABLE_SCEP`: the router serves SCEP at `{urlPath}scep` (docs/guides/scep.md). Default false. */
  enableScep: boolean;
  /** `CA_EST_CLIENT_CERT_HEADER`, trimmed: the header a trusted proxy forwards client certificates in; null when unset. */
  estClientCertHeader: string | null;
  /** `CA_SCEP_CHALLENGE`: SCEP's static challenge password; null when unset or empty. */
  scepChallenge: string | null;
  /** `CA_DEFAULT_CA`: serial or name of the default CA; null: the CA that expires last (lib/ca/default-ca.ts). */
  defaultCa: string | null;
  /** `CA_DEFAULT_HOSTNAME`: host[:port] of the URLs `init_ca` writes into a new CA. */
  defaultHostname: string | null;
  /** `CA_PROFILES`, merged into the built-in profiles; null when unset. */
  profiles: Record<string, ProfileConfig | null> | null;
  /** `CA_DEFAULT_PROFILE`, default `webserver`. */
  defaultProfile: string;
  /** `CA_DEFAULT_EXPIRES` (days) in milliseconds; null when unset (100 days). */
  defaultExpiresMs: number | null;
  /** The built-in profiles merged with `profiles`, validated. */
  effectiveProfiles: Profiles;
  /** `CA_DATA_DIR`, default `./.ca-data`: the example server's data directory. */
  dataDir: string;
  /** `DATABASE_URL`: where the store lives; null when unset (the data directory's embedded database). */
  databaseUrl: string | null;
  /** `CA_HSM_LIBRARY_PATH`, `CA_HSM_TOKEN`, `CA_HSM_USER_PIN`, `CA_HSM_ALIAS`: the PKCS#11 key backend. */
  hsm: HsmSettings;
  /** `CA_METRICS`: the example server serves Prometheus metrics at `/metrics`. Default false. */
  metrics: boolean;
  /** `CA_WEBHOOKS`: the example server delivers webhooks. Default false. */
  webhooks: boolean;
}

/** Every setting of `env`, checked. Throws `SettingsError` at the first mistake. */
export function readSettings(env: Env): CaSettings {
  return {
    enableRestApi: switchSetting(env, 'CA_ENABLE_REST_API', false),
    urlPath: urlPathSetting(env),
    allowedHosts: allowedHostsSetting(env),
    enableAcme: switchSetting(env, 'CA_ENABLE_ACME', false),
    enableEst: switchSetting(env, 'CA_ENABLE_EST', false),
    enableScep: switchSetting(env, 'CA_ENABLE_SCEP', false),
    estClientCertHeader: estClientCertHeaderSetting(env)?.trim() || null,
    scepChallenge: scepChallengeSetting(env),
    defaultCa: defaultCaSetting(env),
    defaultHostname: env.CA_DEFAULT_HOSTNAME || null,
    ...profileSettings(env),
    dataDir: dataDirSetting(env),
    databaseUrl: databaseUrlSetting(env),
    hsm: hsmSettings(env),
    metrics: switchSetting(env, 'CA_METRICS', false),
    webhooks: switchSetting(env, 'CA_WEBHOOKS', false),
  };
}
