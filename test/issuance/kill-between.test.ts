/**
 * Issue 47, "one authority entry", done when: a test kills the process between intent and signature
 * and between signature and store; after restart every recorded intent ends issued or failed (none
 * pending for ever), no serial ever names two different to-be-signed certificates, nothing is issued
 * twice, and every certificate that left the process has its row — REST, ACME, EST, SCEP.
 *
 * For each door (kill-between/doors.ts) × each point (kill-between/hosts.ts): instance A (a real
 * router in a child process, test/examples/fixtures/work-host.ts) takes the client's request and is
 * SIGKILLed while a gate holds it — before its signature is made, or once made and before it is
 * stored; instance B starts then on the same PostgreSQL schema with a short `issuanceLeaseMs`, as
 * after a restart, and the client gets its certificate the door's own way (B's runners finish a REST
 * or ACME order; an EST or SCEP client asks again). Then the rows say it (kill-between/ledger.ts).
 * Beside the issue's eight cases: B signs A's pending intent again (B's lease not yet over), and A,
 * not killed but stalled between signature and store past its lease, is let go once B has finished.
 *
 * Instances take seconds to start, so the cases share them: B of one case was started with the next
 * case's gate (open while it serves as B) and is that case's A. One schema for all cases; each case's
 * own rows are those written since its mark. PostgreSQL only (PGlite is one process's database).
 */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { defaultKeyBackend, initCa } from '../../lib';
import { createApiUser } from '../../lib/accounts/users';
import { childDatabaseUrl } from '../cli/database-url';
import { TEST_KEK } from '../cli/helpers';
import { describeOnPostgres, openTestDatabase, type TestDatabase } from '../helpers/database';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { DOORS, SCEP_CHALLENGE, type Door, type DoorName, type DoorWorld } from './kill-between/doors';
import { Hosts, sleep, type Gate, type Host, type Point } from './kill-between/hosts';
import {
  expectCertificatesOnce,
  expectIntentsOfCase,
  expectIntentsSettled,
  expectOneTbsPerSerial,
  mark,
  type Takeover,
} from './kill-between/ledger';

const PASSWORD = 'kill between';
/**
 * B's lease on pending intents (`issuanceLeaseMs`). Short: A's intent is past it when B starts, so B
 * marks it failed (interrupted) and its way in issues under a new intent. Long (the default): A's
 * intent is still pending when B's REST or ACME runner takes the order over, and B signs A's recorded
 * TBSCertificate again (lib/ca/issuance/sign.ts) — the same serial, the same to-be-signed bytes.
 */
const LEASES = { short: 1500, long: 600_000 } as const;
type Lease = keyof typeof LEASES;
const TAKEOVER: Record<Lease, Takeover> = { short: 'issued anew', long: 'signed again' };

/**
 * How A's part ends: SIGKILLed at its gate; or stalled there (a paused VM, a long GC) until B has
 * finished, then let go — whatever it signed then must not become a second certificate.
 */
type Ending = 'killed' | 'stalled';

const BETWEEN_INTENT_AND_SIGNATURE = 'signing';
const BETWEEN_SIGNATURE_AND_STORE = 'storing';
/**
 * The cases, in the order they run (each case's B is the next one's A: the long-lease ones first, so
 * that no instance with a short lease ever sweeps their A's intent).
 */
const CASES: [DoorName, Ending, Point, Lease][] = [
  ['REST', 'killed', BETWEEN_SIGNATURE_AND_STORE, 'long'],
  ['ACME', 'killed', BETWEEN_SIGNATURE_AND_STORE, 'long'],
  ['REST', 'killed', BETWEEN_INTENT_AND_SIGNATURE, 'short'],
  ['REST', 'killed', BETWEEN_SIGNATURE_AND_STORE, 'short'],
  ['ACME', 'killed', BETWEEN_INTENT_AND_SIGNATURE, 'short'],
  ['ACME', 'killed', BETWEEN_SIGNATURE_AND_STORE, 'short'],
  ['EST', 'killed', BETWEEN_INTENT_AND_SIGNATURE, 'short'],
  ['EST', 'killed', BETWEEN_SIGNATURE_AND_STORE, 'short'],
  ['SCEP', 'killed', BETWEEN_INTENT_AND_SIGNATURE, 'short'],
  ['SCEP', 'killed', BETWEEN_SIGNATURE_AND_STORE, 'short'],
  ['REST', 'stalled', BETWEEN_SIGNATURE_AND_STORE, 'short'],
  ['ACME', 'stalled', BETWEEN_SIGNATURE_AND_STORE, 'short'],
];
const TITLES = {
  killed: 'killed',
  stalled: 'stalled past its lease',
  signing: 'between intent and signature',
  storing: 'between signature and store',
  short: "A's intent failed, B issued under a new one",
  long: "B signed A's pending intent again",
} as const;

