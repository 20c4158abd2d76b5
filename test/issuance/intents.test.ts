/**
 * The issuing authority's order of work (docs/guides/issuance-policy.md "Issuing authority: every signature recorded first";
 * lib/ca/issuance/sign.ts): the TBSCertificate is recorded and committed as an intent before the key
 * signs; the statement that stores the certificate marks it issued; two requests for the same thing
 * meet at the intent; a certificate a way in refuses after signing is not issued, its intent records
 * why; intents left pending
 * by a dead process are settled. On every test database target.
 */
import * as forge from 'node-forge';
import { defaultKeyBackend } from '../../adapters/keys/default-backend';
import { initCa } from '../../lib/ca/authorities';
import { issue, keepAlone } from '../../lib/ca/issuance/issue';
import { signOrder } from '../../lib/ca/issuance/order-store';
import { prepareIssuance } from '../../lib/ca/issuance/prepare';
import { parseCsr } from '../../lib/x509/csr';
import { IssuanceTaken, signCertificate, type Signing } from '../../lib/ca/issuance/sign';
import { INTERRUPTED, startIntentSweep } from '../../lib/ca/issuance/interrupted';
import { policyContextOf } from '../../lib/ca/policy/context';
import { resolveProfiles } from '../../lib/ca/profiles';
import { isIntentTaken, type CaRecord, type KeyBackend, type OrderRecord, type SignRequest } from '../../lib/ports';
import { TEST_KEK } from '../cli/helpers';
import { opensslCsr } from '../api/fixture';
import { describeOnPostgres, openSecondPool, openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

const profiles = resolveProfiles({});

/** The TBSCertificate DER of a certificate DER: the first element of its outer SEQUENCE (RFC 5280 §4.1). */
function tbsOf(der: Buffer): Buffer {
  const outer = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')));
  const tbs = (outer.value as forge.asn1.Asn1[])[0];
  return Buffer.from(forge.asn1.toDer(tbs).getBytes(), 'binary');
}

describe.each(testDatabaseTargets())('issuance intents on $name', (target) => {
  let db: TestDatabase;
  let ca: CaRecord;
  let request: SignRequest;
  const backend = defaultKeyBackend({ keyEncryptionKey: TEST_KEK });
  /** Signatures fail while `failing` is set (a key that cannot sign). */
  let failing = false;
  const flaky: KeyBackend = {
    alias: backend.alias,
    createKey: (spec, o) => backend.createKey(spec, o),
    importKey: (key, password, o) => backend.importKey(key, password, o),
    getSigner: async (options, use) => {
      const signer = await backend.getSigner(options, use);
      return {
        keyType: signer.keyType,
        publicKeyDer: signer.publicKeyDer,
        sign: (data, o) => (failing ? Promise.reject(new Error('the token is unplugged')) : signer.sign(data, o)),
      };
    },
  };
  const keyBackends = { default: flaky };
  let signing: Signing;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    signing = { keyBackends, profiles, intents: db.store };
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
    failing = false;
    ca = await initCa({
      store: db.store,
      keyBackends: [flaky],
      name: 'intents',
      subject: [{ oid: 'CN', value: 'intents.example' }],
      keyType: 'EC',
      expiresDays: 365,
    });
    request = prepareIssuance(
      { csr: parseCsr(opensslCsr('EC').csr), subject: [{ oid: 'CN', value: 'leaf.intents.example' }], extensions: [], notAfter: null },
      { ca, policy: policyContextOf(ca, [ca]), profiles },
    );
  });

  const rest = { requester: null, door: 'rest' } as const;

  it('records the TBSCertificate before signing; storing the certificate marks the intent issued and lets its copy go', async () => {
    const signed = await signCertificate(signing, ca, request, { ...rest, answers: 'order:1' });
    const [pending] = await db.store.listIntents({ caId: ca.id });
    expect(pending).toMatchObject({ serial: signed.serial, door: 'rest', answers: 'order:1', certificateId: null, failed: null });
    expect(pending.tbs?.equals(tbsOf(signed.der))).toBe(true);
    const stored = await db.store.insertCertificate(signed);
    const [intent] = await db.store.listIntents({ caId: ca.id });
    // The certificate holds the TBS now (migration 0036): the intent keeps no second copy.
    expect(intent).toMatchObject({ serial: stored.serial, certificateId: stored.id, failed: null, tbs: null });
    expect(await db.store.listIntents({ pendingOnly: true })).toEqual([]);
    // Through every storing path: issue() stores in the door's own statement.
    const again = await issue(signing, ca, request, { ...rest, answers: 'order:2' }, keepAlone(db.store));
    expect((await db.store.listIntents({ caId: ca.id })).find((i) => i.certificateId === again.id)?.tbs).toBeNull();
  });

  it("a certificate that is not the TBSCertificate its serial's intent recorded is refused, and nothing is stored (migration 0036)", async () => {
    const signed = await signCertificate(signing, ca, request, rest);
    // Another certificate under the same serial: the TBS differs (another key), the intent is the first's.
    const other = await signCertificate(signing, ca, request, rest);
    const forged = { ...other, serial: signed.serial };
    await expect(db.store.insertCertificate(forged)).rejects.toThrow(/not the one its issuance intent recorded/);
    expect(await db.store.listCertificates({ caId: ca.id })).toEqual([]);
    const [, first] = await db.store.listIntents({ caId: ca.id });
    expect(first).toMatchObject({ serial: signed.serial, certificateId: null });
    expect(first.tbs?.equals(tbsOf(signed.der))).toBe(true);
    expect((await db.store.insertCertificate(signed)).serial).toBe(signed.serial);
  });

  it('a signature that fails leaves the intent failed with the reason, and nothing stored', async () => {
    failing = true;
    await expect(signCertificate(signing, ca, request, rest)).rejects.toThrow(/unplugged/);
    const [intent] = await db.store.listIntents({ caId: ca.id });
    expect(intent.certificateId).toBeNull();
    expect(intent.failed).toBeInstanceOf(Date);
    expect(intent.failure).toMatch(/^Not signed: .*unplugged/);
    expect(intent.tbs?.length).toBeGreaterThan(100); // a failed intent keeps what was about to be signed
    expect(await db.store.listCertificates({ caId: ca.id })).toEqual([]);
  });

  it('a second request for the same thing signs the pending intent again (same serial, same TBS), and the first stored is kept', async () => {
    // The first request recorded its intent and died before storing: only its row is left.
    const first = await signCertificate(signing, ca, request, { ...rest, answers: 'order:7' });
    const second = await signCertificate(signing, ca, request, { ...rest, answers: 'order:7' });
    expect(second.serial).toBe(first.serial);
    expect(second.intentId).toBe(first.intentId);
    expect(tbsOf(second.der).equals(tbsOf(first.der))).toBe(true);
    expect(await db.store.listIntents({ caId: ca.id })).toHaveLength(1);
    const stored = await db.store.insertCertificate(second);
    // Once stored, a third request is told whose certificate it is, and nothing is signed.
    const third = signCertificate(signing, ca, request, { ...rest, answers: 'order:7' });
    await expect(third).rejects.toBeInstanceOf(IssuanceTaken);
    await expect(third).rejects.toMatchObject({ intent: { certificateId: stored.id } });
  });

  it('a failed intent frees what it answered: the next request records its own', async () => {
    const recorded = await db.store.recordIntent({
      caId: ca.id,
      serial: 'AA01',
      door: 'acme',
      requester: null,
      answers: 'acme-order:3',
      tbs: Buffer.from([0x30, 0]),
    });
    if (isIntentTaken(recorded)) throw new Error('nothing answered acme-order:3 yet');
    const again = await db.store.recordIntent({
      caId: ca.id,
      serial: 'AA02',
      door: 'acme',
      requester: null,
      answers: 'acme-order:3',
      tbs: Buffer.from([0x30, 1]),
    });
    expect(isIntentTaken(again) && again.taken.id).toBe(recorded.id);
    await db.store.failIntent(recorded.id, 'refused');
    const third = await db.store.recordIntent({
      caId: ca.id,
      serial: 'AA03',
      door: 'acme',
      requester: null,
      answers: 'acme-order:3',
      tbs: Buffer.from([0x30, 2]),
    });
    expect(isIntentTaken(third)).toBe(false);
  });

  it('intents of concurrent requests are written together, each with its own answer', async () => {
    const answers = ['order:21', 'order:22', 'order:21', null, 'order:23'];
    const results = await Promise.all(
      answers.map((a, i) =>
        db.store.recordIntent({ caId: ca.id, serial: `BB0${i}`, door: 'rest', requester: null, answers: a, tbs: Buffer.from([0x30, i]) }),
      ),
    );
    expect(results.map((r) => (isIntentTaken(r) ? `taken:${r.taken.serial}` : r.serial))).toEqual([
      'BB00',
      'BB01',
      'taken:BB00',
      'BB03',
      'BB04',
    ]);
  });

  it('a certificate its way in refuses after signing is not issued: its intent records the signature and why', async () => {
    const refusal = new Error('the certificate authority was revoked meanwhile');
    await expect(issue(signing, ca, request, rest, () => Promise.reject(refusal))).rejects.toBe(refusal);
    const [intent] = await db.store.listIntents({ caId: ca.id });
    expect(intent.certificateId).toBeNull();
    expect(intent.failure).toBe('Signed, not issued (it never left the process): the certificate authority was revoked meanwhile');
    expect(await db.store.listCertificates({ caId: ca.id })).toEqual([]);
  });

  it('a runner that finds its order issued already takes that certificate (signOrder: IssuanceTaken)', async () => {
    const order = { id: 41, request, requester: null } as unknown as OrderRecord;
    const certificate = await signOrder(signing, ca, order);
    const stored = await db.store.insertCertificate(certificate);
    await expect(signOrder(signing, ca, order)).rejects.toMatchObject({ intent: { certificateId: stored.id } });
  });

  it('a failed intent is final: its certificate, signed late, is refused by the store', async () => {
    const late = await signCertificate(signing, ca, request, { ...rest, answers: 'order:9' });
    await db.store.failIntent(late.intentId, INTERRUPTED);
    await expect(db.store.insertCertificate(late)).rejects.toThrow(/given up/);
    await expect(issue(signing, ca, request, { ...rest, answers: 'order:9' }, keepAlone(db.store))).resolves.toMatchObject({
      caId: ca.id,
    });
    const certificates = await db.store.listCertificates({ caId: ca.id });
    expect(certificates.map((c) => c.serial)).not.toContain(late.serial);
    expect(certificates).toHaveLength(1);
  });

  it('intents pending beyond the lease are settled failed; recent and issued ones are left alone', async () => {
    const old = await db.store.recordIntent({
      caId: ca.id,
      serial: 'CC01',
      door: 'scep',
      requester: null,
      answers: null,
      tbs: Buffer.from([0x30, 0]),
    });
    const issued = await issue(signing, ca, request, rest, keepAlone(db.store));
    await new Promise((r) => setTimeout(r, 300));
    const recent = await db.store.recordIntent({
      caId: ca.id,
      serial: 'CC02',
      door: 'est',
      requester: null,
      answers: null,
      tbs: Buffer.from([0x30, 1]),
    });
    const sweep = startIntentSweep(db.store, 250, (_m, e) => {
      throw e;
    });
    sweep.close(); // its timers: this test sweeps by hand
    expect(await sweep.sweep()).toBe(1);
    const byId = new Map((await db.store.listIntents()).map((i) => [i.serial, i]));
    expect(byId.get('CC01')).toMatchObject({ failure: INTERRUPTED, certificateId: null });
    expect(byId.get('CC02')).toMatchObject({ failed: null, certificateId: null });
    expect(byId.get(issued.serial)).toMatchObject({ failed: null, certificateId: issued.id });
    expect(isIntentTaken(old) || isIntentTaken(recent)).toBe(false);
  });
});

