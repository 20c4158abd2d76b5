import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import { integerBytes, readTlv, readTlvChildren } from '../../lib/x509/asn1';
import { buildCertificate, buildTbsCertificate, type CertificateTemplate } from '../../lib/x509/builder';
import { parseCertificate } from '../../lib/x509/certificate';
import { X509Error } from '../../lib/x509/errors';
import { subjectKeyIdentifier } from '../../lib/x509/key-identifier';
import { keyObjectSigner } from '../../lib/x509/key-signer';
import { generatePrivateKey } from '../../lib/x509/keys';
import { randomSerial } from '../../lib/x509/serial';
import type { Extension } from '../../lib/x509/types';
import { loadCorpus, loadCorpusEntry, pemToDer } from '../helpers/corpus';

function opensslText(der: Buffer): string {
  return execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-text'], { input: der }).toString();
}

/** Top-level TBSCertificate fields of a certificate DER, as byte slices (independent of the parser). */
function tbsFields(der: Buffer): Buffer[] {
  const cert = readTlv(der, 0, der.length);
  const tbs = readTlvChildren(der, cert)[0];
  return readTlvChildren(der, tbs).map((t) => der.subarray(t.start, t.end));
}

async function expectRejects(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  let error: unknown;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(X509Error);
  expect((error as X509Error).code).toBe(code);
  if (message) expect((error as X509Error).message).toMatch(message);
}

const ed25519 = keyObjectSigner(generatePrivateKey({ keyType: 'Ed25519' }));
const p256 = keyObjectSigner(generatePrivateKey({ keyType: 'EC', curve: 'secp256r1' }));

function template(overrides: Partial<CertificateTemplate> = {}): CertificateTemplate {
  return {
    issuer: [{ oid: '2.5.4.3', value: 'Builder Test CA' }],
    subject: [
      { oid: '2.5.4.6', value: 'AT' },
      { oid: '2.5.4.3', value: 'builder.example.com' },
    ],
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter: new Date('2026-04-11T00:00:00Z'),
    publicKeyDer: p256.publicKeyDer,
    extensions: [],
    signature: { hash: null },
    ...overrides,
  };
}

describe('randomSerial', () => {
  test('positive, below 2^159, fits 20 octets, and random', () => {
    const serials = Array.from({ length: 500 }, () => randomSerial());
    expect(new Set(serials).size).toBe(serials.length);
    for (const s of serials) {
      expect(s > 0n).toBe(true);
      expect(s < 1n << 159n).toBe(true);
      expect(integerBytes(s).length).toBeLessThanOrEqual(20);
    }
    // About half of them use the full 159 bits; none can use 160.
    const full = serials.filter((s) => s >= 1n << 158n).length;
    expect(full).toBeGreaterThan(150);
    expect(full).toBeLessThan(350);
  });
});

describe('subjectKeyIdentifier', () => {
  // Certificates upstream generated (we have their keys) carry a method-1 SKI, when they carry one.
  const withSki = loadCorpus().filter((e) => e.keyDer !== null && e.facts.extensions.some((x) => x.type === 'subject_key_identifier'));

  test('the corpus has such certificates', () => expect(withSki.length).toBeGreaterThan(10));

  test.each(withSki.map((e) => [e.name, e] as const))('%s: matches the SKI upstream wrote', (_name, entry) => {
    const ski = entry.facts.extensions.find((e) => e.type === 'subject_key_identifier');
    const spki = new crypto.X509Certificate(entry.pem).publicKey.export({ type: 'spki', format: 'der' });
    expect(subjectKeyIdentifier(spki).toString('base64')).toBe(ski!.value);
  });

  test('malformed SPKI → parse error', () => {
    expect(() => subjectKeyIdentifier(Buffer.from('300302012a', 'hex'))).toThrow(X509Error);
    expect(() => subjectKeyIdentifier(Buffer.concat([p256.publicKeyDer, Buffer.from([0])]))).toThrow(X509Error);
  });
});

