import { createCaApiRouter } from '../../lib';
import { resolveOptions, type CaApiRouterOptions } from '../../lib/options';
import { idleOrderRunner, memoryUserStore } from '../helpers/http';
import { TEST_KEK } from '../cli/helpers';

const store = memoryUserStore();

function errorOf(options: unknown): string {
  try {
    createCaApiRouter({ env: {}, ...(options as CaApiRouterOptions) });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected createCaApiRouter to throw');
}

describe('createCaApiRouter options', () => {
  test('defaults: disabled, django_ca/ prefix, webserver profile, 100 days', () => {
    const o = resolveOptions({ env: {} });
    expect(o.enableRestApi).toBe(false);
    expect(o.urlPath).toBe('django_ca/');
    expect(o.apiRoot).toBe('/django_ca/api/');
    expect(o.defaultProfile).toBe('webserver');
    expect(o.defaultExpiresMs).toBe(100 * 24 * 3600 * 1000);
    expect(o.bodyLimit).toBe(2.5 * 1024 * 1024);
    expect(o.signInRequest).toBe(true);
  });

  test('environment variables are read when the options are absent', () => {
    const o = resolveOptions({ store, env: { CA_ENABLE_REST_API: 'True', CA_URL_PATH: '' } });
    expect(o.enableRestApi).toBe(true);
    expect(o.apiRoot).toBe('/api/');
    const explicit = resolveOptions({ enableRestApi: false, urlPath: 'x/', env: { CA_ENABLE_REST_API: '1', CA_URL_PATH: 'y/' } });
    expect(explicit.enableRestApi).toBe(false);
    expect(explicit.urlPath).toBe('x/');
  });

  test('an enabled API without keyBackends gets the default key backend from the package entry (keys in the store)', async () => {
    const router = createCaApiRouter({
      store,
      enableRestApi: true,
      env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK },
      orderRunner: idleOrderRunner(),
    });
    try {
      expect(Object.keys(router.options.keyBackends)).toEqual(['default']);
      expect(router.options.keyBackends.default.alias).toBe('default');
    } finally {
      await router.close();
    }
    // resolveOptions only validates: the defaults are the composition root's business (lib/wiring.ts).
    expect(resolveOptions({ store, enableRestApi: true, env: {} }).keyBackends).toEqual({});
    expect(resolveOptions({ env: {} }).keyBackends).toEqual({});
  });

  test('the default key backend needs a key-encryption key: missing or malformed is an OptionsError at construction', () => {
    const build = (env: Record<string, string>) => () =>
      createCaApiRouter({ store, enableRestApi: true, env, orderRunner: idleOrderRunner() });
    expect(build({})).toThrow(
      /^createCaApiRouter: no key-encryption key for CA private keys: set CA_KEY_ENCRYPTION_KEY .*openssl rand -base64 32/,
    );
    expect(build({ CA_KEY_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') })).toThrow(
      /^createCaApiRouter: CA_KEY_ENCRYPTION_KEY: .*32 bytes/,
    );
    // A host that brings its own key backends (the example server's development key) is not asked.
    const own = createCaApiRouter({ store, enableRestApi: true, env: {}, keyBackends: {}, orderRunner: idleOrderRunner() });
    return own.close();
  });

  test('profiles are resolved once, at construction: a bad profile is an OptionsError naming it', () => {
    expect(errorOf({ profiles: { mine: { extensions: { key_usage: { value: ['noSuchUsage'] } } } } })).toMatch(
      /^createCaApiRouter: option `profiles`: mine\.extensions\.key_usage/,
    );
    const o = resolveOptions({ env: {}, profiles: { client: null, mine: { description: 'x' } } });
    expect([...o.effectiveProfiles.keys()]).toEqual(['server', 'webserver', 'enduser', 'ocsp', 'mine']);
  });

  test('defaultExpires in days or ms', () => {
    expect(resolveOptions({ env: {}, defaultExpires: 2 }).defaultExpiresMs).toBe(2 * 86_400_000);
    expect(resolveOptions({ env: {}, defaultExpires: { days: 1 } }).defaultExpiresMs).toBe(86_400_000);
    expect(resolveOptions({ env: {}, defaultExpires: { ms: 5000 } }).defaultExpiresMs).toBe(5000);
  });

  test.each([
    [{ urlPath: 42 }, "option `urlPath` must be a string such as 'django_ca/' or '' (got 42)"],
    [{ urlPath: 'ca' }, "option `urlPath` must be '' or end with '/', e.g. 'ca/' (got \"ca\")"],
    [{ urlPath: '/ca/' }, "must not start with '/'"],
    [{ urlPath: 'a/../' }, "'..'"],
    [{ urlPath: 'a b/' }, 'may contain only'],
    [{ enableRestApi: 'yes' }, 'option `enableRestApi` must be true or false (got "yes")'],
    [{ enableRestApi: true }, 'option `store` is required when the REST API is enabled'],
    [{ store: {} }, 'option `store` must implement the Store port'],
    [
      { defaultProfile: 'nope' },
      "option `defaultProfile` names 'nope', which is not a configured profile (configured: client, server, webserver, enduser, ocsp)",
    ],
    [{ profiles: { webserver: null } }, "option `defaultProfile` names 'webserver', which is not a configured profile"],
    [{ profiles: { a: 5 } }, "profile 'a' must be an object, or null to remove it (got 5)"],
    [{ defaultExpires: -1 }, 'option `defaultExpires` must be a positive duration'],
    [{ defaultExpires: '100' }, 'option `defaultExpires` must be a number of days'],
    [{ bodyLimit: 1.5 }, 'option `bodyLimit` must be a positive whole number of bytes'],
    [{ signInRequest: 'no' }, 'option `signInRequest` must be true or false (got "no")'],
    [{ keyBackends: { default: { alias: 'other', createKey() {}, importKey() {}, getSigner() {} } } }, 'reports alias "other"'],
    [{ keyBackends: { default: {} } }, "'default' must implement the KeyBackend port"],
    [{ authenticator: {} }, 'option `authenticator` must have an authenticate(username, password) method'],
    [{ urlpath: 'x/' }, 'unknown option `urlpath`'],
    [{ env: { CA_ENABLE_REST_API: 'maybe' } }, 'environment variable CA_ENABLE_REST_API must be true/false'],
    [{ env: { CA_URL_PATH: 'noslash' } }, "environment variable CA_URL_PATH must be '' or end with '/'"],
  ])('%j is rejected at construction', (options, message) => {
    const text = errorOf(options);
    expect(text.startsWith('createCaApiRouter: ')).toBe(true);
    expect(text).toContain(message);
  });

  test('a profile added by the host can be the default', () => {
    expect(resolveOptions({ env: {}, profiles: { mine: { description: 'x' } }, defaultProfile: 'mine' }).defaultProfile).toBe('mine');
  });
});
