/**
 * Issue 47, "one authority entry", done when: a test kills the process between intent and signature
 * and between signature and store; after restart every recorded intent ends issued or failed (none
 * pending for ever), no serial ever names two different to-be-signed certificates, nothing is issued
 * twice, and every certificate that left the process has its row — REST, ACME, EST, SCEP.
 *
 * For each door (kill-between/doors.ts) × each point (kill-between/hosts.ts): instance A (a real
 * router in a child process, test/examples/fixtures/work-host.ts) takes the client's request and is
 * SIGKILLed while a gate holds it — before its signature is made, or once made and before it is
 * stored; instance B starts on the same PostgreSQL schema with a short `issuanceLeaseMs`, and the
 * client gets its certificate the door's own way (B's runners finish a REST or ACME order; an EST or
 * SCEP client asks again). Then the rows say it (kill-between/ledger.ts). One schema per door; its
 * cases run one after the other on it. PostgreSQL only (PGlite is one process's database).
 */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { TABLES } from '../../adapters/store/knex/tables';
import { defaultKeyBackend, initCa } from '../../lib';
import { createApiUser } from '../../lib/ca/users';
import { childDatabaseUrl } from '../cli/database-url';
import { TEST_KEK } from '../cli/helpers';
import { describeOnPostgres, openTestDatabase, type TestDatabase } from '../helpers/database';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { DOORS, SCEP_CHALLENGE, type Door, type DoorName, type DoorWorld } from './kill-between/doors';
import { Hosts, type Point } from './kill-between/hosts';
import { expectCertificatesOnce, expectIntentsOfCase, expectIntentsSettled, expectOneTbsPerSerial, mark } from './kill-between/ledger';

const PASSWORD = 'kill between';
/** B's lease on pending intents: short, so that A's are swept within the test. */
const LEASE_MS = 1500;
const POINTS: [string, Point][] = [
  ['between intent and signature', 'signing'],
  ['between signature and store', 'storing'],
];
const HAS_INTENTS = 'issuanceIntents' in TABLES;

describeOnPostgres('an instance killed mid-issuance: every intent settles, one certificate per request (PostgreSQL)', (target) => {
  let dir: string;
  let dns: TestDnsServer;
  let responder: http.Server;
  const http01 = new Map<string, string>();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kill-between-'));
    dns = await startDnsServer();
    responder = http.createServer((req, res) => {
      const answer = http01.get((req.url ?? '').replace('/.well-known/acme-challenge/', ''));
      res.statusCode = answer ? 200 : 404;
      res.end(answer ?? 'not found');
    });
    await new Promise<void>((r) => responder.listen(0, '127.0.0.1', r));
  });

  afterAll(async () => {
    responder?.closeAllConnections();
    await new Promise((r) => responder?.close(r));
    await dns?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe.each(Object.keys(DOORS) as DoorName[])('%s', (doorName) => {
    const door = DOORS[doorName] as Door;
    let db: TestDatabase;
    let hosts: Hosts;
    let world: DoorWorld;
    let options: Record<string, unknown>;

    beforeAll(async () => {
      db = await openTestDatabase(target);
      const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: TEST_KEK }) };
      const base = { store: db.store, keyBackends, keyType: 'EC' as const, defaultHostname: 'ca.example.com' };
      const root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'Kill Between Root' }], pathLength: 1 });
      let ca = await initCa({ ...base, name: 'issuing', subject: [{ oid: 'CN', value: 'Kill Between Issuing' }], parent: root, expiresDays: 365 });
      ca = await db.store.updateCa(ca.id, { apiEnabled: true, acmeEnabled: true, acmeRequiresContact: false });
      await createApiUser(db.store, 'worker', PASSWORD, {}, { bcryptCost: 4 });
      hosts = new Hosts(
        {
          DATABASE_URL: childDatabaseUrl(target, db),
          CA_KEY_ENCRYPTION_KEY: TEST_KEK,
          CA_ACME_DNS_SERVERS: dns.address,
          CA_ACME_HTTP01_PORT: String((responder.address() as AddressInfo).port),
        },
        dir,
      );
      world = { ca, dir, dns, http01, auth: { Authorization: `Basic ${Buffer.from(`worker:${PASSWORD}`).toString('base64')}` } };
      options = {
        signInRequest: false, // REST: the queued path, where the order is durable work (README D3)
        orderWaitMs: 0,
        est: { enabled: true, ca: ca.serial },
        scep: { enabled: true, ca: ca.serial, challenge: SCEP_CHALLENGE },
      };
    }, 120_000);

    afterEach(() => hosts.killAll());
    afterAll(() => db?.close());

    test.each(POINTS)('killed %s: B settles its intent, the client gets one certificate, stored once', async (_title, point) => {
      const gate = hosts.gate(point);
      const a = await hosts.start(options, gate);
      const state = await door.prepare(world, a);
      const since = await mark(db, HAS_INTENTS);

      gate.close();
      const sending = door.send(world, a, state).then(
        () => null,
        (e: unknown) => e,
      );
      await waitHeld(gate.held, sending);
      if (door.answersWhileSigning) expect(await sending).toBeNull();
      await hosts.kill(a);
      await sending; // EST, SCEP: the answer died with A

      const b = await hosts.start(HAS_INTENTS ? { ...options, issuanceLeaseMs: LEASE_MS } : options);
      const received = await door.finish(world, a, b, state);

      if (HAS_INTENTS) await expectIntentsSettled(db);
      const stored = await expectCertificatesOnce(db, since, received);
      if (HAS_INTENTS) {
        await expectOneTbsPerSerial(db);
        await expectIntentsOfCase(db, since, stored);
      }
    });
  });
});

/** Until A waits at its gate; fails at once should A's request fail first (nothing would ever reach the gate). */
async function waitHeld(held: () => boolean, sending: Promise<unknown>): Promise<void> {
  let failed: unknown = null;
  void sending.then((e) => (failed = e));
  const deadline = Date.now() + 30_000;
  while (!held()) {
    if (failed) throw new Error(`the request failed before A reached its gate: ${String(failed)}`);
    if (Date.now() > deadline) throw new Error('A never reached its gate');
    await new Promise((r) => setTimeout(r, 50));
  }
}
