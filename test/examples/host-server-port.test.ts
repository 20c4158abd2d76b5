/**
 * The example server and its PORT: a busy port is named with what to do about it, and a start on
 * another PORT than the first (whose address the demo CAs wrote into their OCSP, CRL and CA-issuer
 * URLs) warns and prints the `ca-admin edit_ca --default-hostname` commands that move them — which
 * work: after them the next start on that port has nothing to warn about.
 */
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { runCaAdmin } from '../../lib/cli/main';
import { freePort } from '../package/working-copy';
import { startChild, startChildServer, stopChild } from './child-server';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'host-port-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const WARNING = 'Warning: the demo CAs write OCSP, CRL and CA-issuer URLs';

test('a busy PORT is named, with what to do, instead of Node’s EADDRINUSE', async () => {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as net.AddressInfo).port;
  try {
    const data = fs.mkdirSync(path.join(dir, 'busy'), { recursive: true })!;
    const failed = await startChild({ CA_DATA_DIR: data, PORT: String(port) }, () => false).then(
      async (started) => {
        await stopChild(started.child);
        return null;
      },
      (e: Error) => e.message,
    );
    expect(failed).toContain(`Port ${port} is busy`);
    expect(failed).toContain('set PORT to another port');
    expect(failed).not.toContain('EADDRINUSE');
  } finally {
    await new Promise<void>((resolve) => busy.close(() => resolve()));
  }
}, 90_000);

test('a start on another PORT warns that the demo CAs’ URLs name the first; the printed commands move them', async () => {
  const data = fs.mkdirSync(path.join(dir, 'moved'), { recursive: true })!; // the child's working directory
  const [first, second] = [await freePort(), await freePort()];

  const one = await startChildServer({ CA_DATA_DIR: data, PORT: String(first) });
  await stopChild(one.child);
  expect(one.output()).not.toContain(WARNING);

  const two = await startChildServer({ CA_DATA_DIR: data, PORT: String(second) });
  await stopChild(two.child);
  const out = two.output();
  expect(out).toContain(`${WARNING} for localhost:${first} into the certificates they sign`);
  expect(out).toContain(`but this server listens on localhost:${second}`);
  const commands = [...out.matchAll(/^ {4}DATABASE_URL='([^']+)' npx ca-admin edit_ca '([^']+)' --default-hostname (\S+)$/gm)];
  expect(commands.map((m) => m[2]).sort()).toEqual(['Example Intermediate', 'Example Root']);

  for (const [, databaseUrl, name, hostname] of commands) {
    let stderr = '';
    const code = await runCaAdmin(['edit_ca', name, '--default-hostname', hostname], {
      stdout: { write: () => true },
      stderr: { write: (c) => (stderr += Buffer.from(c).toString('utf8')) },
      env: { DATABASE_URL: databaseUrl },
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  }

  const three = await startChildServer({ CA_DATA_DIR: data, PORT: String(second) });
  await stopChild(three.child);
  expect(three.output()).not.toContain(WARNING);
}, 180_000);