describeOnPostgres('an instance killed mid-issuance: every intent settles, one certificate per request (PostgreSQL)', (target) => {
  let dir: string;
  let dns: TestDnsServer;
  let responder: http.Server;
  const http01 = new Map<string, string>();
  let db: TestDatabase;
  let hosts: Hosts;
  let world: DoorWorld;
  let options: Record<string, unknown>;
  /** One gate per case, made up front: a case's B is started with the next case's. */
  let gates: Gate[];
  /** The instance started with `gates[next.case]`, waiting to be that case's A. */
  let next: { host: Host; case: number } | undefined;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kill-between-'));
    dns = await startDnsServer();
    responder = http.createServer((req, res) => {
      const answer = http01.get((req.url ?? '').replace('/.well-known/acme-challenge/', ''));
      res.statusCode = answer ? 200 : 404;
      res.end(answer ?? 'not found');
    });
    await new Promise<void>((r) => responder.listen(0, '127.0.0.1', r));

    db = await openTestDatabase(target);
    const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: TEST_KEK }) };
    const base = { store: db.store, keyBackends, keyType: 'EC' as const, defaultHostname: 'ca.example.com' };
    const root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'Kill Between Root' }], pathLength: 1 });
    let ca = await initCa({
      ...base,
      name: 'issuing',
      subject: [{ oid: 'CN', value: 'Kill Between Issuing' }],
      parent: root,
      expiresDays: 365,
    });
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
      signInRequest: false, // REST: the queued path, where the order is durable work (docs/reference/differences.md D3)
      orderWaitMs: 0,
      est: { enabled: true, ca: ca.serial },
      scep: { enabled: true, ca: ca.serial, challenge: SCEP_CHALLENGE },
    };
    gates = CASES.map(([, , point]) => hosts.gate(point));
  }, 120_000);

  afterEach(() => hosts.killAll(next?.host));

  afterAll(async () => {
    await hosts?.killAll();
    await db?.close();
    responder?.closeAllConnections();
    await new Promise((r) => responder?.close(r));
    await dns?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test.each(CASES.map(([door, ending, point, lease], i) => [door, TITLES[ending], TITLES[point], TITLES[lease], i] as const))(
    '%s, A %s %s, %s: every intent settled, the client got one certificate, stored once',
    async (doorName, _ending, _point, _lease, i) => {
      const [, ending, , lease] = CASES[i];
      const door = DOORS[doorName] as Door;
      const gate = gates[i];
      const a = next?.case === i ? next.host : await hosts.start(options, gate);
      next = undefined;
      const state = await door.prepare(world, a);
      const since = await mark(db);

      gate.close();
      const sending = door.send(world, a, state).then(
        () => null,
        (e: unknown) => e,
      );
      await waitHeld(gate, sending);
      if (door.answersWhileSigning) expect(await sending).toBeNull();
      if (ending === 'killed') {
        await hosts.kill(a);
        await sending; // EST, SCEP: the answer died with A
      }

      // B starts now, as after a restart; it is also the next case's A, held at that case's gate once it closes.
      const b = await hosts.start({ ...options, issuanceLeaseMs: LEASES[lease] }, gates[i + 1]);
      if (gates[i + 1]) next = { host: b, case: i + 1 };
      const received = await door.finish(world, a, b, state);
      await expectIntentsSettled(db);
      if (ending === 'stalled') {
        await gate.open();
        await sleep(1500); // what A does with its signature now, it does within a statement or two
      }

      const stored = await expectCertificatesOnce(db, since, received);
      await expectOneTbsPerSerial(db);
      await expectIntentsOfCase(db, since, stored, TAKEOVER[lease]);
    },
  );
});

/** Until A waits at its gate; fails at once should A's request fail first (nothing would ever reach the gate). */
async function waitHeld(gate: Gate, sending: Promise<unknown>): Promise<void> {
  let failed: unknown = null;
  void sending.then((e) => (failed = e));
  const deadline = Date.now() + 30_000;
  while (!gate.held()) {
    if (failed) throw new Error(`the request failed before A reached its gate: ${String(failed)}`);
    if (Date.now() > deadline) throw new Error('A never reached its gate');
    await new Promise((r) => setTimeout(r, 50));
  }
}
