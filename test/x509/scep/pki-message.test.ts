/**
 * readPkiMessage (RFC 8894 §3.2) on requests written as clients write them (test/helpers/scep-request.ts,
 * checked by `openssl cms -verify`): the fields it returns, and for each defect the failInfo a CertRep
 * FAILURE would carry — with the transactionID, senderNonce and signer certificate whenever they
 * could be read first, so that the server can still answer.
 */
import * as crypto from 'crypto';
import { derOid, tlv } from '../../../lib/x509/der-writer';
import { X509Error } from '../../../lib/x509/errors';
import { readPkiMessage, ScepMessageError } from '../../../lib/x509/scep';
import { type Fixtures, makeFixtures } from './fixtures';
import { OID, attribute, buildRequest, printable, type Digest, type RequestSpec } from '../../helpers/scep-request';

let fx: Fixtures;
let envelope: Buffer;
beforeAll(() => {
  fx = makeFixtures();
  // A real pkcsPKIEnvelope: a CSR encrypted to the RA by openssl.
  const csr = fx.openssl(['req', '-new', '-key', fx.device.key, '-subj', '/CN=device.example.org', '-outform', 'DER']);
  envelope = fx.openssl(['cms', '-encrypt', '-binary', '-outform', 'DER', '-aes128', fx.ra.cert], csr);
});
afterAll(() => fx.cleanup());

const TX = 'F3C2B1A09E8D7C6B5A4938271605F4E3D2C1B0A9';
const NONCE = Buffer.from('00112233445566778899aabbccddeeff', 'hex');

function request(overrides: Partial<RequestSpec> = {}): Buffer {
  return buildRequest({
    content: envelope,
    signer: fx.device,
    transactionId: TX,
    senderNonce: NONCE,
    ...overrides,
  });
}

/** The ScepMessageError that reading `der` throws. */
function failure(der: Buffer): ScepMessageError {
  try {
    readPkiMessage(der);
  } catch (e) {
    expect(e).toBeInstanceOf(ScepMessageError);
    expect(e).toBeInstanceOf(X509Error);
    return e as ScepMessageError;
  }
  throw new Error('the message was accepted');
}

/** What the caller needs to answer with a FAILURE, all present. */
function expectAnswerable(e: ScepMessageError, failInfo: string): void {
  expect(e.failInfo).toBe(failInfo);
  expect(e.transactionId).toBe(TX);
  expect(e.senderNonce).toEqual(NONCE);
  expect(e.signerCertificate).toEqual(fx.device.certDer);
}

describe('valid requests', () => {
  test.each<Digest>(['sha1', 'sha256', 'sha384', 'sha512'])('signed with %s: openssl verifies it, and it reads as sent', (digest) => {
    const der = request({ digest });
    // The oracle: openssl checks the messageDigest attribute and the signature over the attributes.
    const content = fx.openssl(['cms', '-verify', '-inform', 'DER', '-noverify', '-binary'], der);
    expect(content).toEqual(envelope);
    expect(readPkiMessage(der)).toEqual({
      messageType: 19,
      transactionId: TX,
      senderNonce: NONCE,
      digest,
      signerCertificate: fx.device.certDer,
      envelope,
    });
  });

  test.each([
    ['sha1WithRSAEncryption (micromdm)', OID.sha1WithRSA, 'sha1'],
    ['sha256WithRSAEncryption (strongSwan)', OID.sha256WithRSA, 'sha256'],
  ] as const)('signatureAlgorithm %s is read as PKCS#1 v1.5 with the digestAlgorithm', (_what, signatureOid, digest) => {
    expect(readPkiMessage(request({ signatureOid, digest })).digest).toBe(digest);
  });

  test('every message type is reported as sent, the caller decides', () => {
    for (const type of ['17', '19', '20', '21', '22', '3', '99'])
      expect(readPkiMessage(request({ messageType: type })).messageType).toBe(Number(type));
  });

  test('a micromdm-style transactionID (base64 with + / =) comes back unchanged', () => {
    expect(readPkiMessage(request({ transactionId: '7kP4TH5CRUtEq6ISbVZSGjwy4jE=' })).transactionId).toBe('7kP4TH5CRUtEq6ISbVZSGjwy4jE=');
  });

  test('attributes are found by type: unknown ones and signingTime ignored, any order', () => {
    const extra = [
      attribute(OID.signingTime, tlv(0x17, Buffer.from('260101000000Z'))),
      attribute('1.3.6.1.4.1.99999.1', tlv(0x0c, Buffer.from('whatever'))),
    ];
    const der = request({ extraAttributes: extra, unsorted: true });
    expect(fx.openssl(['cms', '-verify', '-inform', 'DER', '-noverify', '-binary'], der)).toEqual(envelope);
    expect(readPkiMessage(der)).toMatchObject({ transactionId: TX, messageType: 19 });
  });

  test('an eContent split into OCTET STRING chunks reads, its digest over the joined octets', () => {
    const der = request({ contentChunk: 100 });
    expect(fx.openssl(['cms', '-verify', '-inform', 'DER', '-noverify', '-binary'], der)).toEqual(envelope);
    expect(readPkiMessage(der).envelope).toEqual(envelope);
  });

  test('the signer certificate is found by issuer and serial among others', () => {
    const der = request({ certificates: [fx.ca.certDer, fx.ra.certDer, fx.device.certDer] });
    expect(readPkiMessage(der).signerCertificate).toEqual(fx.device.certDer);
  });
});

