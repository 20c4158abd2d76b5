/**
 * CA_ALLOWED_HOSTS in the example server (docs/guides/getting-started.md): the router's `allowedHosts`
 * from the environment, next to TRUST_PROXY. Requests with raw Host headers (fetch may not set one).
 */
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { startChildServer, stopChild, type ChildServer } from './child-server';

jest.setTimeout(120_000);

let dir: string;
let server: ChildServer;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'host-hosts-'));
  fs.mkdirSync(path.join(dir, 'data'));
  server = await startChildServer({
    CA_DATA_DIR: path.join(dir, 'data'),
    CA_ENABLE_ACME: 'true',
    CA_ALLOWED_HOSTS: 'ca.example.com, .internal',
    TRUST_PROXY: 'loopback',
  });
});
afterAll(async () => {
  if (server) await stopChild(server.child);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** GET `path` of the server with these headers (Host included); status, content type, body. */
function get(
  urlPath: string,
  headers: Record<string, string>,
): Promise<{ status: number; type: string; body: string; headers: http.IncomingHttpHeaders }> {
  const { port } = new URL(server.apiRoot);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body, headers: res.headers }));
    });
    req.on('error', reject);
  });
}

test('requests for other hosts get a 400 (JSON; problem+json on ACME); allowed hosts, also through the trusted proxy, are served', async () => {
  const directory = `/django_ca/acme/directory/${server.caSerial}/`;
  const refused = await get(directory, { Host: 'evil.example' });
  expect(refused).toMatchObject({ status: 400, type: 'application/problem+json' });
  expect(JSON.parse(refused.body)).toMatchObject({ type: 'urn:ietf:params:acme:error:malformed', status: 400 });
  const api = await get('/django_ca/api/ca/', { Host: `localhost:${new URL(server.apiRoot).port}` });
  expect(api).toMatchObject({ status: 400, type: expect.stringMatching(/^application\/json/) });

  expect((await get(directory, { Host: 'ca.example.com' })).status).toBe(200);
  expect((await get(directory, { Host: 'pki.internal:8000' })).status).toBe(200);
  const proxied = await get(directory, { Host: 'backend:8000', 'X-Forwarded-Host': 'ca.example.com', 'X-Forwarded-Proto': 'https' });
  expect(proxied.status).toBe(200);
  expect(JSON.parse(proxied.body).newNonce).toMatch(/^https:\/\/ca\.example\.com\/django_ca\/acme\//);
});

test('prints the address it listens on, names no framework, answers the API root it prints, keeps the access log off the console', async () => {
  // Printed: 127.0.0.1, where it listens (listen.ts), not `localhost`, which a client may try as ::1 first.
  expect(server.output()).toMatch(/^express-ca-api example listening on http:\/\/127\.0\.0\.1:\d+$/m);
  expect(server.apiRoot).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/django_ca\/api$/);
  const accessLog = path.join(dir, 'data', 'access.log');
  expect(server.output()).toContain(`Access log: JSON lines in ${accessLog}`);

  const index = await get('/django_ca/api/', { Host: 'ca.example.com' });
  expect(index.status).toBe(200);
  expect(JSON.parse(index.body)).toEqual({ openapi: '/django_ca/api/openapi.json', docs: '/django_ca/api/docs/' });
  expect(index.headers['x-powered-by']).toBeUndefined();
  // The host app's own answers too: the setting is the app's (docs/guides/embedding.md "What the router needs").
  expect((await get('/', { Host: 'ca.example.com' })).headers['x-powered-by']).toBeUndefined();

  // The requests are in the access log file, one JSON line each, and not on the console.
  const end = Date.now() + 5000;
  while (!(fs.existsSync(accessLog) && fs.readFileSync(accessLog, 'utf8').includes('"path":"/django_ca/api/"')) && Date.now() < end)
    await new Promise((r) => setTimeout(r, 50));
  const lines = fs
    .readFileSync(accessLog, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines).toContainEqual(expect.objectContaining({ msg: 'request', method: 'GET', path: '/django_ca/api/', status: 200 }));
  expect(server.output()).not.toContain('"msg":"request"');
});
