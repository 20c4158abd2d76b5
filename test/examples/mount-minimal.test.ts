/**
 * examples/mount-minimal/app.ts, run as its own process exactly as written: an existing Express app
 * that mounts the router under /pki beside its own routes. A CA and an API user are made first with
 * `ca-admin` on the same embedded database; the app then serves them, keeps its own routes, and
 * signs a certificate that `openssl verify` accepts.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openssl, opensslCsr } from '../cli/openssl';
import { caAdmin } from '../cli/child';
import { TS_REGISTER } from './child-server';
import { TEST_KEK } from '../cli/helpers';
import { sanitizeSerial } from '../../lib/http/path-matcher';

const ROOT = path.resolve(__dirname, '../..');
const APP = path.join(ROOT, 'examples/mount-minimal/app.ts');

let dir: string;
let child: ChildProcess | null = null;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mount-minimal-'));
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

function startApp(env: Record<string, string>): Promise<string> {
  child = spawn(process.execPath, ['-r', TS_REGISTER, APP], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: '0', TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`app did not start:\n${out}`)), 60_000);
    child?.on('exit', (code) => reject(new Error(`app exited with ${code}:\n${out}`)));
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\{.*\})/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${(JSON.parse(m[1]) as { port: number }).port}`);
      }
    };
    child?.stdout?.on('data', onData);
    child?.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  });
}

test('the minimal mount serves the API under the host prefix and leaves the host its routes', async () => {
  // ca-admin (a child process, with the test KEK) and the app share the database and the KEK.
  const env = { DATABASE_URL: path.join(dir, 'data'), CA_KEY_ENCRYPTION_KEY: TEST_KEK };
  const admin = (args: string[]) => {
    const r = caAdmin(env.DATABASE_URL, args);
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
    return r.stdout.trim();
  };
  // The CLI prints the serial with colons and leading zeros; the API writes it without either (D7).
  const serial = sanitizeSerial(admin(['init_ca', '--key-type', 'EC', '--api-enable', 'Mounted', 'CN=Mounted CA']).trim());
  admin(['create_api_user', '--all-permissions', '--password', 'pw-mounted', 'mounter']);

  const base = await startApp(env);
  const auth = { Authorization: `Basic ${Buffer.from('mounter:pw-mounted').toString('base64')}` };
  const api = `${base}/pki/django_ca/api`;

  expect(await (await fetch(`${base}/health`)).json()).toEqual({ ok: true });
  const anonymous = await fetch(`${api}/ca/`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="django-ca"');
  const cas = (await (await fetch(`${api}/ca/`, { headers: auth })).json()) as { certificate: { serial: string } }[];
  expect(cas.map((c) => c.certificate.serial)).toEqual([serial]);
  // Outside the API root the host app answers (Express's own 404 here), not the library.
  expect((await fetch(`${base}/pki/elsewhere`)).headers.get('content-type')).toMatch(/^text\/html/);

  const csr = fs.readFileSync(opensslCsr(dir, 'leaf', '/CN=leaf.example.com'), 'utf8');
  const sign = await fetch(`${api}/ca/${serial}/sign/`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ csr, subject: [{ oid: '2.5.4.3', value: 'leaf.example.com' }] }),
  });
  expect(sign.status).toBe(200);
  const { slug } = (await sign.json()) as { slug: string };
  let order: { status: string; serial: string | null } = { status: 'pending', serial: null };
  for (let i = 0; i < 100 && order.status === 'pending'; i++) {
    order = (await (await fetch(`${api}/ca/${serial}/orders/${slug}/`, { headers: auth })).json()) as typeof order;
    if (order.status === 'pending') await new Promise((r) => setTimeout(r, 100));
  }
  expect(order.status).toBe('issued');
  type WithPem = { certificate: { pem: string } };
  const leaf = (await (await fetch(`${api}/ca/${serial}/certs/${order.serial}/`, { headers: auth })).json()) as WithPem;
  const ca = (await (await fetch(`${api}/ca/${serial}/`, { headers: auth })).json()) as WithPem;
  fs.writeFileSync(path.join(dir, 'leaf.pem'), leaf.certificate.pem);
  fs.writeFileSync(path.join(dir, 'ca.pem'), ca.certificate.pem);
  expect(openssl(['verify', '-CAfile', path.join(dir, 'ca.pem'), path.join(dir, 'leaf.pem')])).toContain('leaf.pem: OK');
}, 180_000);
