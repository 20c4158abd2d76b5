/**
 * buildCertRep (RFC 8894 §3.3.2) read by the clients' own libraries: `openssl cms` verifies it (with
 * the RA's CA as trust anchor and OpenSSL's default S/MIME signing purpose, as a strict client does),
 * prints its signed attributes and opens its envelope; strongSwan's `pki --pkcs7 --verify` (whose
 * 5.9 code accepts only rsaEncryption as SignerInfo signatureAlgorithm) accepts it. Also the
 * certs-only bag with CRLs against `openssl crl2pkcs7`, byte for byte.
 */
import * as crypto from 'crypto';
import { keyObjectSigner } from '../../../lib/x509/key-signer';
import { certsOnlyPkcs7 } from '../../../lib/x509/pkcs7';
import { type Tlv, readTlv, readTlvChildren } from '../../../lib/x509/tlv';
import { contentToOid } from '../../../lib/x509/oid-der';
import { X509Error } from '../../../lib/x509/errors';
import { buildCertRep, readPkiMessage, type CertRepInput, type ScepCipher } from '../../../lib/x509/scep';
import { type Fixtures, HAS_LEGACY_PROVIDER, HAS_STRONGSWAN_PKI, LEGACY, makeFixtures, pki } from './fixtures';
import { OID } from '../../helpers/scep-request';

let fx: Fixtures;
beforeAll(() => {
  fx = makeFixtures();
});
afterAll(() => fx.cleanup());

const TX = '7kP4TH5CRUtEq6ISbVZSGjwy4jE=';
const REQUEST_NONCE = Buffer.from('a1a2a3a4a5a6a7a8a9aaabacadaeafb0', 'hex');
const SCEP = {
  messageType: '2.16.840.1.113733.1.9.2',
  pkiStatus: '2.16.840.1.113733.1.9.3',
  failInfo: '2.16.840.1.113733.1.9.4',
  senderNonce: '2.16.840.1.113733.1.9.5',
  recipientNonce: '2.16.840.1.113733.1.9.6',
  transactionId: '2.16.840.1.113733.1.9.7',
  failInfoText: '2.16.840.1.113733.1.9.24',
};

function certRep(reply: CertRepInput['reply'], overrides: Partial<CertRepInput> = {}): Promise<Buffer> {
  return buildCertRep({
    signer: { certificateDer: fx.ra.certDer, chainDer: [fx.ca.certDer], signer: keyObjectSigner(crypto.createPrivateKey(fx.ra.keyPem)) },
    transactionId: TX,
    recipientNonce: REQUEST_NONCE,
    reply,
    ...overrides,
  });
}

const success = (cipher: ScepCipher = 'aes-128-cbc', extra: { crls?: Buffer[] } = {}): CertRepInput['reply'] => ({
  status: 'SUCCESS',
  certificates: [fx.device.certDer, fx.ca.certDer],
  recipientCertificateDer: fx.device.certDer,
  cipher,
  ...extra,
});

/** `openssl cms -verify` with the CA as the only trust anchor and the default purpose; the content. */
const verifyWithCa = (der: Buffer): Buffer => fx.openssl(['cms', '-verify', '-inform', 'DER', '-binary', '-CAfile', fx.ca.cert], der);

/** The signed attributes as the DER in the message: [type OID, value TLV bytes] in the order sent. */
function signedAttributes(der: Buffer): { order: Buffer[]; values: Map<string, Buffer> } {
  const children = (t: Tlv) => readTlvChildren(der, t);
  const signedData = children(children(readTlv(der, 0, der.length))[1])[0];
  const signerInfos = children(signedData).at(-1)!;
  const signerInfo = children(children(signerInfos)[0]);
  const attrs = signerInfo[3];
  expect(attrs.tag).toBe(0xa0);
  const order: Buffer[] = [];
  const values = new Map<string, Buffer>();
  for (const a of children(attrs)) {
    order.push(der.subarray(a.start, a.end));
    const [type, set] = children(a);
    const [value] = children(set);
    values.set(contentToOid(der.subarray(type.contentStart, type.end)), der.subarray(value.start, value.end));
  }
  return { order, values };
}

