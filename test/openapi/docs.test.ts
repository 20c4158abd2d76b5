/** The Swagger UI page (D12): served at `docs` and `docs/`, without credentials, from local assets only. */
import * as fs from 'fs';
import * as path from 'path';
import request from 'supertest';
import { buildApp, memoryUserStore, type TestApp } from '../helpers/http';

let t: TestApp;
beforeAll(() => {
  t = buildApp({ enableRestApi: true, store: memoryUserStore() }, {}, '/host');
});
afterAll(() => t.close());

const base = '/host/django_ca/api/';
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** Every URL the page loads: src= and href= attributes. */
function urlsOf(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
}

test.each(['docs', 'docs/'])('%s serves the HTML page without authentication', async (suffix) => {
  const res = await request(t.app).get(base + suffix);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.text).toContain('<title>django-ca API</title>');
  expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
  expect(res.headers['content-security-policy']).toMatch(/script-src 'self'/);
  const urls = urlsOf(res.text);
  expect(urls.length).toBeGreaterThanOrEqual(4);
  for (const url of urls) expect(url.startsWith(`${base}docs/assets/`)).toBe(true);
  expect(res.text).not.toMatch(/https?:\/\//);
  expect(res.text).not.toMatch(/<script>/); // no inline script (CSP)
});

test('every asset the page references is served, byte for byte from swagger-ui-dist', async () => {
  const html = (await request(t.app).get(base + 'docs/')).text;
  for (const url of urlsOf(html)) {
    const res = await request(t.app)
      .get(url)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect({ url, status: res.status }).toEqual({ url, status: 200 });
    const name = url.split('/').pop() as string;
    if (name === 'init.js') {
      const text = (res.body as Buffer).toString('utf8');
      expect(text).toContain(JSON.stringify(`${base}openapi.json`));
      expect(text).toContain('validatorUrl: null');
    } else {
      expect((res.body as Buffer).equals(fs.readFileSync(path.join(swaggerDir, name)))).toBe(true);
    }
  }
});

test('unknown assets are JSON 404s; other methods are JSON 405s', async () => {
  const missing = await request(t.app).get(base + 'docs/assets/../../package.json');
  expect(missing.status).toBe(404);
  const other = await request(t.app).get(base + 'docs/assets/index.html');
  expect(other.status).toBe(404);
  expect(other.headers['content-type']).toBe('application/json; charset=utf-8');
  const post = await request(t.app).post(base + 'docs');
  expect(post.status).toBe(405);
  expect(post.headers.allow).toBe('GET');
});
