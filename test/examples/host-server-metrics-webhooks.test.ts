/**
 * CA_METRICS and CA_WEBHOOKS in the example server (docs/guides/getting-started.md): with them it serves
 * Prometheus metrics at /metrics and delivers webhooks, and says where at start — the metrics URL,
 * and the ca-admin lines that add an endpoint, which run as printed; without them both are off.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { opensslCsr } from '../api/fixture';
import { Receiver, sleep } from '../webhooks/receiver';
import { startChildServer, stopChild, TS_REGISTER, type ChildServer } from './child-server';

// Three starts of the example server, each several seconds on a loaded 2-core machine.
jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '../..');
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'host-operating-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The server's base URL (its API root without `/django_ca/api`). */
const baseOf = (server: ChildServer) => new URL(server.apiRoot).origin;

/** Sign a certificate through the REST API: one `certificate.issued` event. */
async function signOne(server: ChildServer, cn: string): Promise<void> {
  const res = await fetch(`${server.apiRoot}/ca/${server.caSerial}/sign/`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}`,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ csr: opensslCsr('EC').csr, subject: [{ oid: 'CN', value: cn }] }),
  });
  expect(res.status).toBe(200);
}

/** The lines the server printed under "Webhooks: on", as a bash script that runs ca-admin from the sources. */
function printedWebhookScript(output: string, receiverUrl: string): string {
  const lines = output.slice(output.indexOf('Webhooks: on')).split('\n').slice(1);
  const commands = lines.slice(0, lines.findIndex((l) => l.includes('add_webhook')) + 1).filter((l) => !l.trim().startsWith('('));
  return [
    `ca_admin() { "${process.execPath}" -r "${TS_REGISTER}" "${path.join(ROOT, 'lib/cli/main.ts')}" "$@"; }`,
    ...commands.map((l) =>
      l
        .replace(/#.*$/, '')
        .replace('npx ca-admin', 'ca_admin')
        .replace('https://receiver.example/ca', `${receiverUrl} --event certificate.issued`),
    ),
  ].join('\n');
}

test('CA_METRICS=true and CA_WEBHOOKS=true: metrics at the printed URL, webhooks delivered to an endpoint added as printed; off without them', async () => {
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);
  const on = { CA_DATA_DIR: data, CA_METRICS: 'true', CA_WEBHOOKS: 'true' };

  const first = await startChildServer(on);
  let output: string;
  try {
    output = first.output();
    const metricsUrl = `${baseOf(first)}/metrics`;
    expect(output).toContain(`Metrics (Prometheus; scrapes from this machine only): ${metricsUrl}\n`);
    const scrape = await fetch(metricsUrl);
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    expect(text).toMatch(/^# HELP ca_api_/m);
    expect(text).toMatch(/^ca_api_database_up 1$/m);
    expect(output).toContain(
      'Webhooks: on (docs/operations/webhooks.md). Add an endpoint with ca-admin, on this database and key-encryption key:\n',
    );
    expect(output).toContain(`  export CA_KEY_ENCRYPTION_KEY=$(cat ${path.join(data, 'dev-key-encryption-key')})\n`);
  } finally {
    await stopChild(first.child);
  }

  // The endpoint, added as the server said (stopped: the embedded database serves one process at a time).
  const receiver = await new Receiver().start();
  try {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.CA_KEY_ENCRYPTION_KEY;
    delete env.DATABASE_URL;
    const added = execFileSync('bash', ['-e', '-c', printedWebhookScript(output, receiver.url)], { cwd: dir, env, encoding: 'utf8' });
    receiver.secret = /^secret: (whsec_\S+)$/m.exec(added)?.[1] ?? '';
    expect(receiver.secret).not.toBe('');

    const second = await startChildServer(on);
    try {
      await signOne(second, 'hooked.example.com');
      const [event] = await receiver.waitFor(1, 30_000);
      expect(event.type).toBe('certificate.issued');
      expect(receiver.rejected).toBe(0);
    } finally {
      await stopChild(second.child);
    }

    const off = await startChildServer({ CA_DATA_DIR: data });
    try {
      expect(off.output()).not.toContain('Metrics');
      expect(off.output()).not.toContain('Webhooks');
      expect((await fetch(`${baseOf(off)}/metrics`)).status).toBe(404);
      await signOne(off, 'unhooked.example.com');
      // Delivery would poll every second (docs/operations/webhooks.md, pollMs); off, nothing arrives.
      await sleep(4000);
      expect(receiver.requests).toBe(1);
    } finally {
      await stopChild(off.child);
    }
  } finally {
    await receiver.stop();
  }
});
