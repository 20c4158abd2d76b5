/**
 * openEnvelope and sealEnvelope (RFC 8894 §3.2.2; RFC 5652 §6) against openssl's `cms` as the
 * independent implementation, and strongSwan's `pki` (the strictest client's PKCS#7 code) where it is
 * installed: every cipher both ways, the micromdm form of the content, algorithms refused with badAlg,
 * and the implicit rejection of RFC 3218 §2.3.2 end to end — a garbage key block, a key encrypted to
 * another RSA key under the RA's name, and a corrupted content all fail with one and the same error.
 */
import * as crypto from 'crypto';
import { tlv } from '../../../lib/x509/der-writer';
import { type Tlv, readTlv, readTlvChildren } from '../../../lib/x509/tlv';
import { openEnvelope, sealEnvelope, ScepMessageError, type ScepCipher } from '../../../lib/x509/scep';
import { type Fixtures, HAS_LEGACY_PROVIDER, HAS_STRONGSWAN_PKI, LEGACY, makeFixtures, pki, rawDecrypt } from './fixtures';

let fx: Fixtures;
beforeAll(() => {
  fx = makeFixtures();
});
afterAll(() => fx.cleanup());

const toRa = () => ({ certificateDer: fx.ra.certDer, decryptRaw: rawDecrypt(fx.ra.keyPem) });
/** `content` enveloped to the RA by `openssl cms -encrypt` with `flags`. */
const opensslEnvelope = (content: Buffer, flags: string[], recipient = fx.ra.cert) =>
  fx.openssl(['cms', '-encrypt', '-binary', '-outform', 'DER', ...flags, recipient], content);
const opensslDecrypt = (der: Buffer, flags: string[] = []) =>
  fx.openssl(['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', fx.device.cert, '-inkey', fx.device.key, ...flags], der);

/** The TLVs of the EnvelopedData inside a ContentInfo: [version, recipientInfos, encryptedContentInfo]. */
function envelopedDataFields(der: Buffer): Tlv[] {
  const contentInfo = readTlvChildren(der, readTlv(der, 0, der.length));
  return readTlvChildren(der, readTlvChildren(der, contentInfo[1])[0]);
}

/** The single recipient's encryptedKey TLV. */
function encryptedKeyTlv(der: Buffer): Tlv {
  const recipient = readTlvChildren(der, envelopedDataFields(der)[1])[0];
  return readTlvChildren(der, recipient)[3];
}

/** The envelope with its primitive `80` content rewritten as micromdm writes it: `A0 { 04 chunk, … }`. */
function constructedContent(der: Buffer, chunk: number): Buffer {
  const [version, recipients, info] = envelopedDataFields(der);
  const [type, algorithm, content] = readTlvChildren(der, info);
  const bytes = der.subarray(content.contentStart, content.end);
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += chunk) pieces.push(tlv(0x04, bytes.subarray(at, at + chunk)));
  const slice = (t: Tlv) => der.subarray(t.start, t.end);
  const envelopedData = tlv(0x30, slice(version), slice(recipients), tlv(0x30, slice(type), slice(algorithm), tlv(0xa0, ...pieces)));
  const oid = readTlvChildren(der, readTlv(der, 0, der.length))[0];
  return tlv(0x30, slice(oid), tlv(0xa0, envelopedData));
}

