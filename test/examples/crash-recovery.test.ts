/**
 * Contract D3, durability: a process that accepted a sign request dies (SIGKILL) before the order is
 * issued; a new process on the same PGlite directory finishes it. The first process runs with
 * CA_ORDER_RUNNER=off so that the order is certainly still pending when it is killed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { opensslCsr } from '../api/fixture';
import { startChildServer, stopChild } from './child-server';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('an order accepted before a crash is issued after the restart', async () => {
  const env = { CA_DATA_DIR: path.join(dir, 'data') };
  fs.mkdirSync(env.CA_DATA_DIR);
  const first = await startChildServer({ ...env, CA_ORDER_RUNNER: 'off' });
  const auth = { Authorization: `Basic ${Buffer.from(`${first.username}:${first.password}`).toString('base64')}` };
  let slug: string;
  try {
    const res = await fetch(`${first.apiRoot}/ca/${first.caSerial}/sign/`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ csr: opensslCsr('EC').csr, subject: [{ oid: 'CN', value: 'crash.example.com' }] }),
    });
    expect(res.status).toBe(200);
    slug = ((await res.json()) as { slug: string }).slug;
    const order = (await (await fetch(`${first.apiRoot}/ca/${first.caSerial}/orders/${slug}/`, { headers: auth })).json()) as {
      status: string;
    };
    expect(order.status).toBe('pending');
  } finally {
    await stopChild(first.child, 'SIGKILL');
  }

  const second = await startChildServer(env);
  try {
    let order: { status: string; serial: string | null } = { status: 'pending', serial: null };
    for (let i = 0; i < 100 && order.status === 'pending'; i++) {
      const res = await fetch(`${second.apiRoot}/ca/${second.caSerial}/orders/${slug}/`, { headers: auth });
      expect(res.status).toBe(200);
      order = (await res.json()) as typeof order;
      if (order.status === 'pending') await new Promise((r) => setTimeout(r, 100));
    }
    expect(order.status).toBe('issued');
    const cert = await fetch(`${second.apiRoot}/ca/${second.caSerial}/certs/${order.serial}/`, { headers: auth });
    expect(cert.status).toBe(200);
    expect(((await cert.json()) as { certificate: { subject: unknown } }).certificate.subject).toEqual([
      { oid: '2.5.4.3', value: 'crash.example.com' },
    ]);
  } finally {
    await stopChild(second.child);
  }
});
