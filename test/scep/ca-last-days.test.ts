/**
 * Delegates of a CA in its last days (lib/ca/delegate-cache.ts), through the router on PGlite and
 * PostgreSQL: a delegate's certificate ends with its CA's, so once renewal is due it cannot be
 * renewed to live longer and must be kept. A CA with 20 days left — inside the SCEP RA's 30 days of
 * renewal — hands out one RA certificate in GetCACert and decrypts every PKIOperation with the same
 * one (were it renewed on each lookup, every request would fail badMessageCheck); a CA with 12 hours
 * left — inside the OCSP responder's day — signs every OCSP answer with one responder certificate,
 * which openssl verifies. Likewise a delegate whose validity is no longer than the renewal margin (a
 * one-day OCSP responder) is renewed at half its life, not again a minute after it was made.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { defaultProfiles } from '../../lib';
import { OcspDelegates } from '../../lib/ca/ocsp-delegate';
import type { CaRecord, RevocationStore, Store } from '../../lib/ports';
import { pemEncode } from '../../lib/x509/pem';
import { setupApi, type ApiFixture } from '../api/fixture';
import { testDatabaseTargets } from '../helpers/database';
import { buildApp } from '../helpers/http';
import { binary, buildRequest, certsOf, csrOf, envelope, makeDevice, readCertRep } from '../helpers/scep-request';

const SCEP = '/django_ca/scep';
const CHALLENGE = 'device-secret';
const DAY = 86_400_000;

describe.each(testDatabaseTargets())('delegates of a CA in its last days ($name)', (target) => {
  let f: ApiFixture;
  let built: ReturnType<typeof buildApp>;
  let dir: string;
  let scepCa: CaRecord;
  let ocspCa: CaRecord;

  beforeAll(async () => {
    f = await setupApi(target);
    scepCa = await f.makeCa({ name: 'twenty days', keyType: 'RSA', keySize: 2048, expiresDays: 20 });
    ocspCa = await f.makeCa({ name: 'twelve hours', expiresDays: 0.5 });
    built = buildApp({
      enableRestApi: true,
      store: f.store,
      keyBackends: { default: f.keyBackend },
      scep: { enabled: true, ca: scepCa.name, challenge: CHALLENGE },
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-last-days-'));
  });
  afterAll(async () => {
    await built?.close();
    await f?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Every stored certificate of `ca` with `profile`, whatever its validity (the lists leave out the not yet valid). */
  const delegates = async (ca: CaRecord, profile: string) => {
    const serials = (await f.db.knex(TABLES.certificates).where({ ca_id: ca.id, profile }).select('serial')) as { serial: string }[];
    return Promise.all(serials.map(async ({ serial }) => (await f.store.findCertificate(ca.id, serial))!));
  };

  test('SCEP at a CA with 20 days left: GetCACert, then every PKIOperation succeeds through the same single RA certificate', async () => {
    const caCerts = async () =>
      certsOf((await request(built.app).get(`${SCEP}?operation=GetCACert`).buffer(true).parse(binary)).body as Buffer);
    const [ra] = await caCerts();
    for (let i = 0; i < 4; i++) {
      const device = makeDevice(dir, `dev${i}`);
      const content = envelope(dir, csrOf(dir, device.key, `dev${i}.example.org`, CHALLENGE), ra);
      const res = await request(built.app)
        .post(`${SCEP}?operation=PKIOperation`)
        .set('Content-Type', 'application/octet-stream')
        .send(buildRequest({ signer: device, content }))
        .buffer(true)
        .parse(binary);
      expect(res.status).toBe(200);
      const seen = readCertRep(dir, res.body as Buffer, device);
      expect([i, seen.status, seen.failInfo]).toEqual([i, '0', null]);
      expect(seen.certificates).toHaveLength(1);
    }
    expect((await caCerts())[0]).toBe(ra);
    const stored = await delegates(scepCa, 'scep_ra');
    expect(stored).toHaveLength(1);
    // It ends with its CA: the reason it is not renewed.
    expect(stored[0].notAfter.getTime()).toBe(scepCa.notAfter.getTime());
    expect(scepCa.notAfter.getTime() - Date.now()).toBeLessThan(30 * DAY);
  });

  /** Four OCSP requests with nonces (so that no answer is kept: each is signed anew), each answer verified by openssl. */
  async function askOcsp(ca: CaRecord): Promise<void> {
    fs.writeFileSync(path.join(dir, 'ocsp-ca.pem'), pemEncode(ca.der, 'CERTIFICATE'));
    fs.writeFileSync(path.join(dir, 'chain.pem'), [f.root, ca].map((c) => pemEncode(c.der, 'CERTIFICATE')).join(''));
    for (let i = 0; i < 4; i++) {
      execFileSync('openssl', ['ocsp', '-issuer', 'ocsp-ca.pem', '-serial', `0x${1234 + i}`, '-reqout', 'req.der'], {
        cwd: dir,
        stdio: 'pipe',
      });
      const res = await request(built.app)
        .post(`/django_ca/ocsp/${ca.serial}/cert/`)
        .set('Content-Type', 'application/ocsp-request')
        .send(fs.readFileSync(path.join(dir, 'req.der')))
        .buffer(true)
        .parse(binary);
      expect(res.status).toBe(200);
      fs.writeFileSync(path.join(dir, 'resp.der'), res.body as Buffer);
      const verdict = spawnSync(
        'openssl',
        ['ocsp', '-no_nonce', '-respin', 'resp.der', '-issuer', 'ocsp-ca.pem', '-CAfile', 'chain.pem', '-serial', `0x${1234 + i}`],
        { cwd: dir },
      );
      expect(`${verdict.stdout}${verdict.stderr}`).toContain('Response verify OK');
      expect(`${verdict.stdout}`).toMatch(new RegExp(`0x${1234 + i}: (good|unknown)`));
    }
  }

  test('OCSP at a CA with 12 hours left: every answer signed by the same single responder certificate, verified by openssl', async () => {
    await askOcsp(ocspCa);
    const stored = await delegates(ocspCa, 'ocsp');
    expect(stored).toHaveLength(1);
    expect(stored[0].notAfter.getTime()).toBe(ocspCa.notAfter.getTime());
  });

  test('responders that live one day (ocsp_responder_key_validity 1, the least) are renewed at half-life, not every minute', async () => {
    const ca = await f.store.updateCa((await f.makeCa({ name: 'one-day responders' })).id, { ocspResponderKeyValidity: 1 });
    const responders = new OcspDelegates(f.store as Store & RevocationStore, { default: f.keyBackend }, defaultProfiles());
    const start = Date.now();
    const at = (minutes: number) => new Date(start + minutes * 60_000);
    // A fresh instance each time too: what another process, or this one after a restart, would find stored.
    for (const minutes of [0, 2, 10, 60, 11 * 60]) {
      await responders.forCa(ca, at(minutes));
      await new OcspDelegates(f.store as Store & RevocationStore, { default: f.keyBackend }, defaultProfiles()).forCa(ca, at(minutes));
    }
    expect(await delegates(ca, 'ocsp')).toHaveLength(1);
    // Past half its life, a new one.
    const renewed = await responders.forCa(ca, at(13 * 60));
    const stored = await delegates(ca, 'ocsp');
    expect(stored).toHaveLength(2);
    expect(renewed.notAfter.getTime()).toBe(Math.max(...stored.map((c) => c.notAfter.getTime())));
  });
});