describe('buildCertificate', () => {
  test('fields as given, read back by OpenSSL and by our parser', async () => {
    const serial = 0x8badf00dn << 96n; // high bit of the first octet set → DER needs a leading zero
    const der = await buildCertificate(template({ serialNumber: serial }), ed25519);
    const text = opensslText(der);
    expect(text).toMatch(/Version: 3 \(0x2\)/);
    expect(text).toContain(serial.toString(16).replace(/(..)(?!$)/g, '$1:'));
    expect(tbsFields(der)[1].subarray(0, 4).toString('hex')).toBe('0211008b');
    expect(text).toMatch(/Issuer: CN ?= ?Builder Test CA/);
    expect(text).toMatch(/Subject: C ?= ?AT, CN ?= ?builder\.example\.com/);
    expect(text).toMatch(/Not Before: Jan {2}1 00:00:00 2026 GMT/);
    expect(text).toMatch(/Not After : Apr 11 00:00:00 2026 GMT/);
    expect(text).toMatch(/Signature Algorithm: ED25519/);
    expect(text).toMatch(/id-ecPublicKey/);
    expect(text).not.toMatch(/X509v3 extensions/);

    const parsed = parseCertificate(der);
    expect(parsed.serialNumber).toBe(serial);
    expect(parsed.version).toBe(2);
    expect(parsed.publicKey.der.equals(p256.publicKeyDer)).toBe(true);
    expect(parsed.extensions).toEqual([]);
    // The signature covers exactly the TBSCertificate bytes.
    const ok = crypto.verify(
      null,
      parsed.tbsDer,
      crypto.createPublicKey({ key: ed25519.publicKeyDer, format: 'der', type: 'spki' }),
      parsed.signature,
    );
    expect(ok).toBe(true);
  });

  test('buildTbsCertificate gives the bytes buildCertificate signs', async () => {
    const t = template({ serialNumber: 12345n, signature: { hash: null } });
    const der = await buildCertificate(t, ed25519);
    expect(parseCertificate(der).tbsDer.equals(buildTbsCertificate(t, 'Ed25519'))).toBe(true);
  });

  test('a random serial by default', async () => {
    const a = parseCertificate(await buildCertificate(template(), ed25519)).serialNumber;
    const b = parseCertificate(await buildCertificate(template(), ed25519)).serialNumber;
    expect(a).not.toBe(b);
    expect(a > 0n && a < 1n << 159n).toBe(true);
  });

  test('dates from 2050 on are GeneralizedTime, before that UTCTime', async () => {
    const der = await buildCertificate(
      template({ notBefore: new Date('2049-12-31T23:59:59Z'), notAfter: new Date('2050-01-01T00:00:00Z') }),
      ed25519,
    );
    const validity = tbsFields(der)[4];
    expect(validity[2]).toBe(0x17); // UTCTime
    expect(validity[2 + 2 + 13]).toBe(0x18); // GeneralizedTime
    expect(opensslText(der)).toMatch(/Not After : Jan {2}1 00:00:00 2050 GMT/);
  });

  test('an issuer given as DER is copied byte for byte', async () => {
    // A third-party root whose subject uses PrintableString: re-encoding as UTF8String would differ.
    const root = pemToDer(loadCorpusEntry('digicert_global_root').pem);
    const rootSubject = tbsFields(root)[5];
    const der = await buildCertificate(template({ issuer: rootSubject }), ed25519);
    expect(tbsFields(der)[3].equals(rootSubject)).toBe(true);
    const subjectOf = (input: Buffer) =>
      execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-subject', '-nameopt', 'RFC2253'], { input })
        .toString()
        .replace(/^subject=/, '');
    const issuerOf = execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-issuer', '-nameopt', 'RFC2253'], {
      input: der,
    })
      .toString()
      .replace(/^issuer=/, '');
    expect(issuerOf).toBe(subjectOf(root));
  });

  test('extensions are written in the given order with their critical flags', async () => {
    const extensions: Extension[] = [
      { type: 'subject_alternative_name', critical: true, value: [{ type: 'DNS', value: 'a.example.com' }] },
      { type: 'basic_constraints', critical: true, value: { ca: false, path_length: null } },
      { type: 'key_usage', critical: false, value: ['digital_signature'] },
    ];
    const der = await buildCertificate(template({ extensions }), ed25519);
    const text = opensslText(der);
    const san = text.indexOf('X509v3 Subject Alternative Name: critical');
    const bc = text.indexOf('X509v3 Basic Constraints: critical');
    const ku = text.indexOf('X509v3 Key Usage: \n');
    expect(san).toBeGreaterThan(0);
    expect(bc).toBeGreaterThan(san);
    expect(ku).toBeGreaterThan(bc);
    expect(parseCertificate(der).extensions).toEqual(extensions);
  });

  test('recurring extension values are remembered by content, never by object', async () => {
    const ku: Extension = { type: 'key_usage', critical: true, value: ['digital_signature'] };
    const first = parseCertificate(await buildCertificate(template({ extensions: [ku] }), ed25519)).extensions;
    (ku.value as string[]).push('key_encipherment'); // the same object, changed in place
    const second = parseCertificate(await buildCertificate(template({ extensions: [ku] }), ed25519)).extensions;
    const third = parseCertificate(await buildCertificate(template({ extensions: [{ ...ku, critical: false }] }), ed25519)).extensions;
    expect(first).toEqual([{ type: 'key_usage', critical: true, value: ['digital_signature'] }]);
    expect(second).toEqual([{ type: 'key_usage', critical: true, value: ['digital_signature', 'key_encipherment'] }]);
    expect(third).toEqual([{ type: 'key_usage', critical: false, value: ['digital_signature', 'key_encipherment'] }]);
  });

  test('an authority key identifier with issuer and a big serial', async () => {
    const aki: Extension = {
      type: 'authority_key_identifier',
      critical: false,
      value: {
        key_identifier: subjectKeyIdentifier(ed25519.publicKeyDer).toString('base64'),
        authority_cert_issuer: [{ type: 'DNS', value: 'issuer.example.com' }],
        authority_cert_serial_number: (1n << 150n) + 12345n,
      },
    };
    const der = await buildCertificate(template({ extensions: [aki] }), ed25519);
    expect(parseCertificate(der).extensions).toEqual([aki]);
    expect(opensslText(der)).toMatch(/DNS:issuer\.example\.com/);
  });

  test('long lengths: a certificate larger than 64 KiB', async () => {
    const names = Array.from({ length: 4000 }, (_, i) => ({ type: 'DNS' as const, value: `host-${i}.example.com` }));
    const big = await buildCertificate(
      template({
        extensions: [{ type: 'subject_alternative_name', critical: false, value: names }],
        signature: { hash: 'SHA-256' },
      }),
      p256,
    );
    expect(big.length).toBeGreaterThan(65536);
    expect(opensslText(big)).toContain('DNS:host-3999.example.com');
    expect(parseCertificate(big).extensions[0].value).toEqual(names);
  });
});