describe('openssl envelopes open', () => {
  test.each([
    ['-des3', 'des-ede3-cbc'],
    ['-aes128', 'aes-128-cbc'],
    ['-aes192', 'aes-192-cbc'],
    ['-aes256', 'aes-256-cbc'],
  ])('%s', async (flag, cipher) => {
    const content = crypto.randomBytes(1000);
    expect(await openEnvelope(opensslEnvelope(content, [flag]), toRa())).toEqual({ content, cipher });
  });

  (HAS_LEGACY_PROVIDER ? test : test.skip)('-des (single DES, through the legacy provider): des-cbc', async () => {
    const content = crypto.randomBytes(100);
    expect(await openEnvelope(opensslEnvelope(content, ['-des', ...LEGACY]), toRa())).toEqual({ content, cipher: 'des-cbc' });
  });

  test('content of every length around the block size (padding of 1 to 16 octets)', async () => {
    for (let n = 0; n <= 33; n++) {
      const content = crypto.randomBytes(n);
      expect((await openEnvelope(opensslEnvelope(content, ['-aes128']), toRa())).content).toEqual(content);
    }
  });

  test('the content as constructed OCTET STRING chunks (micromdm)', async () => {
    const content = crypto.randomBytes(777);
    const der = constructedContent(opensslEnvelope(content, ['-des3']), 64);
    expect(fx.openssl(['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', fx.ra.cert, '-inkey', fx.ra.key], der)).toEqual(content);
    expect((await openEnvelope(der, toRa())).content).toEqual(content);
  });

  test('an envelope for two recipients: the RA’s RecipientInfo is picked', async () => {
    const content = crypto.randomBytes(50);
    const der = fx.openssl(['cms', '-encrypt', '-binary', '-outform', 'DER', '-aes128', fx.device.cert, fx.ra.cert], content);
    expect((await openEnvelope(der, toRa())).content).toEqual(content);
  });

  test('a key holder that drops leading zero octets of the raw block (as some tokens do)', async () => {
    const content = crypto.randomBytes(40);
    const stripping = async (block: Buffer) => {
      const raw = await rawDecrypt(fx.ra.keyPem)(block);
      let at = 0;
      while (at < raw.length && raw[at] === 0) at++;
      return raw.subarray(at);
    };
    expect(
      (await openEnvelope(opensslEnvelope(content, ['-aes256']), { certificateDer: fx.ra.certDer, decryptRaw: stripping })).content,
    ).toEqual(content);
  });

  (HAS_STRONGSWAN_PKI ? test : test.skip)('strongSwan pki --pkcs7 --encrypt', async () => {
    const content = crypto.randomBytes(300);
    // pki 5.9.8 exits with 1 after writing the envelope; openssl confirms what it wrote.
    const made = pki(['--pkcs7', '--encrypt', '--in', fx.file('content', content), '--cert', fx.ra.cert]).stdout;
    expect(fx.openssl(['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', fx.ra.cert, '-inkey', fx.ra.key], made)).toEqual(content);
    expect((await openEnvelope(made, toRa())).content).toEqual(content);
  });
});

describe('sealEnvelope output opens elsewhere', () => {
  test.each<ScepCipher>(['des-ede3-cbc', 'aes-128-cbc', 'aes-192-cbc', 'aes-256-cbc'])('%s with openssl cms -decrypt', (cipher) => {
    const content = crypto.randomBytes(333);
    expect(opensslDecrypt(sealEnvelope(content, fx.device.certDer, cipher))).toEqual(content);
  });

  (HAS_LEGACY_PROVIDER ? test : test.skip)('des-cbc with openssl cms -decrypt and the legacy provider', () => {
    const content = crypto.randomBytes(333);
    expect(opensslDecrypt(sealEnvelope(content, fx.device.certDer, 'des-cbc'), LEGACY)).toEqual(content);
  });

  test.each<ScepCipher>(['des-cbc', 'des-ede3-cbc', 'aes-128-cbc', 'aes-192-cbc', 'aes-256-cbc'])('%s round-trips', async (cipher) => {
    const content = crypto.randomBytes(65);
    expect(await openEnvelope(sealEnvelope(content, fx.ra.certDer, cipher), toRa())).toEqual({ content, cipher });
  });

  test('the form strongSwan requires: EnvelopedData v0, RecipientInfo v0 by issuer and serial, rsaEncryption + NULL, primitive [0]', () => {
    const der = sealEnvelope(Buffer.from('x'), fx.device.certDer, 'aes-128-cbc');
    const printed = fx.openssl(['cms', '-cmsout', '-print', '-inform', 'DER'], der).toString();
    expect(printed).toMatch(/d\.envelopedData: \n\s+version: 0/);
    expect(printed).toMatch(/d\.ktri: \n\s+version: 0\n\s+d\.issuerAndSerialNumber:/);
    expect(printed).toMatch(/keyEncryptionAlgorithm: \n\s+algorithm: rsaEncryption \(1\.2\.840\.113549\.1\.1\.1\)\n\s+parameter: NULL/);
    expect(der[readTlvChildren(der, envelopedDataFields(der)[2])[2].start]).toBe(0x80);
  });

  (HAS_STRONGSWAN_PKI ? test : test.skip).each<ScepCipher>(['des-cbc', 'des-ede3-cbc', 'aes-128-cbc', 'aes-256-cbc'])(
    '%s with strongSwan pki --pkcs7 --decrypt',
    (cipher) => {
      const content = crypto.randomBytes(200);
      const sealed = fx.file('sealed.der', sealEnvelope(content, fx.device.certDer, cipher));
      const out = pki(['--pkcs7', '--decrypt', '--in', sealed, '--key', fx.device.key, '--cert', fx.device.cert]);
      expect(out.stderr).not.toMatch(/padding|unable|invalid/i); // its own checks (every pad octet) would say so
      expect(out.status).toBe(0);
      expect(out.stdout).toEqual(content);
    },
  );

  test('each seal draws a fresh key and IV', () => {
    const a = sealEnvelope(Buffer.from('same'), fx.device.certDer, 'aes-128-cbc');
    const b = sealEnvelope(Buffer.from('same'), fx.device.certDer, 'aes-128-cbc');
    expect(a.equals(b)).toBe(false);
  });
});

