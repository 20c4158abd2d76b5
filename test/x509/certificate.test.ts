/**
 * The certificate record (models.md §7) of every corpus certificate against OpenSSL's reading of it,
 * signature verification along the corpus chains, v1 and RSA-PSS certificates made by OpenSSL, and the
 * serial/fingerprint text forms.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ParsedCertificate, parseCertificate, verifyCertificateSignature } from '../../lib/x509/certificate';
import { fingerprint, fingerprints } from '../../lib/x509/fingerprints';
import { normaliseSerial, serialToColons, serialToHex } from '../../lib/x509/serial-format';
import { CORPUS_DIR, corpusNames, loadCorpusEntry, pemToDer } from '../helpers/corpus';
import { expectX509Error } from '../helpers/x509-error';

function openssl(args: string[], input?: Buffer | string): string {
  return execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();
}

const names = corpusNames();
const parsed = new Map<string, ParsedCertificate>(names.map((n) => [n, parseCertificate(loadCorpusEntry(n).pem)]));

/** The hash OpenSSL names in "Signature Algorithm: ..." in the API's spelling. */
function apiHashFromOpensslName(name: string): string | null {
  const m = /(sha3-\d+|sha\d+|md5)/i.exec(name.replace(/SHA3_/i, 'sha3-'));
  if (!m) return null;
  const h = m[1].toLowerCase();
  if (h === 'md5') return 'MD5';
  if (h === 'sha1') return 'SHA1';
  if (h.startsWith('sha3-')) return `SHA3/${h.slice(5)}`;
  return `SHA-${h.slice(3)}`;
}

describe.each(names)('%s against openssl', (name) => {
  let text: string;
  let cert: ParsedCertificate;
  beforeAll(() => {
    cert = parsed.get(name)!;
    text = openssl(['x509', '-inform', 'DER', '-noout', '-serial', '-startdate', '-enddate', '-text', '-pubkey'], cert.der);
  });

  test('serial, version, validity', () => {
    const serial = /serial=([0-9A-F]+)/.exec(text)![1].replace(/^0+(?=.)/, '');
    expect(cert.json.serial).toBe(serial);
    expect(cert.serial).toBe(serial);
    expect(cert.serialNumber).toBe(BigInt('0x' + serial));
    const version = Number(/Version: (\d+)/.exec(text)![1]);
    expect(cert.json.version).toBe(version - 1);
    const notBefore = new Date(/notBefore=(.*)/.exec(text)![1]);
    const notAfter = new Date(/notAfter=(.*)/.exec(text)![1]);
    expect(cert.notBefore.getTime()).toBe(notBefore.getTime());
    expect(cert.notAfter.getTime()).toBe(notAfter.getTime());
    expect(cert.json.not_valid_before).toBe(notBefore.toISOString().replace('.000Z', 'Z'));
    expect(cert.json.not_valid_after).toBe(notAfter.toISOString().replace('.000Z', 'Z'));
  });

  test('signature and key algorithms', () => {
    const sigName = /Signature Algorithm: (\S+)/.exec(text)![1];
    expect(cert.json.signature_hash_algorithm).toBe(apiHashFromOpensslName(sigName));
    const bits = /Public-Key: \((\d+) bit\)/.exec(text);
    if (bits) expect(cert.publicKey.keySize).toBe(Number(bits[1]));
    const spki = pemToDer(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/.exec(text)![0]);
    expect(cert.publicKey.der.equals(spki)).toBe(true);
  });

  test('record shape: key order of models.md §7, pem as openssl writes it', () => {
    expect(Object.keys(cert.json)).toEqual([
      'serial',
      'version',
      'not_valid_before',
      'not_valid_after',
      'issuer',
      'subject',
      'signature_hash_algorithm',
      'signature_algorithm_oid',
      'public_key_algorithm_oid',
      'signature_algorithm_parameters',
      'extensions',
      'pem',
    ]);
    expect(pemToDer(cert.json.pem).equals(cert.der)).toBe(true);
    expect(cert.json.pem).toMatch(
      /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n$/,
    );
    expect(cert.json.subject).toBe(cert.subject);
    expect(cert.json.extensions).toBe(cert.extensions);
  });
});

describe.each(['root', 'all-extensions', 'ed448-cert', 'letsencrypt_x3-cert'])('%s: slices', (name) => {
  test('the TBSCertificate slice is what openssl says is signed', () => {
    const cert = parsed.get(name)!;
    // asn1parse -strparse 4 re-reads the first element of the certificate: the TBSCertificate.
    const out = path.join(os.tmpdir(), `x509-tbs-${process.pid}-${name}.der`);
    execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-strparse', '4', '-noout', '-out', out], { input: cert.der });
    const tbs = fs.readFileSync(out);
    fs.unlinkSync(out);
    expect(cert.tbsDer.equals(tbs)).toBe(true);
  });
});