describe('errors', () => {
  test('a hash for an EdDSA key, no hash for ECDSA → unsupported', async () => {
    await expectRejects(
      buildCertificate(template({ signature: { hash: 'SHA-256' } }), ed25519),
      'unsupported',
      /do not allow an algorithm/,
    );
    await expectRejects(buildCertificate(template({ signature: { hash: null } }), p256), 'unsupported');
    await expectRejects(buildCertificate(template({ signature: { hash: 'SHA-256', padding: 'pss' } }), p256), 'unsupported');
    expect(() => buildTbsCertificate(template({ signature: { hash: 'SHA-256' } }), 'Ed448')).toThrow(X509Error);
  });

  test('the signer itself refuses impossible options', async () => {
    const data = Buffer.from('data');
    await expectRejects(ed25519.sign(data, { hash: 'SHA-512' }), 'unsupported');
    await expectRejects(p256.sign(data, { hash: null }), 'unsupported');
  });

  test('the same extension twice → validation error', async () => {
    const ku: Extension = { type: 'key_usage', critical: true, value: ['digital_signature'] };
    await expectRejects(
      buildCertificate(template({ extensions: [ku, { ...ku, critical: false }] }), ed25519),
      'validation',
      /already been set/,
    );
  });

  test('notAfter before notBefore → validation error', async () => {
    const t = template({ notBefore: new Date('2026-02-01T00:00:00Z'), notAfter: new Date('2026-01-01T00:00:00Z') });
    await expectRejects(buildCertificate(t, ed25519), 'validation');
  });
});
