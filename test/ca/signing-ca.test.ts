/**
 * "Can this CA sign?" is one rule with one wording (lib/ca/signing-ca.ts), whichever way a
 * certificate is asked for: the authority's entry (prepareIssuance, every way in), the signing itself when an
 * order is finally run (issueFromRequest), and `ca-admin sign_cert` (signCert). Each refuses a
 * disabled, revoked, expired or not yet valid CA with the same CaError; nothing is stored.
 */
import * as fs from 'fs';
import { defaultKeyBackend } from '../../adapters/keys/default-backend';
import { initCa } from '../../lib/ca/authorities';
import { signCert } from '../../lib/cli/certificates';
import { CrlPublisher } from '../../lib/ca/crls';
import { CaError } from '../../lib/ca/errors';
import { prepareIssuance } from '../../lib/ca/issuance/prepare';
import { policyContextOf } from '../../lib/ca/policy/context';
import type { CaRecord, RevocationStore, Store } from '../../lib/ports';
import { isUsable } from '../../lib/ca/lookup';
import { OcspDelegates } from '../../lib/ca/ocsp-delegate';
import { defaultProfiles } from '../../lib/ca/profiles';
import { validityEnd, whyCaCannotSign } from '../../lib/ca/signing-ca';
import { parseCsr } from '../../lib/x509/csr';
import { TEST_KEK } from '../cli/helpers';
import { opensslCsr, tmpDir } from '../cli/openssl';
import { openTestDatabase, type TestDatabase } from '../helpers/database';
import { issueFromRequest } from '../helpers/issue';

const keyBackends = [defaultKeyBackend({ keyEncryptionKey: TEST_KEK })];
const profiles = defaultProfiles();
const subject = [{ oid: '2.5.4.3', value: 'leaf.example.com' }];
let db: TestDatabase;
let ca: CaRecord;
let csr: string;
let dir: string;

beforeAll(async () => {
  db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
  ca = await initCa({
    store: db.store,
    keyBackends,
    name: 'rule',
    subject: [{ oid: 'CN', value: 'Rule CA' }],
    keyType: 'EC',
    expiresDays: 30,
  });
  dir = tmpDir('signing-ca');
  csr = fs.readFileSync(opensslCsr(dir, 'leaf', '/CN=leaf.example.com'), 'utf8');
});
afterAll(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The CA as it would be in each state, and the words every way in must use for it. */
const STATES = {
  'is disabled': (): [CaRecord, Date] => [{ ...ca, enabled: false }, inside()],
  'is revoked': (): [CaRecord, Date] => [{ ...ca, revoked: true }, inside()],
  'has expired': (): [CaRecord, Date] => [ca, new Date(ca.notAfter.getTime() + 1)],
  'is not yet valid': (): [CaRecord, Date] => [ca, ca.notBefore],
};
const inside = () => new Date(ca.notBefore.getTime() + 3_600_000);
const WORDS: Record<keyof typeof STATES, string> = {
  'is disabled': 'rule: The certificate authority is disabled.',
  'is revoked': 'rule: The certificate authority is revoked.',
  'has expired': 'rule: The certificate authority has expired.',
  'is not yet valid': 'rule: The certificate authority is not yet valid.',
};

/** The message of the CaError with `code` that `work` fails with (it must fail so). */
async function refusal(work: () => unknown, code: CaError['code'] = 'conflict'): Promise<string> {
  try {
    await work();
  } catch (e) {
    if (e instanceof CaError && e.code === code) return e.message;
    throw e;
  }
  throw new Error('the CA signed');
}

test.each(Object.keys(STATES) as (keyof typeof STATES)[])(
  'a CA that %s: the same refusal from the API check, the order run and ca-admin sign_cert; nothing stored',
  async (name) => {
    const [state, now] = STATES[name]();
    const words = WORDS[name];
    const before = (await db.store.listCertificates({ caId: ca.id })).length;
    expect(whyCaCannotSign(state, now)).not.toBeNull();
    expect(isUsable(state, now)).toBe(false);
    expect(
      await refusal(() =>
        prepareIssuance(
          { csr: parseCsr(csr), subject, extensions: [], notAfter: null },
          { ca: state, policy: policyContextOf(state, []), profiles, now },
        ),
      ),
    ).toBe(words);
    // An order accepted while the CA could sign, run after it stopped being able to.
    const request = prepareIssuance(
      { csr: parseCsr(csr), subject, extensions: [], notAfter: null },
      { ca, policy: policyContextOf(ca, []), profiles },
    );
    expect(await refusal(() => issueFromRequest({ store: db.store, keyBackends, ca: state, request, profiles, now }))).toBe(words);
    expect(await refusal(() => signCert({ store: db.store, keyBackends, profiles, ca: state, csr, subject, now }))).toBe(words);
    expect((await db.store.listCertificates({ caId: ca.id })).length).toBe(before);
  },
);

test('a CA that can sign: no reason, and what it signs ends with it at the latest, on a whole minute', () => {
  const now = new Date(ca.notBefore.getTime() + 3_600_000 + 12_345);
  expect(whyCaCannotSign(ca, now)).toBeNull();
  expect(isUsable(ca, now)).toBe(true);
  expect(validityEnd(ca, now, 86_400_000)).toEqual(new Date(Math.floor((now.getTime() + 86_400_000) / 60_000) * 60_000));
  expect(validityEnd(ca, now, 365 * 86_400_000)).toEqual(new Date(Math.floor(ca.notAfter.getTime() / 60_000) * 60_000));
});

test('a CA signs only with its own key: a backend that hands out another key signs no certificate, responder or CRL', async () => {
  const other = await initCa({
    store: db.store,
    keyBackends,
    name: 'other',
    subject: [{ oid: 'CN', value: 'Other CA' }],
    keyType: 'EC',
    expiresDays: 30,
  });
  const swapped: CaRecord = { ...ca, keyBackendOptions: other.keyBackendOptions };
  const store = db.store as Store & RevocationStore;
  const before = (await db.store.listCertificates({ caId: ca.id })).length;
  const keyError = (work: () => Promise<unknown>) => refusal(work, 'key');
  const words = "rule: The private key does not match the certificate authority's certificate.";
  const request = prepareIssuance(
    { csr: parseCsr(csr), subject, extensions: [], notAfter: null },
    { ca, policy: policyContextOf(ca, []), profiles },
  );
  expect(await keyError(() => issueFromRequest({ store: db.store, keyBackends, ca: swapped, request, profiles }))).toBe(words);
  expect(await keyError(() => new OcspDelegates(store, keyBackends, profiles).renew(swapped, new Date()))).toBe(words);
  expect(await keyError(() => new CrlPublisher(store, keyBackends).build(swapped, 'all'))).toBe(words);
  expect((await db.store.listCertificates({ caId: ca.id })).length).toBe(before);
  expect(await store.getOcspResponder(ca.id)).toBeNull();
});
