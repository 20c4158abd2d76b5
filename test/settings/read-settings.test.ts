/**
 * `readSettings` (docs/reference/environment.md): the defaults, the accepted forms, and every
 * mistake a `SettingsError` that names the variable, says what it accepts and shows what it got.
 */
import { readSettings, SettingsError } from '../../lib';

describe('readSettings', () => {
  test('defaults: REST API and ACME off, django_ca/, no default CA, webserver, ./.ca-data, metrics and webhooks off', () => {
    expect(readSettings({})).toMatchObject({
      enableRestApi: false,
      urlPath: 'django_ca/',
      enableAcme: false,
      enableEst: false,
      enableScep: false,
      defaultCa: null,
      defaultHostname: null,
      profiles: null,
      defaultProfile: 'webserver',
      defaultExpiresMs: null,
      dataDir: './.ca-data',
      databaseUrl: null,
      hsm: { library: null, token: null, pin: null, alias: null },
      estClientCertHeader: null,
      scepChallenge: null,
      metrics: false,
      webhooks: false,
    });
  });

  test('the settings read where they are used are read here too: database, HSM, EST header, SCEP challenge', () => {
    expect(
      readSettings({
        DATABASE_URL: 'postgres://ca@db/ca',
        CA_HSM_LIBRARY_PATH: '/usr/lib/softhsm/libsofthsm2.so',
        CA_HSM_TOKEN: 'ca',
        CA_HSM_USER_PIN: '', // an empty PIN is a PIN
        CA_HSM_ALIAS: 'token',
        CA_EST_CLIENT_CERT_HEADER: ' X-Client-Cert ',
        CA_SCEP_CHALLENGE: 'secret',
      }),
    ).toMatchObject({
      databaseUrl: 'postgres://ca@db/ca',
      hsm: { library: '/usr/lib/softhsm/libsofthsm2.so', token: 'ca', pin: '', alias: 'token' },
      estClientCertHeader: 'X-Client-Cert',
      scepChallenge: 'secret',
    });
  });

  test('the forms each setting takes', () => {
    const s = readSettings({
      CA_ENABLE_REST_API: 'Yes',
      CA_URL_PATH: '',
      CA_ENABLE_ACME: ' on ',
      CA_ENABLE_EST: 'yes',
      CA_ENABLE_SCEP: 'On',
      CA_DEFAULT_CA: ' Issuing ',
      CA_PROFILES: JSON.stringify({ device: { description: 'Devices' }, enduser: null }),
      CA_DEFAULT_PROFILE: 'device',
      CA_DEFAULT_EXPIRES: '7',
      CA_DATA_DIR: '/srv/ca',
      CA_METRICS: '1',
      CA_WEBHOOKS: 'true',
    });
    expect(s).toMatchObject({
      enableRestApi: true,
      urlPath: '',
      enableAcme: true,
      enableEst: true,
      enableScep: true,
      defaultCa: 'Issuing',
      defaultProfile: 'device',
      defaultExpiresMs: 7 * 86_400_000,
      dataDir: '/srv/ca',
      metrics: true,
      webhooks: true,
    });
    expect([...s.effectiveProfiles.keys()]).toEqual(['client', 'server', 'webserver', 'ocsp', 'device']);
    expect(s.effectiveProfiles.get('device')?.expiresMs).toBe(7 * 86_400_000);
  });

  test.each([
    ['CA_ENABLE_ACME', 'maybe', 'environment variable CA_ENABLE_ACME must be true/false, 1/0, yes/no or on/off (got "maybe")'],
    ['CA_ENABLE_EST', 'maybe', 'environment variable CA_ENABLE_EST must be true/false, 1/0, yes/no or on/off (got "maybe")'],
    ['CA_ENABLE_SCEP', 'maybe', 'environment variable CA_ENABLE_SCEP must be true/false, 1/0, yes/no or on/off (got "maybe")'],
    ['CA_METRICS', 'enabled', 'environment variable CA_METRICS must be true/false, 1/0, yes/no or on/off (got "enabled")'],
    ['CA_URL_PATH', 'pki', `environment variable CA_URL_PATH must be '' or end with '/', e.g. 'pki/' (got "pki")`],
    [
      'CA_URL_PATH',
      '/pki/',
      `environment variable CA_URL_PATH must not start with '/'; use 'django_ca/' rather than '/django_ca/' (got "/pki/")`,
    ],
    ['CA_URL_PATH', 'a/../', 'environment variable CA_URL_PATH may contain only letters,'],
    ['CA_DEFAULT_EXPIRES', '0', 'environment variable CA_DEFAULT_EXPIRES must be a number of days >= 1 (got "0")'],
    ['CA_PROFILES', '{', 'environment variable CA_PROFILES must be JSON'],
    ['CA_PROFILES', '[]', 'environment variable CA_PROFILES must be a JSON object mapping profile names'],
    ['CA_PROFILES', '{"x": {"algorithm": "MD5"}}', 'environment variable CA_PROFILES: x.algorithm'],
    ['CA_DEFAULT_PROFILE', 'nope', 'environment variable CA_DEFAULT_PROFILE must name a configured profile (got "nope"'],
  ])('%s=%j is a SettingsError naming it', (variable, value, message) => {
    let error: unknown;
    try {
      readSettings({ [variable]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).variable).toBe(variable);
    expect((error as SettingsError).message.startsWith(message)).toBe(true);
  });
});
