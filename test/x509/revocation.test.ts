/**
 * CRLs and OCSP responses we build, read back by OpenSSL (`openssl crl`, `openssl ocsp`) for each
 * key family a CA can have; OCSP requests made by OpenSSL, read by our strict reader; and a seeded
 * fuzz of that reader, which faces the network.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import fc from 'fast-check';
import { buildCertificate } from '../../lib/x509/builder';
import { DAY_MS } from '../../lib/x509/datetime';
import { X509Error } from '../../lib/x509/errors';
import { keyObjectSigner } from '../../lib/x509/key-signer';
import { subjectKeyIdentifier } from '../../lib/x509/key-identifier';
import { generatePrivateKey } from '../../lib/x509/keys';
import { pemEncode } from '../../lib/x509/pem';
import { parseCertificate } from '../../lib/x509/certificate';
import { buildCrl, crlToPem } from '../../lib/x509/revocation/crl';
import { certIdMatchesIssuer } from '../../lib/x509/revocation/cert-id';
import { parseOcspRequest } from '../../lib/x509/revocation/ocsp-request';
import { buildOcspResponse, ocspErrorResponse } from '../../lib/x509/revocation/ocsp-response';
import type { Signer } from '../../lib/x509/signer';
import type { KeySpec } from '../../lib/x509/types';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revocation-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What openssl printed on stdout and stderr (several commands report success on stderr). */
function openssl(args: string[]): string {
  const r = spawnSync('openssl', args, { cwd: dir });
  return `${r.stdout.toString()}${r.stderr.toString()}`;
}

interface TestCa {
  tag: string;
  signer: Signer;
  der: Buffer;
  subjectDer: Buffer;
  ski: Buffer;
  hash: 'SHA-256' | null;
}

async function makeCa(tag: string, spec: KeySpec): Promise<TestCa> {
  const key = generatePrivateKey(spec);
  const signer = keyObjectSigner(key);
  const ski = subjectKeyIdentifier(signer.publicKeyDer);
  const hash = spec.keyType === 'Ed25519' || spec.keyType === 'Ed448' ? null : 'SHA-256';
  const subject = [{ oid: '2.5.4.3', value: `Revocation ${tag} CA` }];
  const now = Date.now();
  const der = await buildCertificate(
    {
      issuer: subject,
      subject,
      notBefore: new Date(now - 3600_000),
      notAfter: new Date(now + DAY_MS),
      publicKeyDer: signer.publicKeyDer,
      extensions: [
        { type: 'basic_constraints', critical: true, value: { ca: true, path_length: null } },
        { type: 'key_usage', critical: true, value: ['crl_sign', 'key_cert_sign', 'digital_signature'] },
        { type: 'subject_key_identifier', critical: false, value: ski.toString('base64') },
      ],
      signature: { hash },
    },
    signer,
  );
  fs.writeFileSync(path.join(dir, `${tag}-ca.pem`), pemEncode(der, 'CERTIFICATE'));
  return { tag, signer, der, subjectDer: parseCertificate(der).subjectDer, ski, hash };
}

const FAMILIES: [string, KeySpec][] = [
  ['ec', { keyType: 'EC', curve: 'secp256r1' }],
  ['rsa', { keyType: 'RSA', keySize: 2048 }],
  ['ed25519', { keyType: 'Ed25519' }],
];