describe('integrity failures: badMessageCheck, still answerable', () => {
  test('a signature by another key', () => {
    expectAnswerable(failure(request({ signWith: fx.ra.keyPem })), 'badMessageCheck');
  });

  test('a signature with one bit flipped', () => {
    const tampered = request({ tamperSignature: (s) => Buffer.concat([s.subarray(0, 10), Buffer.from([s[10] ^ 1]), s.subarray(11)]) });
    expect(() => fx.openssl(['cms', '-verify', '-inform', 'DER', '-noverify', '-binary'], tampered)).toThrow();
    expectAnswerable(failure(tampered), 'badMessageCheck');
  });

  test('a messageDigest that is not the content’s', () => {
    const e = failure(request({ messageDigest: crypto.createHash('sha256').update('something else').digest() }));
    expectAnswerable(e, 'badMessageCheck');
    expect(e.message).toMatch(/messageDigest/);
  });

  test('content changed after signing', () => {
    const der = request();
    const at = der.indexOf(envelope) + envelope.length - 1;
    der[at] ^= 0xff;
    expectAnswerable(failure(der), 'badMessageCheck');
  });

  test('a contentType attribute that is not id-data', () => {
    expectAnswerable(failure(request({ contentTypeAttribute: OID.envelopedData })), 'badMessageCheck');
  });

  test('a signer whose certificate is not in the message', () => {
    const e = failure(request({ certificates: [fx.ra.certDer] }));
    expect(e.failInfo).toBe('badMessageCheck');
    expect(e.transactionId).toBe(TX);
    expect(e.senderNonce).toEqual(NONCE);
    expect(e.signerCertificate).toBeUndefined();
  });
});

describe('algorithms: badAlg, still answerable', () => {
  test.each([
    ['MD5', OID.md5],
    ['SHA-224', OID.sha224],
  ])('digestAlgorithm %s', (_what, digestOid) => {
    expectAnswerable(failure(request({ digestOid })), 'badAlg');
  });

  test.each([
    ['RSASSA-PSS', OID.rsassaPss],
    ['ecdsa-with-SHA256', OID.ecdsaWithSha256],
  ])('signatureAlgorithm %s', (_what, signatureOid) => {
    expectAnswerable(failure(request({ signatureOid })), 'badAlg');
  });

  test('an EC signer certificate', () => {
    const der = buildRequest({
      content: envelope,
      signer: fx.ecDevice,
      transactionId: TX,
      senderNonce: NONCE,
      signatureOid: OID.ecdsaWithSha256,
    });
    const e = failure(der);
    expect(e.failInfo).toBe('badAlg');
    expect(e.signerCertificate).toEqual(fx.ecDevice.certDer);
  });
});

describe('malformed requests: badRequest', () => {
  test('two SignerInfos', () => {
    const e = failure(request({ signerInfoCount: 2 }));
    expect(e.failInfo).toBe('badRequest');
    expect(e.message).toMatch(/exactly one/);
  });

  test('no SignerInfo', () => {
    expect(failure(request({ signerInfoCount: 0 })).failInfo).toBe('badRequest');
  });

  test('no transactionID: nothing to answer to', () => {
    const e = failure(request({ omit: [OID.transactionId] }));
    expect(e.failInfo).toBe('badRequest');
    expect(e.transactionId).toBeUndefined();
  });

  test('no senderNonce: the transactionID is still reported', () => {
    const e = failure(request({ omit: [OID.senderNonce] }));
    expect(e).toMatchObject({ failInfo: 'badRequest', transactionId: TX });
    expect(e.senderNonce).toBeUndefined();
  });

  test.each([
    ['messageType', OID.messageType],
    ['messageDigest', OID.messageDigest],
    ['contentType', OID.contentType],
  ])('no %s: transactionID and senderNonce still reported', (_what, oid) => {
    const e = failure(request({ omit: [oid] }));
    expect(e).toMatchObject({ failInfo: 'badRequest', transactionId: TX, senderNonce: NONCE });
  });

  test('a messageType that is not a number', () => {
    expect(failure(request({ messageType: 'PKCSReq' })).failInfo).toBe('badRequest');
  });

  test('a transactionID with a control character', () => {
    expect(failure(request({ transactionId: 'a\nb' })).failInfo).toBe('badRequest');
  });

  test('a transactionID twice', () => {
    const e = failure(request({ extraAttributes: [attribute(OID.transactionId, printable('other'))] }));
    expect(e.failInfo).toBe('badRequest');
  });

  test('a ContentInfo that is not SignedData, trailing bytes, no content', () => {
    expect(failure(tlv(0x30, derOid(OID.data), tlv(0xa0, tlv(0x04, Buffer.from('x'))))).failInfo).toBe('badRequest');
    expect(failure(Buffer.concat([request(), Buffer.from([0])])).failInfo).toBe('badRequest');
    expect(failure(Buffer.alloc(0)).failInfo).toBe('badRequest');
  });
});
