/**
 * How fast the engine issues and reads certificates.
 *
 *   npm run bench:x509        (= npx ts-node --transpile-only bench/x509.ts)
 *
 * For RSA-2048, EC P-256 and Ed25519: raw `crypto.sign` calls per second on the CA key (over the bytes
 * of a typical TBSCertificate), complete certificates built and signed per second, their ratio and the
 * builder's cost per certificate in µs. Then corpus certificates parsed per second.
 *
 * Targets: RSA-2048 ratio ≥ 0.8; P-256 and Ed25519 overhead < 60 µs; parsing ≥ 10,000/s.
 * Signing figures come from medians of interleaved single calls (raw, build, raw, build, ...), which
 * hold up on a shared, busy machine; parsing is the best of three one-second runs.
 */
import * as crypto from 'crypto';
import { buildCertificate, buildTbsCertificate, type CertificateTemplate } from '../lib/x509/builder';
import { toDer } from '../lib/x509/asn1';
import { parseCertificate } from '../lib/x509/certificate';
import { parseExtension } from '../lib/x509/extensions';
import { subjectKeyIdentifier } from '../lib/x509/key-identifier';
import { keyObjectSigner } from '../lib/x509/key-signer';
import { generatePrivateKey, publicKeyDer } from '../lib/x509/keys';
import { encodeName } from '../lib/x509/name';
import type { SignatureOptions } from '../lib/x509/signer';
import type { Extension, KeySpec } from '../lib/x509/types';
import { corpusPems } from './corpus';

/**
 * Interleaved timing: a, b, a, b, ... each call timed on its own. On a shared machine a call now and
 * then loses its time slice to a neighbour; the median ignores those, where a mean over a long loop
 * would count them (and a difference of two such means would mostly measure the neighbours).
 */
async function medianMicros(a: () => unknown, b: () => unknown, samples: number): Promise<[number, number]> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < samples; i++) {
    ta.push(await timeOne(a));
    tb.push(await timeOne(b));
  }
  return [median(ta), median(tb)];
}

async function timeOne(fn: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  const r = fn();
  if (r instanceof Promise) await r;
  return Number(process.hrtime.bigint() - start) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Calls of `fn` per second over about `ms` milliseconds (for parsing, which has no baseline). */
function rate(fn: () => unknown, ms = 1000): number {
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let n = 0;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 32; i++) fn();
    n += 32;
    now = process.hrtime.bigint();
  }
  return (n * 1e9) / Number(now - start);
}

/** The request extensions of a typical leaf (validated once, as the API does before signing). */
const LEAF_REQUEST = [
  { type: 'subject_alternative_name', value: [{ type: 'DNS', value: 'www.example.com' }] },
  { type: 'key_usage', value: ['digitalSignature', 'keyEncipherment'] },
  { type: 'extended_key_usage', value: ['serverAuth'] },
  {
    type: 'authority_information_access',
    value: [
      { access_method: 'ocsp', access_location: { type: 'URI', value: 'http://ca.example.com/django_ca/ocsp/0123456789ABCDEF/cert/' } },
      {
        access_method: 'ca_issuers',
        access_location: { type: 'URI', value: 'http://ca.example.com/django_ca/issuer/0123456789ABCDEF.der' },
      },
    ],
  },
  {
    type: 'crl_distribution_points',
    value: [{ full_name: [{ type: 'URI', value: 'http://ca.example.com/django_ca/crl/0123456789ABCDEF/' }] }],
  },
].map((e) => parseExtension(e, { requireType: true, configurableOnly: true }));

interface KeyCase {
  label: string;
  /** Interleaved raw/build pairs to time. */
  samples: number;
  spec: KeySpec;
  signature: SignatureOptions;
}

const CASES: KeyCase[] = [
  { label: 'RSA-2048', samples: 1500, spec: { keyType: 'RSA', keySize: 2048 }, signature: { hash: 'SHA-256' } },
  { label: 'EC P-256', samples: 20000, spec: { keyType: 'EC', curve: 'secp256r1' }, signature: { hash: 'SHA-256' } },
  { label: 'Ed25519', samples: 20000, spec: { keyType: 'Ed25519' }, signature: { hash: null } },
];

async function benchSigning(c: KeyCase): Promise<void> {
  const caKey = generatePrivateKey(c.spec);
  const signer = keyObjectSigner(caKey);
  // As the issuance service passes it: the CA certificate's subject, raw DER.
  const caSubject = toDer(encodeName([{ oid: '2.5.4.3', value: `${c.label} Bench CA` }]));
  const aki = subjectKeyIdentifier(signer.publicKeyDer).toString('base64');
  const leafSpki = publicKeyDer(generatePrivateKey({ keyType: 'EC', curve: 'secp256r1' }));
  const notBefore = new Date();
  const notAfter = new Date(notBefore.getTime() + 100 * 86_400_000);

  /** Per certificate, as the issuance service does it: mandatory extensions + request extensions. */
  const template = (): CertificateTemplate => {
    const extensions: Extension[] = [
      {
        type: 'authority_key_identifier',
        critical: false,
        value: { key_identifier: aki, authority_cert_issuer: null, authority_cert_serial_number: null },
      },
      { type: 'basic_constraints', critical: true, value: { ca: false, path_length: null } },
      { type: 'subject_key_identifier', critical: false, value: subjectKeyIdentifier(leafSpki).toString('base64') },
      ...LEAF_REQUEST,
    ];
    return {
      issuer: caSubject,
      subject: [{ oid: '2.5.4.3', value: 'www.example.com' }],
      notBefore,
      notAfter,
      publicKeyDer: leafSpki,
      extensions,
      signature: c.signature,
    };
  };

  // Raw signing over bytes of the same size as the real TBSCertificate.
  const tbs = buildTbsCertificate(template(), signer.keyType);
  const digest = c.signature.hash === null ? null : c.signature.hash.toLowerCase().replace('-', '');
  const rawSign = () => crypto.sign(digest, tbs, caKey);
  const build = () => buildCertificate(template(), signer);

  for (let i = 0; i < 100; i++) {
    rawSign();
    await build();
  }
  const [rawUs, buildUs] = await medianMicros(rawSign, build, c.samples);
  const raw = 1e6 / rawUs;
  const built = 1e6 / buildUs;
  const overheadUs = buildUs - rawUs;
  const certSize = (await build()).length;
  console.log(
    `${c.label.padEnd(9)} raw sign ${raw.toFixed(0).padStart(7)}/s   certificates ${built.toFixed(0).padStart(7)}/s` +
      `   ratio ${(built / raw).toFixed(3)}   overhead ${overheadUs.toFixed(1).padStart(6)} µs/cert` +
      `   (${certSize} bytes, TBS ${tbs.length})`,
  );
}

async function benchParsing(): Promise<void> {
  const pems = corpusPems();
  for (const pem of pems) parseCertificate(pem); // warm-up, and fail loudly on a bad corpus file
  let best = 0;
  for (let r = 0; r < 3; r++) {
    let i = 0;
    best = Math.max(
      best,
      rate(() => parseCertificate(pems[i++ % pems.length])),
    );
  }
  console.log(`parse     ${best.toFixed(0).padStart(7)} certificates/s (PEM → record with JSON, ${pems.length} corpus certificates)`);
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, ${process.arch}; signing: medians of interleaved single calls`);
  for (const c of CASES) await benchSigning(c);
  await benchParsing();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
