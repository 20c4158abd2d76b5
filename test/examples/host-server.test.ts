/**
 * The example host server, started as its own process on a random port with a fresh data directory:
 * the printed walk-through (curl + openssl + node) runs as printed and ends with `openssl verify`
 * saying OK; a restart keeps the CAs and the credentials.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { caAdmin } from '../cli/child';
import { startChildServer, stopChild, type ChildServer } from './child-server';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'host-server-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function walkThrough(server: ChildServer): string {
  const out = server.output();
  return out.slice(out.indexOf('--- walk-through ---') + '--- walk-through ---'.length, out.indexOf('--- end ---'));
}

test('first start prints a working walk-through; a restart keeps the data', async () => {
  const env = { CA_DATA_DIR: path.join(dir, 'data') };
  fs.mkdirSync(env.CA_DATA_DIR);
  const first = await startChildServer(env);
  try {
    expect(first.output()).toContain('generated a development key-encryption key');
    expect(first.output()).toContain('Created in this database: Example Root, Example Intermediate, API user demo.');
    expect(first.output()).toMatch(/API docs: http:\/\/127\.0\.0\.1:\d+\/django_ca\/api\/docs\//);
    const work = fs.mkdtempSync(path.join(dir, 'walk-'));
    fs.writeFileSync(path.join(work, 'walk.sh'), walkThrough(first));
    const result = execFileSync('bash', ['-e', 'walk.sh'], { cwd: work, encoding: 'utf8', timeout: 60_000 });
    expect(result).toMatch(/order [A-Za-z0-9]+: issued/);
    expect(result).toContain('demo.pem: OK');
    // The relying-party half: AIA chasing, OCSP good → revoked at once, the CRL lists it, verify rejects.
    expect(result).toMatch(/demo\.pem: good[\s\S]*demo\.pem: revoked[\s\S]*Reason: keyCompromise/);
    expect(result).toContain('Key Compromise');
    expect(result).toMatch(/error 23 at 0 depth lookup: certificate revoked/);
    // The leaf is an end-entity certificate for the requested name (openssl as the oracle).
    const text = execFileSync('openssl', ['x509', '-in', path.join(work, 'demo.pem'), '-noout', '-text'], { encoding: 'utf8' });
    expect(text).toContain('DNS:demo.example.com');
    expect(text).toContain('CA:FALSE');
  } finally {
    await stopChild(first.child);
  }

  // Who did what, as `ca-admin audit_log` tells it: the server's demo data and the responder
  // certificate made while answering OCSP are named, none is an anonymous write around the library.
  const audit = caAdmin(env.CA_DATA_DIR, ['audit_log']);
  expect(audit.code).toBe(0);
  const records = audit.stdout
    .trim()
    .split('\n')
    .map(
      (line) => JSON.parse(line) as { type: string; actor: { type: string; name?: string; protocol: string }; data: { profile?: string } },
    );
  expect(records.filter((r) => r.actor.protocol === 'sql')).toEqual([]);
  const created = records.filter((r) => r.type === 'ca.created' || r.type === 'user.created');
  expect(created.length).toBe(3);
  for (const r of created) expect(r.actor).toEqual({ type: 'system', name: 'example-server', protocol: 'library' });
  const responders = records.filter((r) => r.data.profile === 'ocsp');
  expect(responders.length).toBeGreaterThan(0);
  for (const r of responders) {
    expect(r.type).toBe('certificate.issued');
    expect(r.actor).toEqual({ type: 'system', name: 'express-ca-api', protocol: 'library' });
  }

  const second = await startChildServer(env);
  try {
    expect(second.output()).not.toContain('Created');
    expect(second.output()).toContain('using the development key-encryption key');
    expect([second.username, second.password, second.caSerial]).toEqual([first.username, first.password, first.caSerial]);
    const res = await fetch(`${second.apiRoot}/ca/`, {
      headers: { Authorization: `Basic ${Buffer.from(`${second.username}:${second.password}`).toString('base64')}` },
    });
    expect(res.status).toBe(200);
    const cas = (await res.json()) as { certificate: { serial: string } }[];
    expect(cas.map((c) => c.certificate.serial)).toEqual([first.caSerial]);
  } finally {
    await stopChild(second.child);
  }
}, 180_000);
