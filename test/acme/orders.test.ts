/**
 * ACME orders, authorizations and finalize (RFC 8555 §7.4, §7.5; RFC 8738): identifiers checked at
 * new-order, an IP address certificate through http-01, finalize's CSR policy (names, keys), the
 * answers before an order is ready, authorization deactivation, one account kept out of another's
 * objects, the rate limit on new orders, and the certificate in the REST inventory.
 */
import * as acme from 'acme-client';
import crypto from 'crypto';
import { hasEventLog } from '../../lib/ports';
import { WireClient, problemType } from '../helpers/acme-wire';
import { testDatabaseTargets } from '../helpers/database';
import { startAcmeServer, type AcmeFixture } from './fixture';

jest.setTimeout(60_000);

const csrB64 = (csr: Buffer): string => Buffer.from(csr.toString().replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');

describe.each(testDatabaseTargets())('ACME orders and finalize ($name)', (target) => {
  let server: AcmeFixture;

  beforeAll(async () => {
    server = await startAcmeServer(target, { newOrdersPerAccount: { limit: 30, windowMs: 60_000 } });
  });
  afterAll(() => server?.close());

  const registered = async (): Promise<WireClient> => {
    const c = await new WireClient(server.directory).init();
    await c.register();
    return c;
  };

  /** A ready order for `names` (http-01 answered by the fixture's responder). */
  async function readyOrder(c: WireClient, names: string[], type = 'dns'): Promise<{ url: string; body: Record<string, unknown> }> {
    for (const name of names) if (type === 'dns') server.dns.setA(name, ['127.0.0.1']);
    const order = await c.post(c.directory.newOrder, { identifiers: names.map((value) => ({ type, value })) });
    for (const authzUrl of (order.body as { authorizations: string[] }).authorizations) {
      const authz = (await c.post(authzUrl, undefined)).body as { challenges: { type: string; token: string; url: string }[] };
      const challenge = authz.challenges.find((ch) => ch.type === 'http-01');
      if (!challenge) throw new Error('no http-01');
      const thumbprint = crypto
        .createHash('sha256')
        .update(JSON.stringify({ crv: c.key.jwk.crv, kty: 'EC', x: c.key.jwk.x, y: c.key.jwk.y }))
        .digest('base64url');
      server.http01.set(challenge.token, `${challenge.token}.${thumbprint}`);
      const started = await c.post(challenge.url, {});
      expect(started.headers.get('link')).toContain(`<${authzUrl}>;rel="up"`);
    }
    const url = order.headers.get('location') as string;
    const body = (await c.post(url, undefined)).body as Record<string, unknown>;
    return { url, body };
  }

  test('identifiers are checked at new-order: bad names rejected, other types unsupported, wildcards marked', async () => {
    const c = await registered();
    const order = (identifiers: unknown) => c.post(c.directory.newOrder, { identifiers });
    expect(problemType(await order([{ type: 'dns', value: 'not a name' }]))).toBe('urn:ietf:params:acme:error:rejectedIdentifier');
    expect(problemType(await order([{ type: 'email', value: 'a@example.com' }]))).toBe('urn:ietf:params:acme:error:unsupportedIdentifier');
    expect(problemType(await order([]))).toBe('urn:ietf:params:acme:error:malformed');
    expect(problemType(await order([{ type: 'ip', value: '10.0.0.0/8' }]))).toBe('urn:ietf:params:acme:error:malformed');
    const wild = await order([{ type: 'dns', value: '*.Wild.Example.COM' }]);
    expect(wild.status).toBe(201);
    expect((wild.body as { identifiers: unknown }).identifiers).toEqual([{ type: 'dns', value: '*.wild.example.com' }]);
    const authz = (await c.post((wild.body as { authorizations: string[] }).authorizations[0], undefined)).body as Record<string, unknown>;
    expect(authz).toMatchObject({ identifier: { type: 'dns', value: 'wild.example.com' }, wildcard: true });
    expect((authz.challenges as { type: string }[]).map((ch) => ch.type)).toEqual(['dns-01']);
  });

  test('identifiers no CA should validate are refused at new-order (unspecified, broadcast, multicast, IPv4-mapped, trailing dot, bad A-label)', async () => {
    const c = await registered();
    const order = (value: string, type = 'dns') => c.post(c.directory.newOrder, { identifiers: [{ type, value }] });
    const refused: [string, string][] = [
      ['ip', '0.0.0.0'],
      ['ip', '255.255.255.255'],
      ['ip', '::'],
      ['ip', '::ffff:192.0.2.1'],
      ['ip', '224.0.0.251'],
      ['ip', 'ff02::1'],
      ['dns', 'trailing.example.test.'],
      ['dns', 'xn--zz.example.test'],
    ];
    for (const [type, value] of refused) {
      const answer = await order(value, type);
      expect({ value, status: answer.status, type: problemType(answer) }).toEqual({
        value,
        status: 400,
        type: 'urn:ietf:params:acme:error:rejectedIdentifier',
      });
    }
    // A valid A-label and a private address are for the CA's name policy: accepted by default.
    expect((await order('xn--bcher-kva.example.test')).status).toBe(201);
    expect((await order('10.1.2.3', 'ip')).status).toBe(201);
  });

  test('an IP address identifier (RFC 8738) through http-01: no dns-01 offered, an iPAddress SAN and no common name', async () => {
    const c = await registered();
    const { body } = await readyOrder(c, ['127.0.0.1'], 'ip');
    expect(body.status).toBe('ready');
    const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'ip', value: '::1' }] });
    const pending = (await c.post((order.body as { authorizations: string[] }).authorizations[0], undefined)).body as {
      identifier: unknown;
      challenges: { type: string }[];
    };
    expect(pending.identifier).toEqual({ type: 'ip', value: '::1' });
    expect(pending.challenges.map((ch) => ch.type)).toEqual(['http-01', 'tls-alpn-01']);
    const [, csr] = await acme.crypto.createCsr({ altNames: ['127.0.0.1'] });
    const done = await c.post(body.finalize as string, { csr: csrB64(csr) });
    expect((done.body as { status: string }).status).toBe('valid');
    const pem = (await c.post((done.body as { certificate: string }).certificate, undefined)).text;
    const leaf = new crypto.X509Certificate(pem.slice(0, pem.indexOf('-----END CERTIFICATE-----') + 25));
    expect(leaf.subjectAltName).toBe('IP Address:127.0.0.1');
    expect(leaf.subject ?? '').toBe('');
  });

  test('four finalizes of one order at once: one certificate is stored, and every answer names it or says processing', async () => {
    const c = await registered();
    const { url, body } = await readyOrder(c, ['race.example.com']);
    const csrs = await Promise.all([0, 1, 2, 3].map(async () => (await acme.crypto.createCsr({ commonName: 'race.example.com' }))[1]));
    // Each request its own nonce, so that all four pass authentication.
    const nonces = await Promise.all(csrs.map(() => c.freshNonce()));
    const answers = await Promise.all(csrs.map((csr, i) => c.post(body.finalize as string, { csr: csrB64(csr) }, { nonce: nonces[i] })));
    for (const answer of answers) expect(['valid', 'processing']).toContain((answer.body as { status: string }).status);
    const final = (await c.post(url, undefined)).body as { status: string; certificate: string };
    expect(final.status).toBe('valid');
    for (const answer of answers) {
      const shown = answer.body as { status: string; certificate?: string };
      if (shown.status === 'valid') expect(shown.certificate).toBe(final.certificate);
    }
    const listed = await server.store.listCertificates({ caId: server.ca.id, subject: 'race.example.com' });
    expect(listed.filter((cert) => cert.cn === 'race.example.com')).toHaveLength(1);
  });

  test('finalize before ready is orderNotReady; a CSR with other names is badCSR, a weak key badPublicKey', async () => {
    const c = await registered();
    const early = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'early.example.com' }] });
    const [, earlyCsr] = await acme.crypto.createCsr({ commonName: 'early.example.com' });
    const notReady = await c.post((early.body as { finalize: string }).finalize, { csr: csrB64(earlyCsr) });
    expect([notReady.status, problemType(notReady)]).toEqual([403, 'urn:ietf:params:acme:error:orderNotReady']);

    const { url, body } = await readyOrder(c, ['ready.example.com']);
    expect(body.status).toBe('ready');
    const finalizeUrl = body.finalize as string;
    const [, otherNames] = await acme.crypto.createCsr({
      commonName: 'ready.example.com',
      altNames: ['ready.example.com', 'extra.example.com'],
    });
    const mismatch = await c.post(finalizeUrl, { csr: csrB64(otherNames) });
    expect([problemType(mismatch), (mismatch.body as { detail: string }).detail]).toEqual([
      'urn:ietf:params:acme:error:badCSR',
      'Names in CSR do not match.',
    ]);
    const weakKey = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    const [, weak] = await acme.crypto.createCsr({ commonName: 'ready.example.com' }, weakKey);
    expect(problemType(await c.post(finalizeUrl, { csr: csrB64(weak) }))).toBe('urn:ietf:params:acme:error:badPublicKey');
    expect(problemType(await c.post(finalizeUrl, { csr: 'not base64url DER!' }))).toBe('urn:ietf:params:acme:error:malformed');

    const [, good] = await acme.crypto.createCsr({ commonName: 'ready.example.com' });
    const done = await c.post(finalizeUrl, { csr: csrB64(good) });
    expect(done.body).toMatchObject({ status: 'valid', certificate: expect.stringContaining('/cert/') });
    expect(done.headers.get('location')).toBe(url);
    const chain = await c.post((done.body as { certificate: string }).certificate, undefined);
    expect(chain.headers.get('content-type')).toBe('application/pem-certificate-chain');
    expect(chain.text.match(/BEGIN CERTIFICATE/g)).toHaveLength(3);
    const again = await c.post(finalizeUrl, { csr: csrB64(good) });
    expect((again.body as { status: string }).status).toBe('valid');

    // The certificate is one of the CA's certificates, as the REST inventory lists them.
    const serial = new crypto.X509Certificate(chain.text.slice(0, chain.text.indexOf('-----END CERTIFICATE-----') + 25)).serialNumber;
    const stored = await server.store.findCertificate(server.ca.id, serial.replace(/^0+/, ''));
    expect(stored?.profile).toBe('webserver');
    // Its one `certificate.issued` event names the ACME account (docs/operations/audit-and-events.md "Domain events") and the address.
    if (!hasEventLog(server.store)) throw new Error('the knex store keeps events');
    const events = (await server.store.eventsSince(0, 10_000)).filter((e) => e.serial === stored?.serial);
    expect(events.map((e) => [e.type, e.actor.type, e.actor.protocol])).toEqual([['certificate.issued', 'acme_account', 'acme']]);
    // And the address the order was finalized from, as a REST order's event has its client's.
    expect(events[0].actor.address).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
  });

  test('another account reads none of an order, its authorizations, challenges or certificate', async () => {
    const owner = await registered();
    const { body } = await readyOrder(owner, ['mine.example.com']);
    const other = await registered();
    const urls = [body.finalize as string, ...(body.authorizations as string[])];
    const orderUrl = (body.finalize as string).replace('finalize/', '');
    for (const url of [orderUrl, ...urls]) {
      const answer = await other.post(url, url.endsWith('finalize/') ? { csr: 'AA' } : undefined);
      expect([url, answer.status, problemType(answer)]).toEqual([url, 403, 'urn:ietf:params:acme:error:unauthorized']);
    }
  });

  test('an authorization deactivated by its account takes its unfinished order with it', async () => {
    const c = await registered();
    const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'deact.example.com' }] });
    const authzUrl = (order.body as { authorizations: string[] }).authorizations[0];
    const answer = await c.post(authzUrl, { status: 'deactivated' });
    expect((answer.body as { status: string }).status).toBe('deactivated');
    const after = (await c.post(order.headers.get('location') as string, undefined)).body as { status: string; error: { type: string } };
    expect(after.status).toBe('invalid');
    expect(after.error.type).toBe('urn:ietf:params:acme:error:unauthorized');
  });

  test("new orders beyond the account's limit are rateLimited with Retry-After", async () => {
    const c = await registered();
    let answer;
    for (let i = 0; i < 31; i++)
      answer = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: `r${i}.rate.example.com` }] });
    expect(answer?.status).toBe(429);
    expect(problemType(answer as never)).toBe('urn:ietf:params:acme:error:rateLimited');
    expect(Number(answer?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