describe.each(FAMILIES)('%s CA', (tag, spec) => {
  let ca: TestCa;
  beforeAll(async () => {
    ca = await makeCa(tag, spec);
  });

  test('a user-certificate CRL: signature, number, scope, entries with reasons and invalidity dates (openssl crl)', async () => {
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const der = await buildCrl(
      {
        issuerDer: ca.subjectDer,
        authorityKeyIdentifier: ca.ski,
        crlNumber: 7n,
        thisUpdate: now,
        nextUpdate: new Date(now.getTime() + DAY_MS),
        scope: 'user',
        entries: [
          { serialNumber: 0x1234abcdn, revocationDate: now, reason: 'key_compromise', invalidityDate: new Date('2026-01-02T03:04:05Z') },
          { serialNumber: 0xff00n, revocationDate: now, reason: 'unspecified', invalidityDate: null },
        ],
        signature: { hash: ca.hash },
      },
      ca.signer,
    );
    fs.writeFileSync(path.join(dir, `${tag}.crl`), crlToPem(der));
    expect(openssl(['crl', '-in', `${tag}.crl`, '-CAfile', `${tag}-ca.pem`, '-noout', '-verify'])).toContain('verify OK');
    const text = openssl(['crl', '-in', `${tag}.crl`, '-noout', '-text']);
    expect(text).toContain('Version 2 (0x1)');
    expect(text).toMatch(/X509v3 CRL Number:\s*\n\s*7/);
    expect(text).toMatch(/X509v3 Issuing Distribution Point: critical\s*\n\s*Only User Certificates/);
    expect(text).toMatch(
      new RegExp(`Authority Key Identifier:\\s*\\n\\s*(keyid:)?${ca.ski.toString('hex').toUpperCase().match(/../g)?.join(':')}`),
    );
    expect(text).toMatch(/Serial Number: 1234ABCD[\s\S]*?Key Compromise[\s\S]*?Invalidity Date:\s*\n\s*Jan\s+2 03:04:05 2026 GMT/);
    const second = text.slice(text.indexOf('Serial Number: FF00'));
    expect(second).not.toContain('CRL Reason Code');
  });

  test('a CA CRL without entries says onlyContainsCACerts', async () => {
    const now = new Date();
    const der = await buildCrl(
      {
        issuerDer: ca.subjectDer,
        authorityKeyIdentifier: ca.ski,
        crlNumber: 1n,
        thisUpdate: now,
        nextUpdate: new Date(now.getTime() + 3600_000),
        scope: 'ca',
        entries: [],
        signature: { hash: ca.hash },
      },
      ca.signer,
    );
    fs.writeFileSync(path.join(dir, `${tag}-ca.crl`), crlToPem(der));
    const text = openssl(['crl', '-in', `${tag}-ca.crl`, '-CAfile', `${tag}-ca.pem`, '-noout', '-text', '-verify']);
    expect(text).toContain('verify OK');
    expect(text).toContain('Only CA Certificates');
    expect(text).toContain('No Revoked Certificates');
  });

  test('OCSP: an openssl request is read (CertID, nonce); our signed answers verify in openssl ocsp', async () => {
    const req = path.join(dir, `${tag}-req.der`);
    openssl(['ocsp', '-issuer', `${tag}-ca.pem`, '-serial', '0x0ABC', '-serial', '0x77', '-reqout', req]);
    const parsed = parseOcspRequest(fs.readFileSync(req));
    expect(parsed.certIds.map((c) => c.serial)).toEqual(['ABC', '77']);
    expect(parsed.nonce?.value.length).toBeGreaterThan(0);
    expect(parsed.unknownCriticalExtension).toBe(false);
    expect(parsed.certIds.every((c) => certIdMatchesIssuer(c, ca.subjectDer, ca.signer.publicKeyDer))).toBe(true);

    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const der = await buildOcspResponse(
      {
        responderCertificateDer: ca.der,
        responderPublicKeyDer: ca.signer.publicKeyDer,
        producedAt: now,
        nonce: parsed.nonce,
        responses: [
          {
            certIdDer: parsed.certIds[0].der,
            certStatus: { status: 'revoked', revocationTime: now, reason: 'superseded' },
            thisUpdate: now,
            nextUpdate: new Date(now.getTime() + 3600_000),
          },
          {
            certIdDer: parsed.certIds[1].der,
            certStatus: { status: 'good' },
            thisUpdate: now,
            nextUpdate: new Date(now.getTime() + 3600_000),
          },
        ],
        signature: { hash: ca.hash },
      },
      ca.signer,
    );
    fs.writeFileSync(path.join(dir, `${tag}-resp.der`), der);
    // -no_nonce: openssl would otherwise compare with the nonce of a request it makes up from -serial;
    // the echo of our request's nonce is checked in the response text below.
    const out = openssl([
      'ocsp',
      '-respin',
      `${tag}-resp.der`,
      '-issuer',
      `${tag}-ca.pem`,
      '-CAfile',
      `${tag}-ca.pem`,
      '-serial',
      '0x0ABC',
      '-serial',
      '0x77',
      '-no_nonce',
    ]);
    expect(out).toContain('Response verify OK');
    const text = openssl(['ocsp', '-respin', `${tag}-resp.der`, '-resp_text', '-noverify']);
    const nonceHex = (parsed.nonce?.value ?? Buffer.alloc(0)).toString('hex').toUpperCase();
    const nonceLength = (parsed.nonce?.value.length ?? 0).toString(16).padStart(2, '0').toUpperCase();
    expect(text.replace(/[\s:]/g, '').toUpperCase()).toContain(`OCSPNONCE04${nonceLength}${nonceHex}`);
    expect(out).toMatch(/0x0ABC: revoked[\s\S]*Reason: superseded/);
    expect(out).toContain('0x77: good');
  });
});