const printableTlv = (text: string) => Buffer.concat([Buffer.from([0x13, text.length]), Buffer.from(text, 'latin1')]);

describe('what openssl reads', () => {
  test.each(['SUCCESS', 'PENDING', 'FAILURE'] as const)('a %s CertRep verifies against the CA with the default purpose', async (status) => {
    const reply: CertRepInput['reply'] =
      status === 'SUCCESS'
        ? success()
        : status === 'PENDING'
          ? { status }
          : { status, failInfo: 'badRequest', failInfoText: 'Nein, danke: ö' };
    const der = await certRep(reply);
    const content = verifyWithCa(der);
    expect(content.length > 0).toBe(status === 'SUCCESS');

    const { values } = signedAttributes(der);
    expect(values.get(OID.contentType)).toEqual(Buffer.from('06092a864886f70d010701', 'hex'));
    expect(values.get(SCEP.messageType)).toEqual(printableTlv('3'));
    expect(values.get(SCEP.pkiStatus)).toEqual(printableTlv({ SUCCESS: '0', FAILURE: '2', PENDING: '3' }[status]));
    expect(values.get(SCEP.transactionId)).toEqual(printableTlv(TX));
    expect(values.get(SCEP.recipientNonce)).toEqual(Buffer.concat([Buffer.from([0x04, 16]), REQUEST_NONCE]));
    expect(values.get(SCEP.senderNonce)?.subarray(0, 2)).toEqual(Buffer.from([0x04, 16]));
    // openssl has checked messageDigest against the content it returned: for PENDING and FAILURE, the empty string.
    expect(values.get(OID.messageDigest)?.subarray(2)).toEqual(crypto.createHash('sha256').update(content).digest());
    if (status === 'FAILURE') {
      expect(values.get(SCEP.failInfo)).toEqual(printableTlv('2'));
      expect(values.get(SCEP.failInfoText)).toEqual(Buffer.concat([Buffer.from([0x0c, 15]), Buffer.from('Nein, danke: ö')]));
    } else {
      expect(values.has(SCEP.failInfo)).toBe(false);
    }

    // What openssl prints of the SignerInfo: v1 by issuer and serial, SHA-256, rsaEncryption with NULL.
    const printed = fx.openssl(['cms', '-cmsout', '-print', '-inform', 'DER'], der).toString();
    expect(printed).toMatch(
      /signerInfos:\n\s+version: 1\n\s+d\.issuerAndSerialNumber: \n\s+issuer: O=SCEP Test, CN=SCEP Test CA\n\s+serialNumber: 23785/,
    );
    expect(printed).toMatch(/digestAlgorithm: \n\s+algorithm: sha256 \(2\.16\.840\.1\.101\.3\.4\.2\.1\)\n\s+parameter: NULL/);
    expect(printed).toMatch(/signatureAlgorithm: \n\s+algorithm: rsaEncryption \(1\.2\.840\.113549\.1\.1\.1\)\n\s+parameter: NULL/);
    expect(printed).toMatch(/digestAlgorithms:\n\s+algorithm: sha256 \(2\.16\.840\.1\.101\.3\.4\.2\.1\)\n\s+parameter: NULL/);
  });

  test('PENDING and FAILURE carry an empty eContent, not an absent one', async () => {
    for (const reply of [{ status: 'PENDING' }, { status: 'FAILURE', failInfo: 'badAlg' }] as const) {
      const der = await certRep(reply);
      const printed = fx.openssl(['cms', '-cmsout', '-print', '-inform', 'DER'], der).toString();
      // openssl prints an empty OCTET STRING as nothing, and an absent eContent as <ABSENT>.
      expect(printed).toMatch(/eContentType: pkcs7-data \(1\.2\.840\.113549\.1\.7\.1\)\n\s+eContent: \n\s+certificates:/);
      const bag = fx.openssl(['cms', '-cmsout', '-print', '-inform', 'DER'], certsOnlyPkcs7([fx.ca.certDer])).toString();
      expect(bag).toMatch(/eContent: <ABSENT>/);
      expect(der.includes(Buffer.from('a0020400', 'hex'))).toBe(true);
    }
  });

  test('every failInfo value, with failInfoText only when given', async () => {
    const codes = { badAlg: '0', badMessageCheck: '1', badRequest: '2', badTime: '3', badCertId: '4' } as const;
    for (const [failInfo, code] of Object.entries(codes)) {
      const { values } = signedAttributes(await certRep({ status: 'FAILURE', failInfo: failInfo as keyof typeof codes }));
      expect(values.get(SCEP.failInfo)).toEqual(printableTlv(code));
      expect(values.has(SCEP.failInfoText)).toBe(false);
    }
  });

  test('certificates: the signer first, then the chain; the signed attributes in DER order', async () => {
    const der = await certRep({ status: 'PENDING' });
    const pem = fx.openssl(['pkcs7', '-inform', 'DER', '-print_certs'], der).toString();
    expect([...pem.matchAll(/subject=(.*)/g)].map((m) => m[1])).toEqual([
      'O = SCEP Test, CN = SCEP Test RA',
      'O = SCEP Test, CN = SCEP Test CA',
    ]);
    const { order } = signedAttributes(der);
    expect(order).toEqual([...order].sort(Buffer.compare));
  });

  test('a fresh senderNonce each time', async () => {
    const a = signedAttributes(await certRep({ status: 'PENDING' })).values.get(SCEP.senderNonce);
    const b = signedAttributes(await certRep({ status: 'PENDING' })).values.get(SCEP.senderNonce);
    expect(a?.equals(b!)).toBe(false);
  });
});

