/**
 * One options shape (docs/reference/options.md): each module's settings under its key — `rest`, `revocation`
 * (beside `acme`, `metrics`, `webhooks`) — the flattened names of before as deprecated aliases that
 * mean the same, a setting given both ways refused; and `logger` taken by every entry point.
 */
import express from 'express';
import request from 'supertest';
import { createCaApiRouter, createMetricsRouter, createRevocationRouter, createWebhookDelivery, type Logger } from '../../lib';
import { resolveOptions, type CaApiRouterOptions } from '../../lib/options';
import { TEST_KEK } from '../cli/helpers';
import { idleOrderRunner, memoryUserStore } from '../helpers/http';
import { openTestDatabase, type TestDatabase } from '../helpers/database';

const store = memoryUserStore();

function errorOf(options: unknown): string {
  try {
    resolveOptions({ env: {}, ...(options as CaApiRouterOptions) });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected resolveOptions to throw');
}

/** A logger that keeps what it is given. */
function keepingLogger(): Logger & { errors: { message: string; fields: unknown }[] } {
  const errors: { message: string; fields: unknown }[] = [];
  const logger = {
    errors,
    info: () => undefined,
    warn: () => undefined,
    error: (message: string, fields?: unknown) => void errors.push({ message, fields }),
    child: () => logger,
  };
  return logger;
}

describe('createCaApiRouter: module settings under their keys', () => {
  const NESTED: CaApiRouterOptions = {
    store,
    env: {},
    rest: { enabled: true, orderWaitMs: 0, signInRequest: false, bodyLimit: 4096 },
    revocation: { enabled: false, ocspSigning: 'ca' },
  };
  const FLAT: CaApiRouterOptions = {
    store,
    env: {},
    enableRestApi: true,
    orderWaitMs: 0,
    signInRequest: false,
    bodyLimit: 4096,
    serveRevocation: false,
    ocspSigning: 'ca',
  };

  test('`rest` and `revocation` mean what the deprecated flattened names mean', () => {
    // Every resolved value but the functions (a fresh `console.error` wrapper each time) and the store.
    const comparable = (o: object) => Object.entries(o).filter(([k, v]) => typeof v !== 'function' && k !== 'store');
    const nested = resolveOptions(NESTED);
    expect(comparable(nested)).toEqual(comparable(resolveOptions(FLAT)));
    expect(nested).toMatchObject({
      enableRestApi: true,
      orderWaitMs: 0,
      signInRequest: false,
      bodyLimit: 4096,
      serveRevocation: false,
      ocspSigning: 'ca',
    });
    // And differ from the defaults, so the comparison above compares something.
    expect(resolveOptions({ store, env: {} })).toMatchObject({
      enableRestApi: false,
      serveRevocation: true,
      ocspSigning: 'delegate',
      signInRequest: true,
    });
  });

  test.each([
    ['`rest.enabled` is also given as `enableRestApi`', { rest: { enabled: true }, enableRestApi: true }],
    ['`rest.orderWaitMs` is also given as `orderWaitMs`', { rest: { orderWaitMs: 1 }, orderWaitMs: 1 }],
    ['`revocation.ocspSigning` is also given as `ocspSigning`', { revocation: { ocspSigning: 'ca' }, ocspSigning: 'ca' }],
    ['`revocation.enabled` is also given as `serveRevocation`', { revocation: { enabled: false }, serveRevocation: false }],
    ['unknown option `enable`; known options are enabled, orderWaitMs, signInRequest, bodyLimit', { rest: { enable: true } }],
    ['expected an options object such as { revocation: { enabled: true } }', { revocation: 'yes' }],
    ['bodyLimit', { rest: { bodyLimit: -1 } }],
    ["option `ocspSigning` must be 'delegate' or 'ca'", { revocation: { ocspSigning: 'mine' } }],
  ])('refused, saying %s', (words, options) => {
    expect(errorOf(options)).toContain(words);
  });

  test('over HTTP: the API on under `rest`, the revocation endpoints off under `revocation`', async () => {
    const app = express();
    const router = createCaApiRouter({
      store,
      keyBackends: {},
      env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK },
      orderRunner: idleOrderRunner(),
      rest: { enabled: true },
      revocation: { enabled: false },
    });
    app.use(router);
    app.use((_req, res) => void res.status(418).send('host'));
    try {
      expect((await request(app).get('/django_ca/api/ca/')).status).toBe(401); // the API answers (no credentials)
      expect((await request(app).get('/django_ca/issuer/ABCD.der')).status).toBe(418); // falls through to the host
    } finally {
      await router.close();
    }
  });
});

describe('`logger` on every entry point', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
  });
  afterAll(async () => {
    await db.close();
  });

  test('createRevocationRouter logs an unexpected error through `logger`', async () => {
    const logger = keepingLogger();
    const failing = Object.create(db.store) as typeof db.store;
    failing.findCaBySerial = async () => {
      throw new Error('disk on fire');
    };
    const router = createRevocationRouter({ store: failing, logger, env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK } });
    const app = express().use(router);
    try {
      expect((await request(app).get('/django_ca/issuer/ABCD.der')).status).toBe(500);
      expect(logger.errors.map((e) => (e.fields as { err: Error }).err.message)).toEqual(['disk on fire']);
    } finally {
      await router.close();
    }
  });

  test('createMetricsRouter and createWebhookDelivery take `logger` (and refuse one that is not a Logger)', async () => {
    const logger = keepingLogger();
    const metrics = createMetricsRouter({ store: db.store, logger });
    const delivery = createWebhookDelivery({ store: db.store, logger, env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK }, pollMs: 60_000 });
    await metrics.close();
    await delivery.close();
    expect(() => createMetricsRouter({ store: db.store, logger: {} as Logger })).toThrow('option `logger` must implement the Logger port');
    expect(() => createWebhookDelivery({ store: db.store, logger: console as unknown as Logger })).toThrow(
      'option `logger` must implement the Logger port',
    );
    expect(() => createRevocationRouter({ store: db.store, logger: 1 as unknown as Logger })).toThrow(
      'option `logger` must implement the Logger port',
    );
  });
});
