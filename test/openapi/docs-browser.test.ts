/**
 * The docs page in a real browser (headless Chromium): Swagger UI renders all eleven operations, and
 * nothing is fetched from anywhere but this server.
 *
 * Proof of "nothing from outside": Chromium runs with a recording proxy for every non-local request
 * (loopback bypasses proxies), which answers 502 / drops the tunnel, so an outside request both
 * fails and is counted. A control page that does reference an outside URL shows that the recorder
 * notices. (`--host-resolver-rules` is not used: it makes Chromium give up before asking the proxy,
 * so nothing would be counted.) Chromium's own service traffic (time/update checks to Google hosts,
 * which `--disable-background-networking` does not fully stop) is not the page's and is ignored.
 *
 * Skipped when /usr/bin/chromium is absent (`apt-get install -y chromium`); CI installs it.
 */
import { execFile } from 'child_process';
import express from 'express';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { ROUTES } from '../../lib/api/routes';
import { createCaApiRouter, type CaApiRouter } from '../../lib';
import { idleOrderRunner, memoryUserStore } from '../helpers/http';
import { TEST_KEK } from '../cli/helpers';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`docs-browser.test.ts skipped: ${CHROMIUM} not found (apt-get install -y chromium)`);
}
const maybe = hasChromium ? describe : describe.skip;
const run = promisify(execFile);

/** Hosts Chromium itself talks to regardless of the page. */
const BROWSER_SERVICE = /(^|[ /.])(google\.com|googleapis\.com|gvt1\.com)(:\d+)?([/ ]|$)/;

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

maybe('Swagger UI in headless Chromium', () => {
  let router: CaApiRouter;
  let app: http.Server;
  let proxy: http.Server;
  let appPort = 0;
  let proxyPort = 0;
  const served: string[] = [];
  const outside: string[] = [];
  let profileDir: string;

  beforeAll(async () => {
    const host = express();
    host.use((req, _res, next) => {
      served.push(req.path);
      next();
    });
    router = createCaApiRouter({
      enableRestApi: true,
      store: memoryUserStore(),
      env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK },
      orderRunner: idleOrderRunner(),
    });
    host.use(router);
    host.get('/control', (_req, res) => {
      res.type('html').send('<!DOCTYPE html><html><body><p>control</p><img src="http://outside.example/pixel.png"></body></html>');
    });
    app = http.createServer(host);
    appPort = await listen(app);

    const record = (entry: string): void => {
      if (!BROWSER_SERVICE.test(entry)) outside.push(entry);
    };
    proxy = http.createServer((req, res) => {
      record(`${req.method} ${req.url}`);
      res.writeHead(502).end();
    });
    proxy.on('connect', (req, socket) => {
      record(`CONNECT ${req.url}`);
      socket.destroy();
    });
    proxyPort = await listen(proxy);
    profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
  });

  afterAll(async () => {
    await router?.close();
    await new Promise((r) => app?.close(r));
    await new Promise((r) => proxy?.close(r));
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  });

  async function dumpDom(url: string): Promise<string> {
    const { stdout } = await run(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-dev-shm-usage',
        `--user-data-dir=${profileDir}`,
        `--proxy-server=http://127.0.0.1:${proxyPort}`,
        '--virtual-time-budget=10000',
        '--dump-dom',
        url,
      ],
      { timeout: 90_000, maxBuffer: 32 * 1024 * 1024 },
    );
    return stdout;
  }

  test('control: an outside reference is seen by the recorder', async () => {
    outside.length = 0;
    const dom = await dumpDom(`http://localhost:${appPort}/control`);
    expect(dom).toContain('control');
    expect(outside.some((r) => r.includes('outside.example'))).toBe(true);
  });

  test('all eleven operations render, with only local requests', async () => {
    outside.length = 0;
    served.length = 0;
    const dom = await dumpDom(`http://localhost:${appPort}/django_ca/api/docs/`);
    for (const route of ROUTES) expect(dom).toContain(`service_api_endpoints_${route.operation}`);
    expect(dom).toContain('Revoke certificate');
    // The page really ran: it fetched its script, the initialiser and the document from us.
    expect(served).toEqual(
      expect.arrayContaining([
        '/django_ca/api/docs/',
        '/django_ca/api/docs/assets/swagger-ui-bundle.js',
        '/django_ca/api/docs/assets/init.js',
        '/django_ca/api/openapi.json',
      ]),
    );
    expect(outside).toEqual([]);
  });
});