/**
 * An intent given up while its certificate is being stored, by another connection (the sweep of
 * another instance, a refusal): whichever commits first wins, never both — no certificate stored under
 * a failed intent, no failed intent left with a certificate. Only PostgreSQL has concurrent connections.
 */
describeOnPostgres('issuance intents given up while their certificate is stored', (target) => {
  let db: TestDatabase;
  let other: ReturnType<typeof openSecondPool>;
  let ca: CaRecord;
  let signing: Signing;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    other = openSecondPool(target.url, db.knex);
    const backend = defaultKeyBackend({ keyEncryptionKey: TEST_KEK });
    signing = { keyBackends: { default: backend }, profiles, intents: db.store };
    ca = await initCa({
      store: db.store,
      keyBackends: [backend],
      name: 'given-up',
      subject: [{ oid: 'CN', value: 'given-up.example' }],
      keyType: 'EC',
      expiresDays: 365,
    });
  });
  afterAll(async () => {
    await other?.destroy();
    await db?.close();
  });

  const signed = () =>
    signCertificate(
      signing,
      ca,
      prepareIssuance(
        { csr: parseCsr(opensslCsr('EC').csr), subject: [{ oid: 'CN', value: 'leaf.given-up.example' }], extensions: [], notAfter: null },
        { ca, policy: policyContextOf(ca, [ca]), profiles },
      ),
      { requester: null, door: 'rest' },
    );
  const intentOf = async (id: number) => (await db.store.listIntents()).find((i) => i.id === id);

  it('given up first (not yet committed): the certificate waits for it, then is refused', async () => {
    const late = await signed();
    const giveUp = await other.transaction();
    try {
      await giveUp('ca_api_issuance_intents')
        .where({ id: late.intentId })
        .update({ failed: other.raw('clock_timestamp()'), failure: 'given up by another instance' });
      const storing = db.store.insertCertificate(late);
      const outcome = storing.then(
        () => 'stored',
        (e: Error) => e.message,
      );
      await new Promise((r) => setTimeout(r, 300)); // the INSERT is waiting on the intent's row
      await giveUp.commit();
      expect(await outcome).toMatch(/given up/);
    } finally {
      if (!giveUp.isCompleted()) await giveUp.rollback();
    }
    expect((await db.store.listCertificates({ caId: ca.id })).map((c) => c.serial)).not.toContain(late.serial);
    expect(await intentOf(late.intentId)).toMatchObject({ certificateId: null, failure: 'given up by another instance' });
  });

  it('stored first (not yet committed): the give-up waits for it, then leaves the issued intent alone', async () => {
    const timely = await signed();
    let settling: Promise<number> | undefined;
    const stored = await db.store.transaction(async (tx) => {
      const row = await tx.insertCertificate(timely);
      // Another connection gives up every pending intent (a lease of "now + 1 min" covers this one).
      settling = db.store.settleInterruptedIntents(new Date(Date.now() + 60_000), 'interrupted');
      await new Promise((r) => setTimeout(r, 300)); // the sweep is waiting on the intent's row
      return row;
    });
    expect(await settling).toBe(0);
    expect(await intentOf(timely.intentId)).toMatchObject({ certificateId: stored.id, failed: null });
  });
});
