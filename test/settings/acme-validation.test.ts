/**
 * The ACME challenge validator's settings from the environment (docs/guides/acme.md): `CA_ACME_DNS_SERVERS`,
 * `CA_ACME_HTTP01_PORT`, `CA_ACME_TLS_ALPN01_PORT`, read by lib/settings and passed to the validator.
 */
import { createCaApiRouter, OptionsError } from '../../lib';
import { acmeValidationSettings, SettingsError } from '../../lib/settings';
import { openTestDatabase, type TestDatabase } from '../helpers/database';

describe('acmeValidationSettings', () => {
  test('nothing set: nothing overridden (the defaults apply)', () => {
    expect(acmeValidationSettings({})).toEqual({});
    expect(acmeValidationSettings({ CA_ACME_DNS_SERVERS: ' ', CA_ACME_HTTP01_PORT: '' })).toEqual({});
  });

  test('DNS servers (IPv4 and IPv6, port 53 when none is given) and the two ports', () => {
    expect(
      acmeValidationSettings({
        CA_ACME_DNS_SERVERS: '127.0.0.1:5353, [::1]:53,10.0.0.2,[fd00::1],::1',
        CA_ACME_HTTP01_PORT: '5002',
        CA_ACME_TLS_ALPN01_PORT: ' 5001 ',
      }),
    ).toEqual({
      dnsServers: ['127.0.0.1:5353', '[::1]:53', '10.0.0.2:53', '[fd00::1]:53', '[::1]:53'],
      http01Port: 5002,
      tlsAlpn01Port: 5001,
    });
  });

  test.each([
    ['CA_ACME_DNS_SERVERS', 'dns.example.com:53', /^environment variable CA_ACME_DNS_SERVERS: invalid entry "dns.example.com:53"/],
    ['CA_ACME_DNS_SERVERS', '127.0.0.1:53,,', /^environment variable CA_ACME_DNS_SERVERS: invalid entry ""/],
    ['CA_ACME_DNS_SERVERS', '127.0.0.1:70000', /^environment variable CA_ACME_DNS_SERVERS: invalid entry "127.0.0.1:70000"/],
    ['CA_ACME_HTTP01_PORT', '0', /^environment variable CA_ACME_HTTP01_PORT: expected a port number \(1-65535\), got "0"$/],
    ['CA_ACME_HTTP01_PORT', '80a', /^environment variable CA_ACME_HTTP01_PORT: expected a port number/],
    ['CA_ACME_TLS_ALPN01_PORT', '65536', /^environment variable CA_ACME_TLS_ALPN01_PORT: expected a port number/],
    ['CA_ACME_TLS_ALPN01_PORT', '-1', /^environment variable CA_ACME_TLS_ALPN01_PORT: expected a port number/],
  ])('%s=%j is refused: a SettingsError naming the variable', (variable, value, message) => {
    let error: Error | undefined;
    try {
      acmeValidationSettings({ [variable]: value });
    } catch (e) {
      error = e as Error;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect(error?.message).toMatch(message);
  });

  test('an IPv6 address with a port needs its brackets: `::1:53` is the address ::1:53', () => {
    expect(acmeValidationSettings({ CA_ACME_DNS_SERVERS: '::1:53' })).toEqual({ dnsServers: ['[::1:53]:53'] });
  });
});

describe('createCaApiRouter reads them for its validator', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
  });
  afterAll(async () => {
    await db?.close();
  });

  const withAcme = (env: Record<string, string>) =>
    createCaApiRouter({
      store: db.store,
      env: { CA_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), CA_ENABLE_ACME: 'true', ...env },
    });

  test('a bad one stops the router with ACME on: an OptionsError in the words of the setting', () => {
    expect(() => withAcme({ CA_ACME_HTTP01_PORT: '80a' })).toThrow(OptionsError);
    expect(() => withAcme({ CA_ACME_HTTP01_PORT: '80a' })).toThrow(
      'createCaApiRouter: environment variable CA_ACME_HTTP01_PORT: expected a port number (1-65535), got "80a"',
    );
    expect(() => withAcme({ CA_ACME_DNS_SERVERS: 'dns.example.com' })).toThrow(/CA_ACME_DNS_SERVERS: invalid entry "dns.example.com"/);
  });

  test('good ones make a router; without ACME they are not read', async () => {
    await withAcme({ CA_ACME_HTTP01_PORT: '5002', CA_ACME_DNS_SERVERS: '127.0.0.1:5353' }).close();
    await createCaApiRouter({ store: db.store, env: { CA_ACME_HTTP01_PORT: '80a' } }).close();
  });
});