describe('signatures along the corpus chains', () => {
  // Certificates name their CA in the facts; CAs without a parent are roots when self-issued.
  // (empty-subject has an empty issuer name, so it is left out: nothing ties it to a key by name.)
  const withIssuer = names
    .map((n) => {
      const facts = loadCorpusEntry(n).facts;
      const cert = parsed.get(n)!;
      const issuer =
        (facts.ca as string | undefined) ??
        (facts.parent as string | undefined) ??
        (cert.issuerDer.equals(cert.subjectDer) ? n : undefined);
      return [n, issuer] as const;
    })
    .filter((x): x is readonly [string, string] => !!x[1] && parsed.has(x[1]) && parsed.get(x[0])!.issuer.length > 0);

  test('there are chains to check', () => {
    expect(withIssuer.length).toBeGreaterThan(15);
  });

  test.each(withIssuer)('%s is signed by %s', (name, issuerName) => {
    const cert = parsed.get(name)!;
    const issuer = parsed.get(issuerName)!;
    expect(cert.issuerDer.equals(issuer.subjectDer)).toBe(true);
    expect(cert.issuer).toEqual(issuer.subject);
    expect(verifyCertificateSignature(cert, issuer.publicKey.der)).toBe(true);
    // A different key does not verify it.
    const other = parsed.get(issuerName === 'root' ? 'ec' : 'root')!;
    expect(verifyCertificateSignature(cert, other.publicKey.der)).toBe(false);
  });

  test('a changed TBSCertificate byte breaks the signature', () => {
    const root = parsed.get('root')!;
    const der = Buffer.from(root.der);
    const at = der.indexOf(root.tbsDer) + root.tbsDer.length - 40;
    der[at] ^= 0x01;
    const tampered = parseCertificate(der);
    expect(verifyCertificateSignature(tampered, root.publicKey.der)).toBe(false);
  });
});

describe('certificates OpenSSL makes here', () => {
  let dir: string;
  let key: string;
  let csr: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x509-cert-'));
    key = path.join(dir, 'key.pem');
    csr = path.join(dir, 'req.pem');
    openssl(['pkey', '-inform', 'DER', '-in', path.join(CORPUS_DIR, 'root.key.der'), '-out', key]);
    openssl(['req', '-new', '-key', key, '-subj', '/CN=made.example.com', '-out', csr]);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('v1 certificate: version 0, no extensions', () => {
    const pem = openssl(['x509', '-req', '-in', csr, '-key', key, '-days', '1', '-set_serial', '0x00ff']);
    const cert = parseCertificate(pem);
    expect(cert.version).toBe(0);
    expect(cert.json.version).toBe(0);
    expect(cert.extensions).toEqual([]);
    expect(cert.serial).toBe('FF');
    expect(verifyCertificateSignature(cert, cert.publicKey.der)).toBe(true);
  });

  test('RSA-PSS signed certificate', () => {
    const pem = openssl([
      'x509',
      '-req',
      '-in',
      csr,
      '-key',
      key,
      '-days',
      '1',
      '-sha512',
      '-sigopt',
      'rsa_padding_mode:pss',
      '-sigopt',
      'rsa_pss_saltlen:digest',
    ]);
    const cert = parseCertificate(pem);
    expect(cert.json.signature_algorithm_oid).toBe('1.2.840.113549.1.1.10');
    expect(cert.json.signature_hash_algorithm).toBe('SHA-512');
    expect(cert.json.signature_algorithm_parameters).toEqual({ name: 'EMSA-PSS', salt_length: 64, mgf: { algorithm: 'SHA-512' } });
    expect(verifyCertificateSignature(cert, cert.publicKey.der)).toBe(true);
  });

  test('signature_algorithm_parameters of the other key types', () => {
    expect(parsed.get('root')!.json.signature_algorithm_parameters).toEqual({ name: 'EMSA-PKCS1-v1_5' });
    expect(parsed.get('ec')!.json.signature_algorithm_parameters).toEqual({ algorithm: 'SHA-256', deterministic_signing: false });
    expect(parsed.get('dsa')!.json.signature_algorithm_parameters).toBeNull();
    expect(parsed.get('ed25519')!.json.signature_algorithm_parameters).toBeNull();
    expect(parsed.get('ed448')!.json.signature_hash_algorithm).toBeNull();
    expect(parsed.get('ed448')!.json.public_key_algorithm_oid).toBe('1.3.101.113');
    expect(parsed.get('ec')!.json.public_key_algorithm_oid).toBe('1.2.840.10045.2.1');
    expect(parsed.get('ec')!.publicKey.curve).toBe('secp256r1');
  });
});

