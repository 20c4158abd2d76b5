/** The acmeIdentifier extension of tls-alpn-01 (RFC 8737 §3), with openssl as the oracle. */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import {
  ACME_IDENTIFIER_OID,
  acmeIdentifierExtension,
  decodeAcmeIdentifierValue,
  encodeAcmeIdentifierValue,
} from '../../lib/x509/acme-identifier';
import { parseCertificate } from '../../lib/x509/certificate';
import { X509Error } from '../../lib/x509/errors';
import { challengeCertificate } from '../helpers/challenge-certificate';

const digest = createHash('sha256').update('token.thumbprint').digest();

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e instanceof X509Error ? e.code : 'not an X509Error';
  }
}

describe('encodeAcmeIdentifierValue / decodeAcmeIdentifierValue', () => {
  test('the DER of an OCTET STRING of the 32-byte digest, and back', () => {
    const der = encodeAcmeIdentifierValue(digest);
    expect(der).toEqual(Buffer.concat([Buffer.from([0x04, 0x20]), digest]));
    const asn1 = execFileSync('openssl', ['asn1parse', '-inform', 'DER'], { input: der }).toString();
    expect(asn1).toMatch(/prim: OCTET STRING\s+\[HEX DUMP\]:([0-9A-F]+)/);
    expect(asn1).toContain(digest.toString('hex').toUpperCase());
    expect(decodeAcmeIdentifierValue(der)).toEqual(digest);
  });

  test('anything but one OCTET STRING of 32 bytes is refused', () => {
    expect(codeOf(() => encodeAcmeIdentifierValue(digest.subarray(1)))).toBe('validation');
    expect(codeOf(() => decodeAcmeIdentifierValue(Buffer.concat([Buffer.from([0x04, 0x1f]), digest.subarray(1)])))).toBe('parse');
    expect(codeOf(() => decodeAcmeIdentifierValue(digest))).toBe('parse'); // the bare digest, not its DER
    expect(codeOf(() => decodeAcmeIdentifierValue(Buffer.concat([Buffer.from([0x0c, 0x20]), digest])))).toBe('parse'); // UTF8String
    expect(codeOf(() => decodeAcmeIdentifierValue(Buffer.concat([encodeAcmeIdentifierValue(digest), Buffer.from([0])])))).toBe('parse');
  });
});

describe('acmeIdentifierExtension', () => {
  test('found among a parsed certificate’s extensions, with its critical flag, as openssl sees it', async () => {
    for (const critical of [true, false]) {
      const { cert } = await challengeCertificate({
        keyAuthorization: 'token.thumbprint',
        names: [{ type: 'DNS', value: 'a.test' }],
        critical,
      });
      const parsed = parseCertificate(cert);
      expect(acmeIdentifierExtension(parsed.extensions)).toEqual({ critical, digest });
      const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: cert }).toString();
      const line = text.split('\n').find((l) => l.trim().startsWith(`${ACME_IDENTIFIER_OID}:`));
      expect(line?.trim()).toBe(`${ACME_IDENTIFIER_OID}:${critical ? ' critical' : ''}`);
    }
  });

  test('null without one; a malformed value is a parse error', async () => {
    const { cert } = await challengeCertificate({
      keyAuthorization: 'k',
      names: [{ type: 'DNS', value: 'a.test' }],
      omitAcmeIdentifier: true,
    });
    expect(acmeIdentifierExtension(parseCertificate(cert).extensions)).toBeNull();
    const bad = [{ type: 'unknown' as const, critical: true, value: { oid: ACME_IDENTIFIER_OID, value: digest.toString('base64') } }];
    expect(codeOf(() => acmeIdentifierExtension(bad))).toBe('parse');
  });
});
