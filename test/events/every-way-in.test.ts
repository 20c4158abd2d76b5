/**
 * Domain events seen from the ways in (docs/DESIGN.md "Domain events"): every certificate issued or
 * revoked through the REST API (signed in the request, or queued and finished by the order runner)
 * or through `ca-admin` leaves exactly one event in the outbox, naming who did it and how.
 */
import * as fs from 'fs';
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { hasEventLog, type DomainEvent, type EventLog, type Store } from '../../lib/ports';
import { API, issueThroughApi, opensslCsr, setupApi, waitForOrder, type ApiFixture } from '../api/fixture';
import { cliRunner } from '../cli/helpers';
import { opensslCsr as cliCsr, tmpDir } from '../cli/openssl';
import { testDatabaseTargets } from '../helpers/database';
import { buildApp, type TestApp } from '../helpers/http';

describe.each(testDatabaseTargets())('domain events through every way in, on $name', (target) => {
  let f: ApiFixture;
  let queued: TestApp;
  let log: Store & EventLog;
  let dir: string;

  beforeAll(async () => {
    f = await setupApi(target);
    if (!hasEventLog(f.store)) throw new Error('the knex store keeps events');
    log = f.store;
    // A second router on the same store that never signs in the request: its orders are queued and
    // finished by the fixture's runner (started by the fixture's router).
    queued = buildApp({ enableRestApi: true, store: f.store, keyBackends: { default: f.keyBackend }, signInRequest: false });
    dir = tmpDir('events-');
  });
  afterAll(async () => {
    await queued?.close();
    await f?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function allEvents(): Promise<DomainEvent[]> {
    const out: DomainEvent[] = [];
    for (let page = await log.eventsSince(0, 50); page.length; page = await log.eventsSince(out[out.length - 1].id, 50)) out.push(...page);
    return out;
  }

  it('one event per issued or revoked certificate, with the actor and the way in', async () => {
    // REST, signed in the request
    const inRequest = [await issueThroughApi(f, opensslCsr().csr), await issueThroughApi(f, opensslCsr().csr)];
    // REST, queued: the runner finishes it
    const placed = await request(queued.app)
      .post(`${API}/ca/${f.ca.serial}/sign/`)
      .set(f.auth('bob'))
      .send({ csr: opensslCsr().csr, subject: [{ oid: 'CN', value: 'queued.example.com' }] });
    expect(placed.status).toBe(200);
    const done = await waitForOrder(f.app, f.ca.serial, placed.body.slug, f.auth('bob'));
    expect(done.status).toBe('issued');
    // REST revocation
    const revoked = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/certs/${inRequest[0]}/revoke/`)
      .set(f.auth('bob'))
      .send({ reason: 'superseded' });
    expect(revoked.status).toBe(200);
    // ca-admin: a CA of its own (its key under the CLI's KEK), a certificate, a revocation
    const cli = cliRunner(f.store);
    expect(
      (await cli(['init_ca', '--key-type', 'EC', '--no-default-hostname', '--expires', '400', 'Cli', 'CN=cli.example.com'])).stderr,
    ).toBe('');
    const signed = await cli(['sign_cert', '--ca', 'Cli', '--csr', cliCsr(dir, 'leaf'), '--subject', 'CN=cli-leaf.example.com']);
    expect(signed.stderr).toBe('');
    const [cliCert] = await f.store.listCertificates({ caId: (await f.store.findCaByName('Cli'))!.id });
    expect((await cli(['revoke_cert', cliCert.serial, '--reason', 'key_compromise'])).stderr).toBe('');

    const events = await allEvents();
    const issued = events.filter((e) => e.type === 'certificate.issued');
    const revokedEvents = events.filter((e) => e.type === 'certificate.revoked');
    // Exactly one event per certificate row, and per revoked row.
    const rows = (await f.db.knex(TABLES.certificates).select('serial', 'revoked')) as { serial: string; revoked: boolean }[];
    expect(issued.map((e) => e.serial).sort()).toEqual(rows.map((r) => r.serial).sort());
    expect(revokedEvents.map((e) => e.serial).sort()).toEqual(
      rows
        .filter((r) => r.revoked)
        .map((r) => r.serial)
        .sort(),
    );

    const bySerial = new Map(issued.map((e) => [e.serial, e]));
    for (const serial of inRequest)
      expect(bySerial.get(serial)?.actor).toMatchObject({ type: 'api_user', name: 'alice', protocol: 'rest' });
    expect(bySerial.get(done.serial)).toMatchObject({ actor: { type: 'api_user', name: 'bob' }, data: { order: placed.body.slug } });
    expect(bySerial.get(cliCert.serial)?.actor).toMatchObject({ type: 'operator', protocol: 'cli' });
    expect(revokedEvents.find((e) => e.serial === inRequest[0])).toMatchObject({
      caSerial: f.ca.serial,
      actor: { type: 'api_user', name: 'bob', protocol: 'rest' },
      data: { reason: 'superseded' },
    });
    expect(revokedEvents.find((e) => e.serial === cliCert.serial)).toMatchObject({
      actor: { type: 'operator', protocol: 'cli' },
      data: { reason: 'key_compromise' },
    });
    expect(events.filter((e) => e.type === 'ca.created').map((e) => e.data.name)).toEqual(['root', 'child', 'Cli']);
    // Ids rise: the outbox is read in the order things committed.
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));
  });
});