describe('malformed certificates', () => {
  const der = parsed.get('root')!.der;
  test('truncated, trailing bytes, wrong label, not DER', () => {
    expectX509Error(() => parseCertificate(der.subarray(0, der.length - 1)), 'parse');
    expectX509Error(() => parseCertificate(Buffer.concat([der, Buffer.from([0])])), 'parse');
    expectX509Error(() => parseCertificate(loadCorpusEntry('root').pem.replace(/CERTIFICATE/g, 'X509 CRL')), 'parse');
    expectX509Error(() => parseCertificate(Buffer.from('3080300000000000', 'hex')), 'parse');
  });

  test('outer and inner signature algorithms must agree', () => {
    const ec = parsed.get('ec')!;
    // ecdsa-with-SHA256 → ecdsa-with-SHA384 in the outer AlgorithmIdentifier only (last occurrence).
    const oid256 = Buffer.from('06082a8648ce3d040302', 'hex');
    const copy = Buffer.from(ec.der);
    copy[copy.lastIndexOf(oid256) + oid256.length - 1] = 0x03;
    expectX509Error(() => parseCertificate(copy), 'parse');
  });

  test('oversized input', () => {
    expectX509Error(() => parseCertificate(Buffer.alloc(1024 * 1024)), 'too-large');
  });
});

describe('fingerprints', () => {
  const ORDER = ['SHA-224', 'SHA-256', 'SHA-384', 'SHA-512', 'SHA3/224', 'SHA3/256', 'SHA3/384', 'SHA3/512'];
  const OPENSSL: Record<string, string> = {
    'SHA-224': 'sha224',
    'SHA-256': 'sha256',
    'SHA-384': 'sha384',
    'SHA-512': 'sha512',
    'SHA3/224': 'sha3-224',
    'SHA3/256': 'sha3-256',
    'SHA3/384': 'sha3-384',
    'SHA3/512': 'sha3-512',
    MD5: 'md5',
    SHA1: 'sha1',
  };

  test.each(['ed448-cert', 'letsencrypt_x3-cert'])('%s: all algorithms as openssl -fingerprint', (name) => {
    const cert = parsed.get(name)!;
    expect(Object.keys(cert.fingerprints)).toEqual(ORDER);
    for (const [api, ossl] of Object.entries(OPENSSL)) {
      const out = openssl(['x509', '-inform', 'DER', '-noout', '-fingerprint', `-${ossl}`], cert.der);
      const expected = out.trim().split('=')[1];
      const ours =
        api in cert.fingerprints ? cert.fingerprints[api as keyof typeof cert.fingerprints] : fingerprint(cert.der, api as 'MD5');
      expect(ours).toBe(expected);
      expect(fingerprint(cert.der, api as 'MD5')).toBe(expected);
    }
  });

  test('fingerprints() equals the record', () => {
    const cert = parsed.get('child-cert')!;
    expect(fingerprints(cert.der)).toEqual(cert.fingerprints);
  });
});

describe('serial text forms', () => {
  test('serialToHex: upper case, no leading zeros', () => {
    expect(serialToHex(0n)).toBe('0');
    expect(serialToHex(0xabcn)).toBe('ABC');
    expect(serialToHex(BigInt('0x08C4FC9EA493CCCFB81B5C275DE4E38E9B98A2EF'))).toBe('8C4FC9EA493CCCFB81B5C275DE4E38E9B98A2EF');
  });

  test('serialToColons: even length, colon-separated', () => {
    expect(serialToColons(BigInt('0x8C4FC9EA'))).toBe('8C:4F:C9:EA');
    expect(serialToColons(0xabcn)).toBe('0A:BC');
    expect(serialToColons('8c4fc9e')).toBe('08:C4:FC:9E');
    expect(serialToColons(0n)).toBe('00');
  });

  test('serialToColons matches what openssl prints for the corpus', () => {
    for (const name of ['root', 'child', 'ed25519', 'dsa']) {
      const cert = parsed.get(name)!;
      const out = openssl(['x509', '-inform', 'DER', '-noout', '-serial'], cert.der).trim().split('=')[1];
      expect(serialToColons(cert.serialNumber).replace(/:/g, '')).toBe(out);
    }
  });

  test('normaliseSerial accepts case, colons and leading zeros (contract D7)', () => {
    expect(normaliseSerial('000ABC')).toBe('ABC');
    expect(normaliseSerial('0a:bc')).toBe('ABC');
    expect(normaliseSerial('abc')).toBe('ABC');
    expect(normaliseSerial('0')).toBe('0');
    expect(normaliseSerial('00:00')).toBe('0');
    expect(normaliseSerial('')).toBeNull();
    expect(normaliseSerial(':')).toBeNull();
    expect(normaliseSerial('XYZ')).toBeNull();
    expect(normaliseSerial('12 34')).toBeNull();
    const root = parsed.get('root')!;
    expect(normaliseSerial(serialToColons(root.serialNumber).toLowerCase())).toBe(root.serial);
  });
});