test('a CRL with 100,000 entries is built (no argument-list or stack limits) and openssl reads it', async () => {
  const ca = await makeCa('big', { keyType: 'EC', curve: 'secp256r1' });
  const now = new Date();
  const entries = Array.from({ length: 100_000 }, (_, i) => ({
    serialNumber: BigInt(i + 1),
    revocationDate: now,
    reason: 'superseded',
    invalidityDate: null,
  }));
  const der = await buildCrl(
    {
      issuerDer: ca.subjectDer,
      authorityKeyIdentifier: ca.ski,
      crlNumber: 2n,
      thisUpdate: now,
      nextUpdate: new Date(now.getTime() + 3600_000),
      scope: 'user',
      entries,
      signature: { hash: 'SHA-256' },
    },
    ca.signer,
  );
  fs.writeFileSync(path.join(dir, 'big.crl'), der);
  expect(openssl(['crl', '-inform', 'DER', '-in', 'big.crl', '-CAfile', 'big-ca.pem', '-noout', '-verify'])).toContain('verify OK');
});

test('an unsuccessful OCSP response is the status alone', () => {
  fs.writeFileSync(path.join(dir, 'malformed.der'), ocspErrorResponse('malformedRequest'));
  expect(openssl(['ocsp', '-respin', 'malformed.der', '-resp_text', '-noverify'])).toMatch(/malformedrequest \(1\)/i);
});

describe('the OCSP request reader under hostile input', () => {
  let valid: Buffer;
  beforeAll(async () => {
    await makeCa('fuzz', { keyType: 'EC', curve: 'secp256r1' });
    const req = path.join(dir, 'fuzz-req.der');
    openssl(['ocsp', '-issuer', 'fuzz-ca.pem', '-serial', '0x1234', '-reqout', req]);
    valid = fs.readFileSync(req);
  });

  const readsOrRefuses = (bytes: Buffer): boolean => {
    try {
      parseOcspRequest(bytes);
      return true;
    } catch (e) {
      if (e instanceof X509Error) return true;
      throw e;
    }
  };

  test('5,000 seeded mutations of a real request: a request or an X509Error, nothing else', () => {
    const seed = 20261124;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        fc.nat({ max: 8 }),
        (edits, cut) => {
          const bytes = Buffer.from(valid);
          for (const [at, value] of edits) bytes[at % bytes.length] = value;
          return readsOrRefuses(bytes.subarray(0, bytes.length - cut));
        },
      ),
      { seed, numRuns: 5000 },
    );
  });

  test('random bytes and deep nesting are refused without recursion trouble', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (b) => readsOrRefuses(Buffer.from(b))),
      { seed: 7, numRuns: 2000 },
    );
    // 100,000 nested SEQUENCEs (long-form lengths): the reader looks only as deep as an OCSPRequest goes.
    const headers: Buffer[] = [];
    let len = 2; // the innermost NULL
    for (let i = 0; i < 100_000; i++) {
      const header =
        len < 0x80
          ? Buffer.from([0x30, len])
          : Buffer.from([0x30, 0x84, (len >>> 24) & 0xff, (len >>> 16) & 0xff, (len >>> 8) & 0xff, len & 0xff]);
      headers.push(header);
      len += header.length;
    }
    const nested = Buffer.concat([...headers.reverse(), Buffer.from([0x05, 0x00])]);
    expect(() => parseOcspRequest(nested)).toThrow(X509Error);
  });
});
