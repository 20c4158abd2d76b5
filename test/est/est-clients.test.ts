/**
 * EST with real clients against the example server over HTTPS (CA_ENABLE_EST, TLS_CERT_FILE,
 * TLS_KEY_FILE): strongSwan's `pki` (`--estca`, `--est` with a password, `--est` with the certificate
 * being renewed as TLS client certificate) and curl + openssl, as docs/guides/est.md
 * shows them, and curl + openssl with serverkeygen (CA_EST_SERVERKEYGEN). openssl verifies what
 * they got up to the server's root; the REST API lists it. With TRUST_PROXY=loopback and
 * CA_EST_CLIENT_CERT_HEADER, curl stands in for a TLS-terminating proxy that forwards the client's
 * certificate in a header, as nginx does.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeWith, expectSuccess, makeTlsServerCertificate, opensslVerify, run, serialOf, subjectAltName } from '../clients/harness';
import { startChildServer, stopChild, type ChildServer } from '../examples/child-server';

describeWith(['pki', 'curl', 'openssl'], 'EST clients against the example server over HTTPS', () => {
  let dir: string;
  let server: ChildServer;
  let url: string;
  let tlsCa: string;
  let rootPem: string;
  const file = (name: string) => path.join(dir, name);
  const pki = (args: string[]) => run('pki', args, { cwd: dir });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'est-clients-'));
    const tls = await makeTlsServerCertificate(dir);
    tlsCa = tls.ca;
    const data = file('data');
    fs.mkdirSync(data);
    server = await startChildServer({
      CA_DATA_DIR: data,
      DATABASE_URL: data,
      CA_ENABLE_EST: 'true',
      CA_EST_SERVERKEYGEN: 'true',
      CA_EST_CLIENT_CERT_HEADER: 'X-SSL-Client-Cert',
      TRUST_PROXY: 'loopback',
      TLS_CERT_FILE: tls.cert,
      TLS_KEY_FILE: tls.key,
    });
    // strongSwan checks the server's certificate against the URL's host: 127.0.0.1 is in its subjectAltName.
    url = `https://127.0.0.1:${new URL(server.apiRoot).port}`;
    rootPem = path.join(data, 'root.pem');
  }, 90_000);

  afterAll(async () => {
    if (server) await stopChild(server.child);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the server says where EST is and which CA enrols', () => {
    expect(server.output()).toMatch(
      /^EST \(CA_ENABLE_EST; docs\/guides\/est\.md\): https:\/\/127\.0\.0\.1:\d+\/\.well-known\/est\/ enrols with Example Intermediate\.$/m,
    );
    expect(server.output()).toMatch(
      /^EST: simplereenroll also takes the client certificate a proxy trusted by TRUST_PROXY forwards in X-SSL-Client-Cert\.$/m,
    );
  });

  test('pki --estca writes the root and the intermediate; pki --est enrols with a password; openssl verifies it', async () => {
    expectSuccess('pki --estca', await pki(['--estca', '--url', url, '--cacert', tlsCa, '--caout', 'estca.pem', '--outform', 'pem']));
    expect(fs.readFileSync(file('estca.pem'), 'utf8')).toBe(fs.readFileSync(rootPem, 'utf8').replace(/\r/g, ''));
    expect(fs.existsSync(file('estca-1.pem'))).toBe(true);

    expectSuccess('pki --gen', await run('bash', ['-c', 'pki --gen --type ecdsa --size 256 --outform pem > dev1.key'], { cwd: dir }));
    const req = 'pki --req --type priv --in dev1.key --dn "CN=dev1.example.org" --san dev1.example.org --outform pem > dev1.req';
    expectSuccess('pki --req', await run('bash', ['-c', req], { cwd: dir }));
    const enrol = (userpass: string, out: string) =>
      run(
        'bash',
        ['-c', `pki --est --url ${url} --cacert ${tlsCa} --cacert estca.pem --in dev1.req --userpass '${userpass}' --outform pem > ${out}`],
        { cwd: dir },
      );
    expectSuccess('pki --est', await enrol(`${server.username}:${server.password}`, 'dev1.pem'));
    expect(await opensslVerify(rootPem, file('estca-1.pem'), file('dev1.pem'))).toBe(`${file('dev1.pem')}: OK\n`);
    expect(await subjectAltName(file('dev1.pem'))).toContain('DNS:dev1.example.org');

    const serial = await serialOf(file('dev1.pem'));
    const listed = await run('curl', [
      ...['-sS', '--cacert', tlsCa, '--user', `${server.username}:${server.password}`, '-o', '/dev/null', '-w', '%{http_code}'],
      `${server.apiRoot}/ca/${server.caSerial}/certs/${serial}/`,
    ]);
    expect(listed.out).toBe('200'); // in the REST inventory

    // A wrong password: strongSwan reports the 401 and writes no certificate.
    const refused = await enrol(`${server.username}:wrong`, 'refused.pem');
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain('EST request failed: HTTP 401');
    expect(fs.readFileSync(file('refused.pem'), 'utf8')).toBe('');
  }, 60_000);

  test('pki --est with --cert/--key re-enrols (simplereenroll) with a new key; a changed subject, a revoked certificate: 403', async () => {
    const sh = (cmd: string) => run('bash', ['-c', cmd], { cwd: dir });
    expectSuccess('pki --gen', await sh('pki --gen --type ecdsa --size 256 --outform pem > dev1-new.key'));
    expectSuccess(
      'pki --req',
      await sh('pki --req --type priv --in dev1-new.key --dn "CN=dev1.example.org" --san dev1.example.org --outform pem > dev1-new.req'),
    );
    const reenrol = `pki --est --url ${url} --cacert ${tlsCa} --cacert estca.pem --in dev1-new.req --cert dev1.pem --key dev1.key --outform pem > dev1-renewed.pem`;
    expectSuccess('pki --est (re-enrol)', await sh(reenrol));
    expect(await opensslVerify(rootPem, file('estca-1.pem'), file('dev1-renewed.pem'))).toBe(`${file('dev1-renewed.pem')}: OK\n`);
    const [oldSerial, newSerial] = [await serialOf(file('dev1.pem')), await serialOf(file('dev1-renewed.pem'))];
    expect(newSerial).not.toBe(oldSerial);
    const publicKey = async (f: string) => (await sh(`openssl x509 -in ${f} -noout -pubkey`)).out;
    expect(await publicKey('dev1-renewed.pem')).not.toBe(await publicKey('dev1.pem')); // re-key

    // curl with the same client certificate: another subject is refused.
    const curl = `curl -sS --cacert ${tlsCa} --cert dev1-renewed.pem --key dev1-new.key -H 'Content-Type: application/pkcs10' -w '\\n%{http_code}'`;
    expectSuccess(
      'openssl req',
      await sh('openssl req -new -key dev1-new.key -subj /CN=other.example.org -outform DER | base64 -w0 > other.b64'),
    );
    const other = await sh(`${curl} --data-binary @other.b64 ${url}/.well-known/est/simplereenroll`);
    expect(other.out).toBe('The subject and subjectAltName of the request must be those of the certificate being renewed.\n\n403');

    // Revoked through the REST API: the certificate no longer renews.
    const revoke = await sh(
      `curl -sS --cacert ${tlsCa} --user '${server.username}:${server.password}' -H 'Content-Type: application/json' -d '{}' ` +
        `-o /dev/null -w '%{http_code}' ${server.apiRoot}/ca/${server.caSerial}/certs/${newSerial}/revoke/`,
    );
    expect(revoke.out).toBe('200');
    expectSuccess(
      'openssl req',
      await sh(
        'openssl req -new -key dev1-new.key -subj /CN=dev1.example.org -addext subjectAltName=DNS:dev1.example.org -outform DER | base64 -w0 > same.b64',
      ),
    );
    const revoked = await sh(`${curl} --data-binary @same.b64 ${url}/.well-known/est/simplereenroll`);
    expect(revoked.out).toBe('The TLS client certificate is revoked.\n\n403');
  }, 60_000);

  test('a certificate forwarded by a trusted proxy (CA_EST_CLIENT_CERT_HEADER, TRUST_PROXY) re-enrols; a TLS client certificate wins over it', async () => {
    const sh = (cmd: string) => run('bash', ['-c', cmd], { cwd: dir });
    expectSuccess(
      'openssl req',
      await sh(
        'openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout dev1-fwd.key -subj /CN=dev1.example.org ' +
          '-addext subjectAltName=DNS:dev1.example.org -outform DER | base64 -w0 > fwd.b64',
      ),
    );
    // What nginx sends with `proxy_set_header X-SSL-Client-Cert $ssl_client_escaped_cert;`: dev1.pem (not revoked), URL-encoded.
    const forwarded = `X-SSL-Client-Cert: ${encodeURIComponent(fs.readFileSync(file('dev1.pem'), 'utf8'))}`;
    const post = (...extra: string[]) =>
      run(
        'curl',
        [
          ...['-sS', '--cacert', tlsCa, '-H', 'Content-Type: application/pkcs10', '-H', forwarded, '--data-binary', '@fwd.b64'],
          ...['-w', '\n%{http_code}', ...extra, `${url}/.well-known/est/simplereenroll`],
        ],
        { cwd: dir },
      );
    const renewed = await post();
    expect(renewed.out.slice(-3)).toBe('200');
    fs.writeFileSync(file('dev1-fwd.b64'), renewed.out.slice(0, -4));
    expectSuccess('openssl pkcs7', await sh('base64 -d dev1-fwd.b64 | openssl pkcs7 -inform DER -print_certs -out dev1-fwd.pem'));
    expect(await opensslVerify(rootPem, file('estca-1.pem'), file('dev1-fwd.pem'))).toBe(`${file('dev1-fwd.pem')}: OK\n`);
    expect(await serialOf(file('dev1-fwd.pem'))).not.toBe(await serialOf(file('dev1.pem')));
    // The revoked dev1-renewed.pem in the handshake, the valid dev1.pem in the header: the handshake's certificate counts.
    const both = await post('--cert', 'dev1-renewed.pem', '--key', 'dev1-new.key');
    expect(both.out).toBe('The TLS client certificate is revoked.\n\n403');
  }, 60_000);

  test('curl + openssl: cacerts and simpleenroll as docs/guides/est.md shows them', async () => {
    const sh = (cmd: string) => run('bash', ['-c', cmd], { cwd: dir });
    const curl = `curl -sS --cacert ${tlsCa}`;
    expectSuccess(
      'openssl req',
      await sh(
        'openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout dev2.key -subj /CN=dev2.example.org ' +
          '-addext subjectAltName=DNS:dev2.example.org -outform DER | base64 -w0 > dev2.b64',
      ),
    );
    expectSuccess(
      'cacerts',
      await sh(`${curl} ${url}/.well-known/est/cacerts | base64 -d | openssl pkcs7 -inform DER -print_certs > est-ca.pem`),
    );
    expectSuccess(
      'simpleenroll',
      await sh(
        `${curl} --user '${server.username}:${server.password}' -H 'Content-Type: application/pkcs10' --data-binary @dev2.b64 ` +
          `${url}/.well-known/est/simpleenroll | base64 -d | openssl pkcs7 -inform DER -print_certs > dev2.pem`,
      ),
    );
    const chain = fs.readFileSync(file('est-ca.pem'), 'utf8');
    expect(chain.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    fs.writeFileSync(file('est-intermediate.pem'), chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 26));
    expect(await opensslVerify(rootPem, file('est-intermediate.pem'), file('dev2.pem'))).toBe(`${file('dev2.pem')}: OK\n`);
  }, 60_000);

  test('curl + openssl: serverkeygen over HTTPS → a new key (PKCS#8) and its certificate; openssl verifies it; in the REST inventory', async () => {
    const sh = (cmd: string) => run('bash', ['-c', `set -eo pipefail; ${cmd}`], { cwd: dir });
    const curl = `curl -sS --cacert ${tlsCa}`;
    const user = `--user '${server.username}:${server.password}'`;
    expectSuccess(
      'openssl req',
      await sh(
        'openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout kg-csr.key -subj /CN=kg.example.org ' +
          '-addext subjectAltName=DNS:kg.example.org -outform DER | base64 -w0 > kg.b64',
      ),
    );
    const unauthenticated = await sh(
      `${curl} -o /dev/null -w '%{http_code}' -H 'Content-Type: application/pkcs10' --data-binary @kg.b64 ${url}/.well-known/est/serverkeygen`,
    );
    expect(unauthenticated.out).toBe('401');
    expectSuccess(
      'serverkeygen',
      await sh(
        `${curl} -f ${user} -H 'Content-Type: application/pkcs10' --data-binary @kg.b64 -D kg.headers -o kg.multipart ${url}/.well-known/est/serverkeygen`,
      ),
    );
    const headers = fs.readFileSync(file('kg.headers'), 'latin1');
    expect(headers).toMatch(/^content-type: multipart\/mixed; boundary=\S+\r$/im);
    expect(headers).toMatch(/^cache-control: no-store\r$/im);
    // The parts, by their order (§4.4.2): the boundary lines, headers and blank lines dropped.
    expectSuccess(
      'split',
      await sh(`tr -d '\\r' < kg.multipart | awk '/^--/{n++; next} /^Content-/{next} /^$/{next} {print > ("kg-part" n ".b64")}'`),
    );
    expect(fs.readFileSync(file('kg.multipart'), 'latin1')).toMatch(
      /^--(\S+)\r\nContent-Type: application\/pkcs8\r\n[\s\S]*\r\n--\1\r\nContent-Type: application\/pkcs7-mime; smime-type=certs-only\r\n[\s\S]*\r\n--\1--\r\n$/,
    );
    expectSuccess('openssl pkey', await sh('base64 -d kg-part1.b64 | openssl pkey -inform DER -out kg.key'));
    expectSuccess('openssl pkcs7', await sh('base64 -d kg-part2.b64 | openssl pkcs7 -inform DER -print_certs -out kg.pem'));
    expectSuccess('same public key', await sh('cmp <(openssl pkey -in kg.key -pubout) <(openssl x509 -in kg.pem -noout -pubkey)'));
    expectSuccess('not the CSR key', await sh('! cmp -s <(openssl pkey -in kg-csr.key -pubout) <(openssl x509 -in kg.pem -noout -pubkey)'));
    expect((await sh('openssl pkey -in kg.key -noout -text')).out).toContain('ASN1 OID: prime256v1');
    expectSuccess(
      'cacerts',
      await sh(`${curl} ${url}/.well-known/est/cacerts | base64 -d | openssl pkcs7 -inform DER -print_certs > kg-ca.pem`),
    );
    const chain = fs.readFileSync(file('kg-ca.pem'), 'utf8');
    fs.writeFileSync(file('kg-intermediate.pem'), chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 26));
    expect(await opensslVerify(rootPem, file('kg-intermediate.pem'), file('kg.pem'))).toBe(`${file('kg.pem')}: OK\n`);
    expect(await subjectAltName(file('kg.pem'))).toContain('DNS:kg.example.org');
    const listed = await run('curl', [
      ...['-sS', '--cacert', tlsCa, '--user', `${server.username}:${server.password}`, '-o', '/dev/null', '-w', '%{http_code}'],
      `${server.apiRoot}/ca/${server.caSerial}/certs/${await serialOf(file('kg.pem'))}/`,
    ]);
    expect(listed.out).toBe('200'); // in the REST inventory
  }, 60_000);
});
