/**
 * Approval with real clients (docs/guides/est.md, docs/guides/scep.md): the example server's `approval` labels, and the
 * operator's `ca-admin` on the same database while the server runs — so PostgreSQL
 * (TEST_DATABASE_URL; CI sets it): the embedded database serves one process at a time. curl + openssl
 * over HTTPS get 202 with Retry-After until `ca-admin approve_enrolment_request`, then the
 * certificate; strongSwan's `pki --scep` gets PENDING and polls (CertPoll) until the operator
 * approves, then writes the certificate — over plain HTTP from a second instance on the same
 * database, as test/scep/scep-clients.test.ts: strongSwan's fetcher trusts the system's CAs only, and
 * SCEP signs and encrypts its messages itself (RFC 8894 §4). openssl verifies both up to the root.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeWith, expectSuccess, makeTlsServerCertificate, opensslVerify, run, serialOf } from '../clients/harness';
import { caAdmin } from '../cli/child';
import { childDatabaseUrl } from '../cli/database-url';
import { TEST_KEK } from '../cli/helpers';
import { startChildServer, stopChild, type ChildServer } from '../examples/child-server';
import { describeOnPostgres, openTestDatabase, type DatabaseTarget, type TestDatabase } from '../helpers/database';

const CHALLENGE = 'approve-me-2026';

/**
 * With PostgreSQL and the clients; without either, skipped locally and failed in CI (.ci/run has
 * both): `describeOnPostgres`, `describeWith`.
 */
const suite = (title: string, fn: (target: DatabaseTarget) => void) =>
  describeOnPostgres(title, (target) => describeWith(['pki', 'curl', 'openssl'], 'with pki, curl and openssl', () => fn(target)));

