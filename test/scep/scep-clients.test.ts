/**
 * SCEP with real clients against the example server (CA_ENABLE_SCEP, CA_SCEP_CHALLENGE): strongSwan's
 * `pki` (`--scepca`; `--scep` with its default AES/SHA-256 and with triple DES/SHA-1, and renewal with
 * `--cert/--key`) and micromdm's `scepclient` (single DES and SHA-1: enrolment with the challenge,
 * renewal with its certificate, a wrong challenge), as docs/guides/scep.md shows them. The demo CAs are EC,
 * so every request goes through the intermediate's RSA registration authority. openssl verifies what
 * the clients got up to the server's root; the REST API lists it and revokes it, and OCSP says so.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  describeWith,
  expectSuccess,
  opensslOcsp,
  opensslVerify,
  pemCertificates,
  run,
  serialOf,
  subjectAltName,
} from '../clients/harness';
import { caAdmin } from '../cli/child';
import { startChildServer, stopChild, type ChildServer } from '../examples/child-server';
import { CAPABILITIES, expectRaCertificate } from '../helpers/scep-request';

const CHALLENGE = 'enrol-me-2026';

describeWith(['pki', 'scepclient', 'openssl', 'curl'], 'SCEP clients against the example server', () => {
  let dir: string;
  let server: ChildServer;
  let url: string;
  let rootPem: string;
  let oneTime: string;
  const file = (name: string) => path.join(dir, name);
  const sh = (cmd: string) => run('bash', ['-c', cmd], { cwd: dir, timeoutMs: 120_000 });
  const rest = (method: string, apiPath: string) =>
    sh(
      `curl -sS -X ${method} --user '${server.username}:${server.password}' -H 'Content-Type: application/json' ` +
        `${method === 'POST' ? "-d '{}' " : ''}-w '\\n%{http_code}' ${server.apiRoot}${apiPath}`,
    );

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scep-clients-'));
    const data = file('data');
    fs.mkdirSync(data);
    // A one-time challenge for one device, made by the operator before the server starts (the
    // embedded database serves one process at a time): bound to the subject scepclient will ask for.
    const made = caAdmin(data, ['create_enrolment_challenge', 'scep', '--subject', 'C=US,O=scep-client,OU=MDM,CN=once.example.org']);
    expect(made.code).toBe(0);
    oneTime = /^challenge: ([0-9a-f]{40})$/m.exec(made.stdout)![1];
    server = await startChildServer({ CA_DATA_DIR: data, DATABASE_URL: data, CA_ENABLE_SCEP: 'true', CA_SCEP_CHALLENGE: CHALLENGE });
    url = `http://127.0.0.1:${new URL(server.apiRoot).port}/django_ca/scep`;
    rootPem = path.join(data, 'root.pem');
  }, 90_000);

  afterAll(async () => {
    if (server) await stopChild(server.child);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the server says where SCEP is and which CA enrols, never the challenge', () => {
    expect(server.output()).toMatch(
      /^SCEP \(CA_ENABLE_SCEP; docs\/guides\/scep\.md\): http:\/\/127\.0\.0\.1:\d+\/django_ca\/scep enrols with Example Intermediate, with the challenge password of CA_SCEP_CHALLENGE\.$/m,
    );
    expect(server.output()).not.toContain(CHALLENGE);
  });

  test('GetCACaps lists POST, renewal, the digests and ciphers, one per line', async () => {
    const caps = await sh(`curl -sS -D headers.txt '${url}?operation=GetCACaps'`);
    expect(caps.out.split('\n')).toEqual(CAPABILITIES);
    expect(fs.readFileSync(file('headers.txt'), 'utf8')).toMatch(/^content-type: text\/plain\r$/im);
  });

  test('pki --scepca writes the root, the intermediate and the RSA RA, which the intermediate issued for encryption and signatures', async () => {
    expectSuccess('pki --scepca', await sh(`pki --scepca --url ${url} --caout ca.pem --outform pem`));
    expect(fs.readFileSync(file('ca.pem'), 'utf8')).toBe(fs.readFileSync(rootPem, 'utf8').replace(/\r/g, ''));
    expect(fs.existsSync(file('ca-1.pem'))).toBe(true);
    const ra = await sh('openssl x509 -in ca-ra.pem -noout -text');
    expectRaCertificate(ra.out);
    expect(await opensslVerify(rootPem, file('ca-1.pem'), file('ca-ra.pem'))).toBe(`${file('ca-ra.pem')}: OK\n`);
  }, 60_000);

  /**
   * The SHA-256 fingerprint of the RA certificate `pki --scepca` wrote (ca-ra.pem), to pin scepclient
   * to it: scepclient encrypts to every certificate of GetCACert unless pinned to the RA, and the EC
   * CAs cannot be encrypted to.
   */
  const raFingerprint = () => {
    const raDer = Buffer.from(
      pemCertificates(fs.readFileSync(file('ca-ra.pem'), 'utf8'))[0].replace(/-----[A-Z ]+-----|\s/g, ''),
      'base64',
    );
    return crypto.createHash('sha256').update(raDer).digest('hex');
  };

  const scep = (key: string, dn: string, san: string, out: string, extra = '') =>
    sh(
      `pki --scep --url ${url} --in ${key} --dn "${dn}" --san ${san} --cacert-enc ca-ra.pem --cacert-sig ca-ra.pem ` +
        `--cacert ca.pem --cacert ca-1.pem --outform pem ${extra} > ${out}`,
    );

  test('pki --scep enrols with the challenge (AES/SHA-256, then triple DES/SHA-1); openssl verifies; a wrong challenge is badRequest', async () => {
    expectSuccess('pki --gen', await sh('pki --gen --type rsa --size 2048 --outform pem > dev1.key'));
    expectSuccess(
      'pki --scep',
      await scep('dev1.key', 'CN=dev1.example.org, O=Test', 'dev1.example.org', 'dev1.pem', `--password ${CHALLENGE}`),
    );
    expect(await opensslVerify(rootPem, file('ca-1.pem'), file('dev1.pem'))).toBe(`${file('dev1.pem')}: OK\n`);
    expect((await subjectAltName(file('dev1.pem'))).trim().split('\n').pop()?.trim()).toBe('DNS:dev1.example.org');
    const listed = await rest('GET', `/ca/${server.caSerial}/certs/${await serialOf(file('dev1.pem'))}/`);
    expect(listed.out).toMatch(/\n200$/); // in the REST inventory

    expectSuccess('pki --gen', await sh('pki --gen --type rsa --size 2048 --outform pem > dev2.key'));
    const legacy = await scep(
      'dev2.key',
      'CN=dev2.example.org',
      'dev2.example.org',
      'dev2.pem',
      `--password ${CHALLENGE} --cipher des3 --digest sha1`,
    );
    expectSuccess('pki --scep --cipher des3 --digest sha1', legacy);
    expect(await opensslVerify(rootPem, file('ca-1.pem'), file('dev2.pem'))).toBe(`${file('dev2.pem')}: OK\n`);

    const wrong = await scep('dev2.key', 'CN=dev3.example.org', 'dev3.example.org', 'dev3.pem', '--password not-the-challenge');
    expect(wrong.code).not.toBe(0);
    expect(wrong.out).toContain('badRequest');
    expect(fs.readFileSync(file('dev3.pem'), 'utf8')).toBe('');
  }, 120_000);

  test('pki --scep with --cert/--key renews (RenewalReq) with a new key', async () => {
    expectSuccess('pki --gen', await sh('pki --gen --type rsa --size 2048 --outform pem > dev1-new.key'));
    const renewal = await scep(
      'dev1-new.key',
      'CN=dev1.example.org, O=Test',
      'dev1.example.org',
      'dev1-renewed.pem',
      '--cert dev1.pem --key dev1.key',
    );
    expectSuccess('pki --scep (renewal)', renewal);
    expect(await opensslVerify(rootPem, file('ca-1.pem'), file('dev1-renewed.pem'))).toBe(`${file('dev1-renewed.pem')}: OK\n`);
    expect(await serialOf(file('dev1-renewed.pem'))).not.toBe(await serialOf(file('dev1.pem')));
    const publicKey = async (f: string) => (await sh(`openssl x509 -in ${f} -noout -pubkey`)).out;
    expect(await publicKey('dev1-renewed.pem')).not.toBe(await publicKey('dev1.pem'));
  }, 120_000);

  test('scepclient (single DES, SHA-1) enrols with the challenge, renews with its certificate; a wrong challenge is badRequest; a revoked certificate renews no more', async () => {
    const fingerprint = raFingerprint();
    fs.mkdirSync(file('sc'));
    const client = (keyDir: string, extra: string) =>
      sh(`scepclient -server-url ${url} -private-key ${keyDir}/key.pem -cn scep1.example.org -ca-fingerprint ${fingerprint} ${extra}`);
    expectSuccess('scepclient', await client('sc', `-challenge ${CHALLENGE}`));
    const first = file('sc/client.pem');
    expect(await opensslVerify(rootPem, file('ca-1.pem'), first)).toBe(`${first}: OK\n`);
    const firstSerial = await serialOf(first);
    expect((await sh(`openssl x509 -in ${first} -noout -subject`)).out).toContain('CN = scep1.example.org');

    // Again with client.pem in place: a RenewalReq signed by it.
    expectSuccess('scepclient (renewal)', await client('sc', ''));
    const renewedSerial = await serialOf(first);
    expect(renewedSerial).not.toBe(firstSerial);
    expect(await opensslVerify(rootPem, file('ca-1.pem'), first)).toBe(`${first}: OK\n`);

    fs.mkdirSync(file('sc-wrong'));
    const wrong = await client('sc-wrong', '-challenge wrong');
    expect(wrong.code).not.toBe(0);
    expect(wrong.out).toContain('failInfo: badRequest');
    expect(fs.existsSync(file('sc-wrong/client.pem'))).toBe(false);

    // Revoked through the REST API: OCSP says so, and the certificate renews no more (badCertId).
    expect((await rest('POST', `/ca/${server.caSerial}/certs/${renewedSerial}/revoke/`)).out).toMatch(/\n200$/);
    expect((await opensslOcsp(first, file('ca-1.pem'), rootPem, dir)).status).toBe('revoked');
    const refused = await client('sc', '');
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain('RenewalReq (17) request failed, failInfo: badCertID (4)');
  }, 180_000);

  test('scepclient enrols once with a one-time challenge bound to its subject; the same challenge again is badRequest', async () => {
    const fingerprint = raFingerprint();
    const client = (keyDir: string) => {
      fs.mkdirSync(file(keyDir));
      return sh(
        `scepclient -server-url ${url} -private-key ${keyDir}/key.pem -cn once.example.org -ca-fingerprint ${fingerprint} -challenge ${oneTime}`,
      );
    };
    expectSuccess('scepclient (one-time challenge)', await client('once'));
    expect(await opensslVerify(rootPem, file('ca-1.pem'), file('once/client.pem'))).toBe(`${file('once/client.pem')}: OK\n`);
    const again = await client('once-again');
    expect(again.code).not.toBe(0);
    expect(again.out).toContain('PKCSReq (19) request failed, failInfo: badRequest (2)');
    expect(fs.existsSync(file('once-again/client.pem'))).toBe(false);
  }, 120_000);
});
