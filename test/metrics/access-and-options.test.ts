/**
 * Who may read the metrics (docs/operations/metrics.md), and the module's options, checked when it is
 * constructed: the default lets only requests made directly from this machine in (a proxy's are
 * refused), a bearer token or the host's `authorize(req)` decide otherwise; a bad option is an
 * `OptionsError` naming it, never a failure later.
 */
import express from 'express';
import request from 'supertest';
import { createCaApiRouter, createMetricsRouter, createRevocationRouter, OptionsError, type MetricsRouter, type Store } from '../../lib';
import { openTestDatabase, type TestDatabase } from '../helpers/database';
import { buildApp } from '../helpers/http';
import { Scrape } from './scrape';

const TOKEN = 'f3a9c2e1d4b5a6978877665544332211';

let db: TestDatabase;
let store: Store;
const routers: MetricsRouter[] = [];

beforeAll(async () => {
  db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
  store = db.store;
});
afterAll(async () => {
  for (const router of routers) await router.close();
  await db?.close();
});

/** An app serving `createMetricsRouter(options)`, with a host route behind it answering 299. */
function metricsApp(options: Omit<Parameters<typeof createMetricsRouter>[0], 'store'> = {}): express.Express {
  const router = createMetricsRouter({ store, eventPollMs: 0, ...options });
  routers.push(router);
  const app = express();
  app.use(router);
  app.use((_req, res) => {
    res.status(299).json({ host: true });
  });
  return app;
}