suite('approval with real clients against the example server (EST over HTTPS)', (target) => {
  let db: TestDatabase;
  let databaseUrl: string;
  let dir: string;
  let server: ChildServer;
  let plain: ChildServer;
  let base: string;
  let tlsCa: string;
  let rootPem: string;
  const file = (name: string) => path.join(dir, name);
  const sh = (cmd: string, timeoutMs = 60_000) => run('bash', ['-c', `set -o pipefail; ${cmd}`], { cwd: dir, timeoutMs });
  /** The one waiting request: its id, from `ca-admin list_enrolment_requests`. */
  const waitingId = (endpoint: string) => {
    const listed = caAdmin(databaseUrl, ['list_enrolment_requests']);
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    const line = listed.stdout.split('\n').find((l) => l.includes(` - pending - ${endpoint} - `));
    expect(line).toBeDefined();
    return /^(\d+) /.exec(line!)![1];
  };
  const approve = (id: string) => {
    const approved = caAdmin(databaseUrl, ['approve_enrolment_request', id]);
    expect([approved.code, approved.stderr]).toEqual([0, '']);
    expect(approved.stdout).toMatch(new RegExp(`^Approved enrolment request ${id}: issued [0-9A-F:]+\\.\\n$`));
  };

  beforeAll(async () => {
    db = await openTestDatabase(target);
    databaseUrl = childDatabaseUrl(target, db);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'approval-clients-'));
    const tls = await makeTlsServerCertificate(dir);
    tlsCa = tls.ca;
    const data = file('data');
    fs.mkdirSync(data);
    const env = {
      CA_DATA_DIR: data,
      DATABASE_URL: databaseUrl,
      CA_KEY_ENCRYPTION_KEY: TEST_KEK,
      CA_ENABLE_EST: 'true',
      CA_ENABLE_SCEP: 'true',
      CA_SCEP_CHALLENGE: CHALLENGE,
    };
    server = await startChildServer({ ...env, TLS_CERT_FILE: tls.cert, TLS_KEY_FILE: tls.key }); // makes the demo CAs
    plain = await startChildServer(env); // finds them
    base = `https://127.0.0.1:${new URL(server.apiRoot).port}`;
    expectSuccess(
      'cacerts',
      await sh(
        `curl -sS --cacert ${tlsCa} ${base}/.well-known/est/approval/cacerts | base64 -d | openssl pkcs7 -inform DER -print_certs > ca.pem`,
      ),
    );
    const chain = fs.readFileSync(file('ca.pem'), 'utf8');
    const cut = chain.indexOf('-----END CERTIFICATE-----') + 26;
    fs.writeFileSync(file('intermediate.pem'), chain.slice(0, cut));
    rootPem = file('root.pem');
    fs.writeFileSync(rootPem, chain.slice(cut));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([server, plain].filter(Boolean).map((s) => stopChild(s.child)));
    await db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the server says where requests wait', () => {
    expect(server.output()).toMatch(
      /^ {2}https:\/\/127\.0\.0\.1:\d+\/\.well-known\/est\/approval\/: new enrolments wait for ca-admin approve_enrolment_request/m,
    );
  });

  test('EST, curl + openssl: 202 with Retry-After, again 202; ca-admin approves; then 200 and the certificate, which openssl verifies', async () => {
    expectSuccess(
      'openssl req',
      await sh(
        'openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout held.key -subj /CN=held.example.org ' +
          '-addext subjectAltName=DNS:held.example.org -outform DER | base64 -w0 > held.b64',
      ),
    );
    const enrol = (out: string) =>
      sh(
        `curl -sS --cacert ${tlsCa} --user '${server.username}:${server.password}' -H 'Content-Type: application/pkcs10' ` +
          `--data-binary @held.b64 -D ${out}.headers -o ${out}.body -w '%{http_code}' ${base}/.well-known/est/approval/simpleenroll`,
      );
    for (const attempt of ['first', 'second']) {
      const waiting = await enrol(attempt);
      expect(waiting.out).toBe('202');
      expect(fs.readFileSync(file(`${attempt}.headers`), 'latin1')).toMatch(/^retry-after: 60\r$/im);
      expect(fs.readFileSync(file(`${attempt}.body`), 'utf8')).toMatch(/^Enrolment request \d+ waits for approval/);
    }
    approve(waitingId('est/approval'));
    expect((await enrol('approved')).out).toBe('200');
    expectSuccess('openssl pkcs7', await sh('base64 -d approved.body | openssl pkcs7 -inform DER -print_certs > held.pem'));
    expect(await opensslVerify(rootPem, file('intermediate.pem'), file('held.pem'))).toBe(`${file('held.pem')}: OK\n`);
    // Asked again: the same certificate, not a second one.
    expect((await enrol('again')).out).toBe('200');
    expectSuccess('openssl pkcs7', await sh('base64 -d again.body | openssl pkcs7 -inform DER -print_certs > held-again.pem'));
    expect(await serialOf(file('held-again.pem'))).toBe(await serialOf(file('held.pem')));
  }, 90_000);

  test('SCEP, pki --scep: PENDING, polls with CertPoll while ca-admin approves, then writes the certificate; openssl verifies it', async () => {
    const scepUrl = `http://127.0.0.1:${new URL(plain.apiRoot).port}/django_ca/scep/approval`;
    expectSuccess('pki --scepca', await sh(`pki --scepca --url ${scepUrl} --caout scep-ca.pem --outform pem`));
    expectSuccess('pki --gen', await sh('pki --gen --type rsa --size 2048 --outform pem > dev.key'));
    const polling = sh(
      `pki --scep --url ${scepUrl} --in dev.key --dn "CN=scep-held.example.org" --san scep-held.example.org ` +
        `--password ${CHALLENGE} --cacert-enc scep-ca-ra.pem --cacert-sig scep-ca-ra.pem --cacert scep-ca.pem --cacert scep-ca-1.pem ` +
        `--interval 1 --maxpolltime 60 --outform pem > scep-held.pem`,
      90_000,
    );
    // Approved while it polls: once its request waits.
    let id: string | null = null;
    for (let i = 0; i < 100 && id === null; i++) {
      const listed = caAdmin(databaseUrl, ['list_enrolment_requests']);
      const line = listed.stdout.split('\n').find((l) => l.includes(' - pending - scep/approval - '));
      if (line) id = /^(\d+) /.exec(line)![1];
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(id).not.toBeNull();
    approve(id!);
    const done = await polling;
    expectSuccess('pki --scep (polled)', done);
    expect(done.out).toMatch(/pending/i);
    expect(await opensslVerify(rootPem, file('scep-ca-1.pem'), file('scep-held.pem'))).toBe(`${file('scep-held.pem')}: OK\n`);
  }, 120_000);
});
