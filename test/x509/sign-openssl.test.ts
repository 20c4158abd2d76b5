/**
 * Certificates we build and sign must verify with OpenSSL, for every key type and signature scheme:
 * a self-signed CA, then a leaf for a CSR that OpenSSL made (a different key type), checked with
 * `openssl verify -x509_strict`.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { buildCertificate } from '../../lib/x509/builder';
import { parseCsr } from '../../lib/x509/csr';
import { keyObjectSigner } from '../../lib/x509/key-signer';
import { subjectKeyIdentifier } from '../../lib/x509/key-identifier';
import { generatePrivateKey, importPrivateKey } from '../../lib/x509/keys';
import { encodeName } from '../../lib/x509/name';
import { parseDer, readTlv, readTlvChildren, toDer, type Node } from '../../lib/x509/asn1';
import { pemEncode } from '../../lib/x509/pem';
import type { SignatureOptions, Signer } from '../../lib/x509/signer';
import type { Extension, KeySpec, Name } from '../../lib/x509/types';
import { CORPUS_DIR } from '../helpers/corpus';

let dir: string;
let dsaParams: string;

function openssl(args: string[], input?: string): string {
  return execFileSync('openssl', args, { input, cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] }).toString();
}

/** `openssl verify` output, or its error output when it fails. */
function verify(caPem: string, leafPem: string, tag: string): string {
  fs.writeFileSync(path.join(dir, `${tag}-ca.pem`), caPem);
  fs.writeFileSync(path.join(dir, `${tag}-leaf.pem`), leafPem);
  try {
    return openssl(['verify', '-x509_strict', '-CAfile', `${tag}-ca.pem`, `${tag}-leaf.pem`]).trim();
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer };
    return `${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? ''}`.trim();
  }
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sign-openssl-'));
  // DSA leaf keys reuse the corpus DSA key's domain parameters (fresh 2048-bit ones take seconds):
  // PrivateKeyInfo.privateKeyAlgorithm.parameters is the Dss-Parms SEQUENCE { p, q, g }.
  const pkcs8 = parseDer(fs.readFileSync(path.join(CORPUS_DIR, 'dsa.key.der')));
  const algorithm = (pkcs8.value as Node[])[1];
  const params = toDer((algorithm.value as Node[])[1])
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n');
  dsaParams = path.join(dir, 'dsa-params.pem');
  fs.writeFileSync(dsaParams, `-----BEGIN DSA PARAMETERS-----\n${params}\n-----END DSA PARAMETERS-----\n`);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const HOUR = 3600_000;

function name(cn: string): Name {
  return [
    { oid: '2.5.4.6', value: 'AT' },
    { oid: '2.5.4.10', value: 'express-ca-api tests' },
    { oid: '2.5.4.3', value: cn },
  ];
}

interface Ca {
  signer: Signer;
  subject: Name;
  pem: string;
  ski: string;
}

async function makeCa(spec: KeySpec | crypto.KeyObject, signature: SignatureOptions, cn: string): Promise<Ca> {
  const signer = keyObjectSigner(spec instanceof crypto.KeyObject ? spec : generatePrivateKey(spec));
  const ski = subjectKeyIdentifier(signer.publicKeyDer).toString('base64');
  const subject = name(cn);
  const der = await buildCertificate(
    {
      issuer: subject,
      subject,
      notBefore: new Date(Date.now() - HOUR),
      notAfter: new Date(Date.now() + 365 * 24 * HOUR),
      publicKeyDer: signer.publicKeyDer,
      extensions: [
        { type: 'basic_constraints', critical: true, value: { ca: true, path_length: null } },
        { type: 'key_usage', critical: true, value: ['crl_sign', 'key_cert_sign'] },
        { type: 'subject_key_identifier', critical: false, value: ski },
      ],
      signature,
    },
    signer,
  );
  return { signer, subject, pem: pemEncode(der, 'CERTIFICATE'), ski };
}

/** A CSR made by `openssl req -new -newkey ...`; returns its PEM. */
function opensslCsr(newkey: string[], tag: string): string {
  openssl(['req', '-new', ...newkey, '-nodes', '-keyout', `${tag}.key`, '-subj', `/CN=${tag}.example.com`, '-out', `${tag}.csr`]);
  return fs.readFileSync(path.join(dir, `${tag}.csr`), 'utf8');
}