describe('the SUCCESS envelope', () => {
  const ciphers: [ScepCipher, string[]][] = [
    ['des-ede3-cbc', []],
    ['aes-128-cbc', []],
    ['aes-256-cbc', []],
  ];
  test.each(ciphers)('%s: openssl decrypts a certs-only bag, the issued certificate first', async (cipher, flags) => {
    const der = await certRep(success(cipher));
    const envelope = verifyWithCa(der);
    const bag = fx.openssl(
      ['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', fx.device.cert, '-inkey', fx.device.key, ...flags],
      envelope,
    );
    expect(bag).toEqual(certsOnlyPkcs7([fx.device.certDer, fx.ca.certDer]));
    const pem = fx.openssl(['pkcs7', '-inform', 'DER', '-print_certs'], bag).toString();
    expect(pem.indexOf('CN = SCEP SIGNER')).toBeLessThan(pem.indexOf('CN = SCEP Test CA'));
  });

  (HAS_LEGACY_PROVIDER ? test : test.skip)('des-cbc (micromdm): openssl decrypts it with the legacy provider', async () => {
    const envelope = verifyWithCa(await certRep(success('des-cbc')));
    expect(fx.openssl(['cms', '-cmsout', '-print', '-inform', 'DER'], envelope).toString()).toMatch(/algorithm: des-cbc/);
    const bag = fx.openssl(
      ['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', fx.device.cert, '-inkey', fx.device.key, ...LEGACY],
      envelope,
    );
    expect(bag).toEqual(certsOnlyPkcs7([fx.device.certDer, fx.ca.certDer]));
  });

  test('a GetCRL reply: the CRL in the bag’s crls [1]', async () => {
    const der = await certRep({
      status: 'SUCCESS',
      certificates: [],
      crls: [fx.crlDer],
      recipientCertificateDer: fx.device.certDer,
      cipher: 'aes-128-cbc',
    });
    const bag = fx.openssl(
      ['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', fx.device.cert, '-inkey', fx.device.key],
      verifyWithCa(der),
    );
    const crls = fx.openssl(['pkcs7', '-inform', 'DER', '-print_certs'], bag).toString();
    expect(crls).toContain('Certificate Revocation List');
    expect(crls).toContain('Issuer: O = SCEP Test, CN = SCEP Test CA');
  });

  test('our reader reads it as the pkiMessage it is', async () => {
    const der = await certRep(success());
    const read = readPkiMessage(der);
    expect(read).toMatchObject({ messageType: 3, transactionId: TX, digest: 'sha256', signerCertificate: fx.ra.certDer });
    expect(read.envelope).toEqual(verifyWithCa(der));
    expect(readPkiMessage(await certRep({ status: 'PENDING' })).envelope).toEqual(Buffer.alloc(0));
  });
});

