/**
 * lib/x509/scep (RFC 8894's CMS) against openssl as the independent implementation: requests as
 * clients build them are read and verified, openssl's envelopes opened and ours opened by openssl,
 * CertReps verified and read by `openssl cms`; the RSA unpadding returns the random key for every
 * defect; and a seeded fuzz of every reader: each input is read or refused with an X509Error, never
 * another error, never a hang.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { X509Error } from '../../../lib/x509/errors';
import { tlv } from '../../../lib/x509/der-writer';
import { keyObjectSigner } from '../../../lib/x509/key-signer';
import {
  buildCertRep,
  challengePassword,
  openEnvelope,
  readIssuerAndSerial,
  readIssuerAndSubject,
  readPkiMessage,
  ScepMessageError,
  sealEnvelope,
  unpadPkcs1v15KeyTransport,
  type ScepCipher,
} from '../../../lib/x509/scep';
import { buildRequest, csrOf, envelope, makeDevice, readCertRep, type Device } from '../../helpers/scep-request';
import { rng } from '../../helpers/seeded-random';

let dir: string;
let ra: Device;
let device: Device;
const raw = (keyPem: string) => async (block: Buffer) =>
  crypto.privateDecrypt({ key: keyPem, padding: crypto.constants.RSA_NO_PADDING }, block);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scep-x509-'));
  ra = makeDevice(dir, 'ra', 'Test SCEP RA');
  device = makeDevice(dir, 'device');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('unpadPkcs1v15KeyTransport', () => {
  const k = 256;
  const key = Buffer.alloc(16, 0xab);
  const random = Buffer.alloc(16, 0x5a);
  const block = (mutate: (b: Buffer) => void = () => {}) => {
    const b = Buffer.alloc(k, 0x33);
    b[0] = 0;
    b[1] = 2;
    b[k - 17] = 0;
    key.copy(b, k - 16);
    mutate(b);
    return b;
  };

  test('a well-padded block gives the key', () => {
    expect(unpadPkcs1v15KeyTransport(block(), 16, random)).toEqual(key);
  });

  test.each([
    ['EM[0] is not 0', (b: Buffer) => (b[0] = 1)],
    ['EM[1] is not 2', (b: Buffer) => (b[1] = 1)],
    ['a separator before the 8 octets of padding', (b: Buffer) => (b[5] = 0)],
    ['no separator', (b: Buffer) => (b[k - 17] = 0x33)],
    ['a message of another length', (b: Buffer) => (b[k - 25] = 0)],
  ])('%s: the random key, of the same length', (_what, mutate) => {
    const out = unpadPkcs1v15KeyTransport(block(mutate), 16, random);
    expect(out).toEqual(random);
    expect(out).not.toBe(random);
  });

  test('a block too short for the key: the random key', () => {
    expect(unpadPkcs1v15KeyTransport(Buffer.alloc(20), 16, random)).toEqual(random);
  });
});

describe('envelopes', () => {
  test.each([
    ['-des3', 'des-ede3-cbc'],
    ['-aes128', 'aes-128-cbc'],
    ['-aes256', 'aes-256-cbc'],
  ])("openssl's %s envelope opens to its content and cipher", async (flag, cipher) => {
    const content = crypto.randomBytes(700);
    const opened = await openEnvelope(envelope(dir, content, fs.readFileSync(ra.cert, 'utf8'), flag), {
      certificateDer: ra.certDer,
      decryptRaw: raw(ra.keyPem),
    });
    expect(opened).toEqual({ content, cipher });
  });

  test.each<ScepCipher>(['des-ede3-cbc', 'aes-128-cbc', 'aes-192-cbc', 'aes-256-cbc'])(
    'ours with %s opens with openssl cms -decrypt',
    (cipher) => {
      const content = crypto.randomBytes(333);
      const sealed = sealEnvelope(content, device.certDer, cipher);
      const out = execFileSync('openssl', ['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', device.cert, '-inkey', device.key], {
        input: sealed,
      });
      expect(out).toEqual(content);
    },
  );

  test('single DES (as micromdm sends it) round-trips, and equals triple DES with K‖K‖K', async () => {
    const content = crypto.randomBytes(100);
    const sealed = sealEnvelope(content, ra.certDer, 'des-cbc');
    expect(await openEnvelope(sealed, { certificateDer: ra.certDer, decryptRaw: raw(ra.keyPem) })).toEqual({ content, cipher: 'des-cbc' });
    const key = Buffer.from('0123456789abcdef', 'hex');
    // FIPS 81's DES-CBC known answer: "Now is the time for all " under 0123456789ABCDEF, IV 1234567890ABCDEF.
    const fips = crypto.createCipheriv('des-ede3-cbc', Buffer.concat([key, key, key]), Buffer.from('1234567890abcdef', 'hex'));
    fips.setAutoPadding(false);
    expect(Buffer.concat([fips.update('Now is the time for all ', 'latin1'), fips.final()]).toString('hex')).toBe(
      'e5c7cdde872bf27c43e934008c389c0f683788499a7c05f6',
    );
  });

  test('for another recipient, or with a key of the wrong length: badMessageCheck', async () => {
    const toDevice = sealEnvelope(Buffer.from('x'), device.certDer, 'aes-128-cbc');
    await expect(openEnvelope(toDevice, { certificateDer: ra.certDer, decryptRaw: raw(ra.keyPem) })).rejects.toMatchObject({
      failInfo: 'badMessageCheck',
    });
    const failing = openEnvelope(sealEnvelope(Buffer.from('x'), ra.certDer, 'aes-128-cbc'), {
      certificateDer: ra.certDer,
      decryptRaw: async () => Buffer.alloc(3),
    });
    await expect(failing).rejects.toBeInstanceOf(ScepMessageError);
  });
});

describe('pkiMessages and CertReps', () => {
  const csr = () => csrOf(dir, device.key, 'device.example.org', 'pass-w0rd!');

  test.each(['sha1', 'sha256'] as const)('a request signed with %s reads and verifies', (digest) => {
    const env = envelope(dir, csr(), fs.readFileSync(ra.cert, 'utf8'));
    const message = readPkiMessage(
      buildRequest({ signer: device, content: env, messageType: 19, transactionId: 'ABC', senderNonce: Buffer.alloc(16, 1), digest }),
    );
    expect(message).toEqual({
      messageType: 19,
      transactionId: 'ABC',
      senderNonce: Buffer.alloc(16, 1),
      digest,
      signerCertificate: device.certDer,
      envelope: env,
    });
  });

  test('a bad signature is badMessageCheck, and still tells the transaction and nonce', () => {
    const stranger = makeDevice(dir, 'stranger');
    const env = envelope(dir, csr(), fs.readFileSync(ra.cert, 'utf8'));
    let error: unknown;
    try {
      readPkiMessage(
        buildRequest({
          signer: device,
          content: env,
          messageType: 19,
          transactionId: 'T9',
          senderNonce: Buffer.alloc(16, 9),
          signWith: stranger.keyPem,
        }),
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScepMessageError);
    expect(error).toMatchObject({
      failInfo: 'badMessageCheck',
      transactionId: 'T9',
      senderNonce: Buffer.alloc(16, 9),
      signerCertificate: device.certDer,
    });
  });

  test('the challenge password of a CSR, and none where there is none', () => {
    expect(challengePassword(csr())).toBe('pass-w0rd!');
    expect(challengePassword(csrOf(dir, device.key, 'device.example.org'))).toBeUndefined();
  });

  test.each(['SUCCESS', 'FAILURE', 'PENDING'] as const)(
    'a %s CertRep verifies with openssl, signed with rsaEncryption, its attributes as sent',
    async (status) => {
      const signer = { certificateDer: ra.certDer, chainDer: [], signer: keyObjectSigner(crypto.createPrivateKey(ra.keyPem)) };
      const reply =
        status === 'SUCCESS'
          ? { status, certificates: [device.certDer, ra.certDer], recipientCertificateDer: device.certDer, cipher: 'aes-128-cbc' as const }
          : status === 'FAILURE'
            ? { status, failInfo: 'badCertId' as const, failInfoText: 'Nö' }
            : { status };
      const der = await buildCertRep({ signer, transactionId: 'TX-1', recipientNonce: Buffer.alloc(16, 3), reply });
      const seen = readCertRep(dir, der, device);
      expect(seen.status).toBe({ SUCCESS: '0', FAILURE: '2', PENDING: '3' }[status]);
      expect(seen.transactionId).toBe('TX-1');
      expect(seen.failInfo).toBe(status === 'FAILURE' ? '4' : null);
      expect(seen.certificates.length).toBe(status === 'SUCCESS' ? 2 : 0);
      // The issued certificate first, byte for byte.
      if (status === 'SUCCESS') expect(seen.certificates[0]).toBe(fs.readFileSync(device.cert, 'utf8'));
      // The SignerInfo's signature algorithm is rsaEncryption (strongSwan 5.9 accepts nothing else).
      const printed = execFileSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER'], { input: der }).toString();
      expect(printed).toMatch(/signatureAlgorithm: \n\s+algorithm: rsaEncryption \(1\.2\.840\.113549\.1\.1\.1\)/);
    },
  );
});

describe('fuzz: every reader reads or refuses with an X509Error', () => {
  // A fixed seed, so that a failure reproduces; FUZZ_SEED explores others.
  const SEED = Number(process.env.FUZZ_SEED ?? 0x5ce9);
  const ROUNDS = 400;

  function mutate(buf: Buffer, next: () => number): Buffer {
    const out = Buffer.from(buf);
    const n = 1 + Math.floor(next() * 4);
    for (let i = 0; i < n; i++) {
      const r = next();
      const at = Math.floor(next() * out.length);
      if (r < 0.6) out[at] = Math.floor(next() * 256);
      else if (r < 0.8) return Buffer.concat([out.subarray(0, at), out.subarray(at + 1 + Math.floor(next() * 8))]);
      else return out.subarray(0, at);
    }
    return out;
  }

  async function outcome(what: string, input: Buffer, read: () => unknown): Promise<void> {
    try {
      await read();
    } catch (e) {
      if (e instanceof X509Error) return;
      throw new Error(
        `${what} (seed ${SEED}): ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\ninput: ${input.toString('hex').slice(0, 400)}`,
        { cause: e },
      );
    }
  }

  test(`${ROUNDS} mutated pkiMessages, envelopes, CSRs and request contents (seed printed on failure)`, async () => {
    const next = rng(SEED);
    const env = envelope(dir, csrOf(dir, device.key, 'fuzz.example.org', 'x'), fs.readFileSync(ra.cert, 'utf8'));
    const message = buildRequest({ signer: device, content: env, messageType: 19 });
    const csr = csrOf(dir, device.key, 'fuzz.example.org', 'secret');
    const name = tlv(0x30, tlv(0x31, tlv(0x30, tlv(0x06, Buffer.from([0x55, 0x04, 0x03])), tlv(0x0c, Buffer.from('x')))));
    const ias = tlv(0x30, name, tlv(0x02, Buffer.from([0x01])));
    const iasubject = tlv(0x30, name, name);
    const recipient = { certificateDer: ra.certDer, decryptRaw: raw(ra.keyPem) };
    for (let i = 0; i < ROUNDS; i++) {
      const m = mutate(message, next);
      await outcome('readPkiMessage', m, () => readPkiMessage(m));
      const e = mutate(env, next);
      await outcome('openEnvelope', e, () => openEnvelope(e, recipient));
      const c = mutate(csr, next);
      await outcome('challengePassword', c, () => challengePassword(c));
      const s = mutate(ias, next);
      await outcome('readIssuerAndSerial', s, () => readIssuerAndSerial(s));
      const p = mutate(iasubject, next);
      await outcome('readIssuerAndSubject', p, () => readIssuerAndSubject(p));
    }
  }, 120_000);
});
