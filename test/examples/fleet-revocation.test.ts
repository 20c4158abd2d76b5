/**
 * Two example servers on one PostgreSQL: a revocation made through one is reported by the other's
 * OCSP responder (`openssl ocsp`) and listed by its CRL within the bound docs/guides/revocation.md states (2 s).
 * Runs where TEST_DATABASE_URL names a PostgreSQL server; without it skipped locally, failed in CI
 * (`describeOnPostgres`).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeOnPostgres, openTestDatabase, type TestDatabase } from '../helpers/database';
import { childDatabaseUrl } from '../cli/database-url';
import { TEST_KEK } from '../cli/helpers';
import { startChildServer, stopChild, type ChildServer } from './child-server';

const BOUND_MS = 2000;

describeOnPostgres('two instances on one PostgreSQL', (target) => {
  let db: TestDatabase;
  let dir: string;
  const servers: ChildServer[] = [];

  beforeAll(async () => {
    db = await openTestDatabase(target);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-revocation-'));
    const env = { DATABASE_URL: childDatabaseUrl(target, db), CA_DATA_DIR: path.join(dir, 'data'), CA_KEY_ENCRYPTION_KEY: TEST_KEK };
    fs.mkdirSync(env.CA_DATA_DIR);
    servers.push(await startChildServer(env)); // makes the demo CAs and user
    servers.push(await startChildServer(env)); // finds them
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => stopChild(s.child)));
    await db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const sh = (cmd: string) => {
    const r = spawnSync('bash', ['-c', cmd], { cwd: dir, timeout: 30_000 });
    return `${r.stdout.toString()}${r.stderr.toString()}`;
  };

  test('revoke through one, the other answers revoked (OCSP) and lists it (CRL) within the bound', async () => {
    const [a, b] = servers;
    const auth = `-u '${a.username}:${a.password}'`;
    const api = a.apiRoot;
    sh(`openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key -out leaf.csr -subj /CN=fleet.example.com`);
    const body = JSON.stringify({
      csr: fs.readFileSync(path.join(dir, 'leaf.csr'), 'utf8'),
      subject: [{ oid: 'CN', value: 'fleet.example.com' }],
    });
    fs.writeFileSync(path.join(dir, 'body.json'), body);
    const slug = JSON.parse(sh(`curl -s ${auth} -H 'Content-Type: application/json' -d @body.json "${api}/ca/${a.caSerial}/sign/"`))
      .slug as string;
    let order: { status: string; serial: string } = { status: 'pending', serial: '' };
    for (let i = 0; i < 100 && order.status === 'pending'; i++) {
      order = JSON.parse(sh(`curl -s ${auth} "${api}/ca/${a.caSerial}/orders/${slug}/"`));
      if (order.status === 'pending') await new Promise((r) => setTimeout(r, 50));
    }
    expect(order.status).toBe('issued');
    const leaf = JSON.parse(sh(`curl -s ${auth} "${api}/ca/${a.caSerial}/certs/${order.serial}/"`)).certificate.pem as string;
    fs.writeFileSync(path.join(dir, 'leaf.pem'), leaf);
    sh(
      `curl -s ${auth} "${api}/ca/${a.caSerial}/" | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).certificate.pem' > ca.pem`,
    );
    sh(`cat '${path.join(dir, 'data', 'root.pem')}' ca.pem > chain.pem`);

    const bBase = b.apiRoot.replace(/\/api$/, '');
    const ocspAtB = () => sh(`openssl ocsp -issuer ca.pem -cert leaf.pem -url ${bBase}/ocsp/${a.caSerial}/cert/ -CAfile chain.pem`);
    const crlAtB = () => sh(`curl -s "${bBase}/crl/${a.caSerial}/?encoding=PEM" | openssl crl -noout -text`);
    expect(ocspAtB()).toContain('leaf.pem: good');
    expect(crlAtB()).not.toMatch(new RegExp(`Serial Number: 0?${order.serial}`)); // B now caches a CRL without it

    sh(
      `curl -s ${auth} -H 'Content-Type: application/json' -d '{"reason": "cessation_of_operation"}' "${api}/ca/${a.caSerial}/certs/${order.serial}/revoke/"`,
    );
    const revokedAt = Date.now();
    const seen = { ocsp: false, crl: false };
    while (Date.now() - revokedAt <= BOUND_MS && !(seen.ocsp && seen.crl)) {
      if (!seen.ocsp) seen.ocsp = /leaf\.pem: revoked[\s\S]*Reason: cessationOfOperation/.test(ocspAtB());
      if (!seen.crl) seen.crl = new RegExp(`Serial Number: 0?${order.serial}[\\s\\S]*?Cessation Of Operation`).test(crlAtB());
    }
    expect(seen).toEqual({ ocsp: true, crl: true });
  }, 120_000);
});