describe('who may scrape', () => {
  test('by default: requests made directly from this machine, not through a proxy on it', async () => {
    const app = metricsApp();
    const ok = await request(app).get('/metrics');
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(new Scrape(ok.text).value('ca_api_database_up')).toBe(1);
    for (const [header, value] of [
      ['X-Forwarded-For', '203.0.113.7'],
      ['Forwarded', 'for=203.0.113.7'],
      ['X-Real-IP', '203.0.113.7'],
    ]) {
      const proxied = await request(app).get('/metrics').set(header, value);
      expect(proxied.status).toBe(403);
      expect(proxied.body).toEqual({ detail: 'Forbidden' });
    }
  });

  test('GET and HEAD only; other paths are the host app’s', async () => {
    const app = metricsApp();
    const post = await request(app).post('/metrics');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const head = await request(app).head('/metrics');
    expect(head.status).toBe(200);
    expect(head.text ?? '').toBe('');
    expect((await request(app).get('/metrics/')).status).toBe(299);
    expect((await request(app).get('/metricsx')).status).toBe(299);
  });

  test('a bearer token: missing or wrong is a 401 with a Bearer challenge; right is let in, proxied or not', async () => {
    const app = metricsApp({ bearerToken: TOKEN, path: '/internal/metrics' });
    const none = await request(app).get('/internal/metrics');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect((await request(app).get('/internal/metrics').set('Authorization', `Bearer ${TOKEN}x`)).status).toBe(401);
    expect((await request(app).get('/internal/metrics').set('Authorization', 'Basic YTpi')).status).toBe(401);
    expect((await request(app).get('/internal/metrics').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(200);
    const proxied = await request(app).get('/internal/metrics').set('Authorization', `bearer ${TOKEN}`).set('X-Forwarded-For', '10.1.1.1');
    expect(proxied.status).toBe(200);
    expect((await request(app).get('/metrics')).status).toBe(299);
  });

  test("the host's authorize(req) decides, also asynchronously; with a token, both must agree", async () => {
    const app = metricsApp({ authorize: async (req) => req.headers['x-scraper'] === 'prometheus' });
    expect((await request(app).get('/metrics')).status).toBe(403);
    expect((await request(app).get('/metrics').set('X-Scraper', 'prometheus').set('X-Forwarded-For', '10.1.1.1')).status).toBe(200);

    const both = metricsApp({ bearerToken: TOKEN, authorize: (req) => req.headers['x-scraper'] === 'prometheus' });
    expect((await request(both).get('/metrics').set('X-Scraper', 'prometheus')).status).toBe(401);
    expect((await request(both).get('/metrics').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(403);
    expect((await request(both).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).set('X-Scraper', 'prometheus')).status).toBe(200);
  });

  test('each router has a registry of its own: several in one process do not clash', async () => {
    const texts = await Promise.all([metricsApp(), metricsApp()].map(async (app) => (await request(app).get('/metrics')).text));
    for (const text of texts) expect(new Scrape(text).value('ca_api_login_failures_total')).toBe(0);
    const off = metricsApp({ processMetrics: false });
    const scraped = new Scrape((await request(off).get('/metrics')).text);
    expect(scraped.families.has('process_cpu_user_seconds_total')).toBe(false);
    expect(scraped.families.has('ca_api_certificates_issued_total')).toBe(true);
  });

  test('off unless enabled: the path is the host app’s', async () => {
    const { app, close } = buildApp({ enableRestApi: true, store });
    try {
      expect((await request(app).get('/metrics')).status).toBe(299);
    } finally {
      await close();
    }
  });
});

describe('options, checked at construction', () => {
  const api = (metrics: unknown) => () => createCaApiRouter({ metrics: metrics as never });

  test.each([
    [{ enabled: 'yes' }, /createCaApiRouter: option `metrics\.enabled` must be true or false/],
    [{ path: 'metrics' }, /option `metrics\.path` must be a path such as '\/metrics'/],
    [{ path: '/metrics/' }, /option `metrics\.path`/],
    [{ path: '/a/../metrics' }, /option `metrics\.path`/],
    [{ bearerToken: 'secret' }, /option `metrics\.bearerToken` must be a token of at least 16 characters/],
    [{ bearerToken: `${TOKEN} ` }, /option `metrics\.bearerToken`/],
    [{ authorize: true }, /option `metrics\.authorize` must be a function/],
    [{ eventPollMs: -1 }, /option `metrics\.eventPollMs` must be 0 \(read when scraped only\) or 100 to 3600000 ms/],
    [{ eventPollMs: 50 }, /option `metrics\.eventPollMs`/],
    [{ processMetrics: 1 }, /option `metrics\.processMetrics` must be true or false/],
    [{ enabeld: true }, /unknown option `enabeld`/],
    ['on', /option `metrics` must be \{ enabled: true, … \} or a router made by createMetricsRouter \(got "on"\)/],
    [() => 1, /option `metrics` must be .* \(got a function without a metrics sink\)/],
  ])('createCaApiRouter({ metrics: %p }) throws', (metrics, message) => {
    expect(api(metrics)).toThrow(OptionsError);
    expect(api(metrics)).toThrow(message);
  });

  test('createMetricsRouter names itself, wants a store and knows its options', () => {
    expect(() => createMetricsRouter(undefined as never)).toThrow(/^createMetricsRouter: expected an options object such as \{ store \}/);
    expect(() => createMetricsRouter({} as never)).toThrow(/createMetricsRouter: option `store` is required/);
    expect(() => createMetricsRouter({ store, enabled: true } as never)).toThrow(/createMetricsRouter: unknown option `enabled`/);
    expect(() => createMetricsRouter({ store, path: 'x' })).toThrow(/createMetricsRouter: option `path` must be a path/);
    expect(() => createMetricsRouter({ store, logError: 'console' as never })).toThrow(
      /createMetricsRouter: option `logError` must be a function/,
    );
  });

  test('createRevocationRouter takes a metrics router, nothing else', () => {
    expect(() => createRevocationRouter({ store, metrics: {} as never })).toThrow(
      /createRevocationRouter: option `metrics` must be a router made by createMetricsRouter/,
    );
    const metrics = createMetricsRouter({ store, eventPollMs: 0 });
    routers.push(metrics);
    const revocation = createRevocationRouter({ store, metrics, keyBackends: {} });
    expect(revocation.options.metrics).toBe(metrics.sink);
  });
});