async function issueLeaf(ca: Ca, csrPem: string, tag: string, signature: SignatureOptions, rawIssuer: boolean) {
  const spki = parseCsr(csrPem).publicKey.der;
  const extensions: Extension[] = [
    {
      type: 'authority_key_identifier',
      critical: false,
      value: { key_identifier: ca.ski, authority_cert_issuer: null, authority_cert_serial_number: null },
    },
    { type: 'basic_constraints', critical: true, value: { ca: false, path_length: null } },
    { type: 'subject_key_identifier', critical: false, value: subjectKeyIdentifier(spki).toString('base64') },
    { type: 'subject_alternative_name', critical: false, value: [{ type: 'DNS', value: `${tag}.example.com` }] },
  ];
  const der = await buildCertificate(
    {
      // Either form of the issuer must give the same bytes as the CA's subject.
      issuer: rawIssuer ? toDer(encodeName(ca.subject)) : ca.subject,
      subject: [{ oid: '2.5.4.3', value: `${tag}.example.com` }],
      notBefore: new Date(Date.now() - HOUR),
      notAfter: new Date(Date.now() + 90 * 24 * HOUR),
      publicKeyDer: spki,
      extensions,
      signature,
    },
    ca.signer,
  );
  return pemEncode(der, 'CERTIFICATE');
}

const LEAF_KEYS: Record<string, string[]> = {
  rsa: ['-newkey', 'rsa:2048'],
  p256: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  p384: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
  ed25519: ['-newkey', 'ed25519'],
  ed448: ['-newkey', 'ed448'],
  dsa: [], // see leafKey(): needs the parameter file written in beforeAll
};

function leafKey(kind: string): string[] {
  return kind === 'dsa' ? ['-newkey', `dsa:${dsaParams}`] : LEAF_KEYS[kind];
}

interface Case {
  label: string;
  spec: KeySpec;
  signature: SignatureOptions;
  leaf: keyof typeof LEAF_KEYS;
  expectAlgorithm: RegExp;
}

const CASES: Case[] = [
  {
    label: 'RSA-2048 PKCS#1 v1.5',
    spec: { keyType: 'RSA', keySize: 2048 },
    signature: { hash: 'SHA-256' },
    leaf: 'p256',
    expectAlgorithm: /sha256WithRSAEncryption/,
  },
  {
    label: 'RSA-2048 PSS',
    spec: { keyType: 'RSA', keySize: 2048 },
    signature: { hash: 'SHA-256', padding: 'pss' },
    leaf: 'rsa',
    expectAlgorithm: /rsassaPss/,
  },
  {
    label: 'EC P-256',
    spec: { keyType: 'EC', curve: 'secp256r1' },
    signature: { hash: 'SHA-256' },
    leaf: 'ed25519',
    expectAlgorithm: /ecdsa-with-SHA256/,
  },
  {
    label: 'EC P-384',
    spec: { keyType: 'EC', curve: 'secp384r1' },
    signature: { hash: 'SHA-384' },
    leaf: 'rsa',
    expectAlgorithm: /ecdsa-with-SHA384/,
  },
  {
    label: 'EC P-521',
    spec: { keyType: 'EC', curve: 'secp521r1' },
    signature: { hash: 'SHA-512' },
    leaf: 'ed448',
    expectAlgorithm: /ecdsa-with-SHA512/,
  },
  { label: 'Ed25519', spec: { keyType: 'Ed25519' }, signature: { hash: null }, leaf: 'p384', expectAlgorithm: /ED25519/ },
  { label: 'Ed448', spec: { keyType: 'Ed448' }, signature: { hash: null }, leaf: 'dsa', expectAlgorithm: /ED448/ },
  {
    label: 'DSA-2048',
    spec: { keyType: 'DSA', keySize: 2048 },
    signature: { hash: 'SHA-256' },
    leaf: 'p256',
    expectAlgorithm: /dsa_with_SHA256/,
  },
];

describe.each(CASES.map((c, i) => [c.label, c, i] as const))('%s CA', (_label, c, i) => {
  test('self-signed CA and a leaf from an OpenSSL CSR verify with openssl', async () => {
    const tag = `case${i}`;
    const ca = await makeCa(c.spec, c.signature, `${c.label} CA`);
    const caText = openssl(['x509', '-noout', '-text'], ca.pem);
    expect(caText).toMatch(c.expectAlgorithm);
    expect(caText).toMatch(/CA:TRUE/);
    // The CA verifies against itself (self-signature, CA extensions).
    expect(verify(ca.pem, ca.pem, `${tag}-self`)).toMatch(/: OK$/);

    const leaf = await issueLeaf(ca, opensslCsr(leafKey(c.leaf), tag), tag, c.signature, i % 2 === 0);
    expect(verify(ca.pem, leaf, tag)).toMatch(/: OK$/);
    const leafText = openssl(['x509', '-noout', '-text'], leaf);
    expect(leafText).toMatch(c.expectAlgorithm);
    expect(leafText).toMatch(new RegExp(`DNS:${tag}\\.example\\.com`));
    expect(leafText).toMatch(/CA:FALSE/);
  });
});