(HAS_STRONGSWAN_PKI ? describe : describe.skip)('strongSwan pki --pkcs7 --verify', () => {
  test.each(['SUCCESS', 'PENDING', 'FAILURE'] as const)('accepts a %s CertRep signed by the RA', async (status) => {
    const reply: CertRepInput['reply'] =
      status === 'SUCCESS' ? success() : status === 'PENDING' ? { status } : { status, failInfo: 'badCertId' };
    const out = pki(['--pkcs7', '--verify', '--in', fx.file('certrep.der', await certRep(reply)), '--cert', fx.ra.cert]);
    expect(out.stderr).toContain('signed by');
    expect(out.status).toBe(0);
  });

  test('… and refuses the same with sha256WithRSAEncryption as signatureAlgorithm: why it must be rsaEncryption', async () => {
    const der = Buffer.from(await certRep({ status: 'PENDING' }));
    const rsaEncryption = Buffer.from('06092a864886f70d010101', 'hex');
    der[der.lastIndexOf(rsaEncryption) + rsaEncryption.length - 1] = 0x0b; // the SignerInfo's, the last one
    expect(fx.openssl(['cms', '-verify', '-inform', 'DER', '-binary', '-CAfile', fx.ca.cert], der)).toEqual(Buffer.alloc(0)); // still valid CMS
    const out = pki(['--pkcs7', '--verify', '--in', fx.file('certrep.der', der), '--cert', fx.ra.cert]);
    expect(out.stderr).toContain('only RSA digest encryption supported');
    expect(out.stderr).not.toContain('signed by');
  });

  test('opens the SUCCESS envelope with the device key', async () => {
    const envelope = verifyWithCa(await certRep(success('aes-128-cbc')));
    const out = pki(['--pkcs7', '--decrypt', '--in', fx.file('envelope.der', envelope), '--key', fx.device.key, '--cert', fx.device.cert]);
    expect(out.stdout).toEqual(certsOnlyPkcs7([fx.device.certDer, fx.ca.certDer]));
  });
});

describe('inputs buildCertRep refuses', () => {
  test('a signer key that is not RSA', async () => {
    const ec = keyObjectSigner(crypto.createPrivateKey(fx.ecDevice.keyPem));
    const input = { signer: { certificateDer: fx.ecDevice.certDer, chainDer: [], signer: ec } };
    await expect(certRep({ status: 'PENDING' }, input)).rejects.toBeInstanceOf(X509Error);
  });

  test('a transactionID that could not go back as the same PrintableString', async () => {
    await expect(certRep({ status: 'PENDING' }, { transactionId: 'tx-€' })).rejects.toBeInstanceOf(X509Error);
    await expect(certRep({ status: 'PENDING' }, { transactionId: '' })).rejects.toBeInstanceOf(X509Error);
  });
});

describe('certsOnlyPkcs7', () => {
  test('without CRLs: the bytes of openssl crl2pkcs7 -nocrl', () => {
    const file = fx.file('certs.pem', fx.openssl(['x509', '-inform', 'DER'], fx.device.certDer));
    expect(certsOnlyPkcs7([fx.device.certDer])).toEqual(fx.openssl(['crl2pkcs7', '-nocrl', '-certfile', file, '-outform', 'DER']));
  });

  test('with a CRL: the bytes of openssl crl2pkcs7 with the CRL', () => {
    const certs = fx.file('certs.pem', fx.openssl(['x509', '-inform', 'DER'], fx.ca.certDer));
    const crl = fx.file('crl.der', fx.crlDer);
    const expected = fx.openssl(['crl2pkcs7', '-inform', 'DER', '-in', crl, '-certfile', certs, '-outform', 'DER']);
    expect(certsOnlyPkcs7([fx.ca.certDer], [fx.crlDer])).toEqual(expected);
  });

  test('an empty CRL list changes nothing', () => {
    expect(certsOnlyPkcs7([fx.ca.certDer], [])).toEqual(certsOnlyPkcs7([fx.ca.certDer]));
  });
});