describe('refusals', () => {
  async function failure(der: Buffer, recipient = toRa()): Promise<ScepMessageError> {
    const e = await openEnvelope(der, recipient).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ScepMessageError);
    return e as ScepMessageError;
  }

  test('an envelope for someone else: badMessageCheck', async () => {
    const e = await failure(opensslEnvelope(Buffer.from('x'), ['-aes128'], fx.device.cert));
    expect(e.failInfo).toBe('badMessageCheck');
  });

  test('a cipher that is not SCEP’s (Camellia): badAlg', async () => {
    expect((await failure(opensslEnvelope(Buffer.from('x'), ['-camellia128']))).failInfo).toBe('badAlg');
  });

  test('RSA-OAEP key transport: badAlg', async () => {
    const der = fx.openssl(
      ['cms', '-encrypt', '-binary', '-outform', 'DER', '-aes128', '-recip', fx.ra.cert, '-keyopt', 'rsa_padding_mode:oaep'],
      Buffer.from('x'),
    );
    expect(fx.openssl(['cms', '-cmsout', '-print', '-inform', 'DER'], der).toString()).toContain('rsaesOaep');
    expect((await failure(der)).failInfo).toBe('badAlg');
  });

  test('not an EnvelopedData: badMessageCheck', async () => {
    const signed = fx.openssl(
      ['cms', '-sign', '-binary', '-nodetach', '-outform', 'DER', '-signer', fx.ra.cert, '-inkey', fx.ra.key],
      Buffer.from('x'),
    );
    expect((await failure(signed)).failInfo).toBe('badMessageCheck');
  });

  describe('implicit rejection: a bad key block is indistinguishable from a bad content', () => {
    const content = Buffer.alloc(700, 0x42); // 700 = 43 × 16 + 12: the padding is four 0x04 octets

    /** The error of a correctly keyed envelope whose last padding octet is corrupted. */
    async function contentFailure(): Promise<ScepMessageError> {
      const der = Buffer.from(opensslEnvelope(content, ['-aes128']));
      der[der.length - 17] ^= 0x80; // the previous ciphertext block's last octet: the pad octet becomes 0x84
      return failure(der);
    }

    test.each([
      ['an encryptedKey of random octets', (der: Buffer) => crypto.randomFillSync(der, encryptedKeyTlv(der).contentStart, 256)],
      ['an encryptedKey of zeros', (der: Buffer) => der.fill(0, encryptedKeyTlv(der).contentStart, encryptedKeyTlv(der).end)],
      [
        'an encryptedKey with its first octet zeroed',
        (der: Buffer) => {
          der[encryptedKeyTlv(der).contentStart] = 0; // a number below the modulus: raw RSA gives a block, not a refusal
        },
      ],
    ])('%s', async (_what, corrupt) => {
      const der = Buffer.from(opensslEnvelope(content, ['-aes128']));
      corrupt(der);
      const e = await failure(der);
      const reference = await contentFailure();
      expect(e.failInfo).toBe('badMessageCheck');
      expect(e.message).toBe(reference.message);
      expect(e.failInfo).toBe(reference.failInfo);
    });

    test('a key encrypted to another RSA key under the RA’s issuer and serial', async () => {
      // The twin certificate has the RA's issuer and serial number, so the RecipientInfo names the RA.
      const der = opensslEnvelope(content, ['-aes128'], fx.raTwin.cert);
      const e = await failure(der);
      expect({ failInfo: e.failInfo, message: e.message }).toEqual({
        failInfo: 'badMessageCheck',
        message: (await contentFailure()).message,
      });
    });

    test('a key holder that throws', async () => {
      const e = await failure(opensslEnvelope(content, ['-aes128']), {
        certificateDer: fx.ra.certDer,
        decryptRaw: () => Promise.reject(new Error('CKR_ENCRYPTED_DATA_INVALID')),
      });
      expect(e.message).toBe((await contentFailure()).message);
    });

    test('a key holder that answers a block of the wrong length', async () => {
      const e = await failure(opensslEnvelope(content, ['-aes128']), {
        certificateDer: fx.ra.certDer,
        decryptRaw: async () => Buffer.alloc(3, 2),
      });
      expect(e.message).toBe((await contentFailure()).message);
    });
  });
});