describe('hash variants', () => {
  // Generating DSA keys is slow; the corpus has one.
  const corpusDsa = importPrivateKey(fs.readFileSync(path.join(CORPUS_DIR, 'dsa.key.der')));
  const variants: [string, KeySpec | crypto.KeyObject, SignatureOptions, RegExp][] = [
    ['RSA SHA-384', { keyType: 'RSA', keySize: 2048 }, { hash: 'SHA-384' }, /sha384WithRSAEncryption/],
    ['RSA SHA-512', { keyType: 'RSA', keySize: 2048 }, { hash: 'SHA-512' }, /sha512WithRSAEncryption/],
    ['RSA SHA3/256', { keyType: 'RSA', keySize: 2048 }, { hash: 'SHA3/256' }, /RSA-SHA3-256/],
    ['RSA-PSS SHA-512', { keyType: 'RSA', keySize: 2048 }, { hash: 'SHA-512', padding: 'pss' }, /rsassaPss/],
    [
      'RSA-PSS SHA-384 salt 20',
      { keyType: 'RSA', keySize: 2048 },
      { hash: 'SHA-384', padding: 'pss', saltLength: 20 },
      /Salt Length: 0x14/,
    ],
    ['EC P-256 SHA-512', { keyType: 'EC', curve: 'secp256r1' }, { hash: 'SHA-512' }, /ecdsa-with-SHA512/],
    ['DSA SHA-224 (corpus key)', corpusDsa, { hash: 'SHA-224' }, /dsa_with_SHA224/],
  ];
  test.each(variants)('%s', async (label, spec, signature, expectAlgorithm) => {
    const tag = label.replace(/\W+/g, '_');
    const ca = await makeCa(spec, signature, `${label} CA`);
    const leaf = await issueLeaf(ca, opensslCsr(LEAF_KEYS.p256, tag), tag, signature, true);
    expect(verify(ca.pem, leaf, tag)).toMatch(/: OK$/);
    expect(openssl(['x509', '-noout', '-text'], leaf)).toMatch(expectAlgorithm);
  });

  // OpenSSL 3.0 names ECDSA-with-SHA3 but cannot verify it (not even certificates it made itself with
  // `req -x509 -sha3-384`), so the signature is checked with node:crypto and the encoding with openssl.
  test('EC P-384 SHA3/384: OpenSSL reads the algorithm, the signature verifies', async () => {
    const ca = await makeCa({ keyType: 'EC', curve: 'secp384r1' }, { hash: 'SHA3/384' }, 'SHA3 CA');
    const leaf = await issueLeaf(ca, opensslCsr(LEAF_KEYS.p256, 'sha3'), 'sha3', { hash: 'SHA3/384' }, true);
    expect(openssl(['x509', '-noout', '-text'], leaf)).toMatch(/ecdsa_with_SHA3-384/);
    const der = Buffer.from(leaf.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const cert = readTlv(der, 0, der.length);
    const [tbs, , sig] = readTlvChildren(der, cert);
    const caKey = crypto.createPublicKey({ key: ca.signer.publicKeyDer, format: 'der', type: 'spki' });
    const signature = der.subarray(sig.contentStart + 1, sig.end);
    expect(crypto.verify('sha3-384', der.subarray(tbs.start, tbs.end), caKey, signature)).toBe(true);
    expect(crypto.verify('sha384', der.subarray(tbs.start, tbs.end), caKey, signature)).toBe(false);
  });
});

describe('the oracle can say no', () => {
  test('a leaf with a flipped signature bit, or from another CA, does not verify', async () => {
    const ca = await makeCa({ keyType: 'EC', curve: 'secp256r1' }, { hash: 'SHA-256' }, 'Oracle CA');
    const other = await makeCa({ keyType: 'EC', curve: 'secp256r1' }, { hash: 'SHA-256' }, 'Oracle CA');
    const leaf = await issueLeaf(ca, opensslCsr(LEAF_KEYS.ed25519, 'oracle'), 'oracle', { hash: 'SHA-256' }, false);
    expect(verify(ca.pem, leaf, 'oracle-good')).toMatch(/: OK$/);
    expect(verify(other.pem, leaf, 'oracle-other')).not.toMatch(/: OK$/);

    const der = Buffer.from(leaf.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
    der[der.length - 5] ^= 0x01; // inside the signature value
    expect(verify(ca.pem, pemEncode(der, 'CERTIFICATE'), 'oracle-bad')).not.toMatch(/: OK$/);
  });
});
