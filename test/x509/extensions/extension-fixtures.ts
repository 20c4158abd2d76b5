/**
 * Test fixtures for extension codecs: the extensions of a given OID found in the corpus certificates
 * (with the expected API JSON from NAME.json), and extension values produced by the `openssl` CLI as
 * an independent encoder.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as asn1 from '../../../lib/x509/asn1';
import { X509Error } from '../../../lib/x509/errors';
import type { ExtensionCodec } from '../../../lib/x509/extensions/codec';
import { loadCorpus, pemToDer } from '../../helpers/corpus';

export interface CorpusExtension {
  /** corpus certificate name */
  cert: string;
  critical: boolean;
  /** extnValue: the contents of the extension's OCTET STRING */
  der: Buffer;
  /** `{type, critical, value}` for this extension from NAME.json */
  json: { type: string; critical: boolean; value: unknown } | undefined;
}

interface RawExtension {
  oid: string;
  critical: boolean;
  der: Buffer;
}

/** Extensions of a DER certificate: tbsCertificate is the first element, extensions its [3] at the end. */
export function certificateExtensions(certDer: Buffer): RawExtension[] {
  const tbs = asn1.readSequence(asn1.readSequence(asn1.parseDer(certDer), 'cert')[0], 'tbs');
  const last = tbs[tbs.length - 1];
  if (asn1.contextTag(last) !== 3) return [];
  const list = asn1.readSequence(asn1.children(last, 'extensions')[0], 'extensions');
  return list.map((node) => {
    const parts = asn1.readSequence(node, 'extension');
    const critical = parts.length === 3 ? asn1.readBoolean(parts[1]) : false;
    return { oid: asn1.readOid(parts[0]), critical, der: asn1.readOctets(parts[parts.length - 1]) };
  });
}

let corpusCache: { name: string; extensions: RawExtension[]; json: CorpusExtension['json'][] }[] | null = null;

function corpus() {
  corpusCache ??= loadCorpus().map((entry) => ({
    name: entry.name,
    extensions: certificateExtensions(pemToDer(entry.pem)),
    json: entry.facts.extensions,
  }));
  return corpusCache;
}

/** Every extension with this OID in the corpus, paired with the JSON of the same type. */
export function corpusExtensions(oid: string, type: string): CorpusExtension[] {
  return corpus().flatMap((c) =>
    c.extensions
      .filter((e) => e.oid === oid)
      .map((e) => ({ cert: c.name, critical: e.critical, der: e.der, json: c.json.find((j) => j?.type === type) })),
  );
}

/** JSON round trip, as the API would put a value on the wire and read it back. */
export function viaJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

// ---------------------------------------------------------------------------------------------------
// openssl as an independent encoder

let workDir: string | null = null;

function opensslDir(): string {
  if (!workDir) {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ext-codec-'));
    execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', path.join(workDir, 'key.pem')]);
  }
  return workDir;
}

export function cleanupOpenssl(): void {
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  workDir = null;
}

/**
 * A self-signed certificate (PEM) that openssl builds with the extensions `extLines` (openssl
 * x509v3_config syntax, e.g. `subjectAltName = DNS:a.example`), plus optional extra config sections.
 */
export function opensslCertificate(extLines: string, extraSections = ''): string {
  const dir = opensslDir();
  const cfg = path.join(dir, 'req.cnf');
  // Key identifiers only where a test asks for them, so that the other extensions stand alone.
  const defaults = ['subjectKeyIdentifier', 'authorityKeyIdentifier']
    .filter((name) => !extLines.includes(name))
    .map((name) => `${name} = none\n`)
    .join('');
  fs.writeFileSync(cfg, `[req]\ndistinguished_name = dn\nx509_extensions = ext\n[dn]\n[ext]\n${defaults}${extLines}\n${extraSections}\n`);
  return execFileSync('openssl', ['req', '-new', '-x509', '-key', path.join(dir, 'key.pem'), '-subj', '/CN=oracle', '-config', cfg], {
    encoding: 'utf8',
    env: { ...process.env, OPENSSL_CONF: cfg },
  });
}

/** extnValue of the extension `oid` in a PEM certificate. */
export function extensionDer(pem: string, oid: string): Buffer {
  const ext = certificateExtensions(pemToDer(pem)).find((e) => e.oid === oid);
  if (!ext) throw new Error(`certificate has no extension ${oid}`);
  return ext.der;
}

/** extnValue of the extension `oid` openssl writes for `extLines`. */
export function opensslExtension(oid: string, extLines: string, extraSections = ''): Buffer {
  return extensionDer(opensslCertificate(extLines, extraSections), oid);
}

// ---------------------------------------------------------------------------------------------------
// validation errors

export interface Issue {
  type: string;
  loc: (string | number)[];
  msg: string;
}

/** The validation issues `fn` throws (fails the test when it throws nothing or something else). */
export function issuesOf(fn: () => unknown): Issue[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof X509Error && e.code === 'validation') return e.issues;
    throw e;
  }
  throw new Error('expected a validation error, got none');
}

// ---------------------------------------------------------------------------------------------------
// the corpus round trip every codec must pass

/**
 * For every extension of the codec's OID in the corpus: encode(decode(der)) is der byte for byte, the
 * decoded value is the NAME.json value (after `expected` adjusts it where the contract differs from the
 * corpus), and the JSON value parsed and encoded gives der again. Returns how many were checked.
 */
export function checkCorpusRoundTrips<V>(codec: ExtensionCodec<V>, expected: (json: unknown) => unknown = (j) => j): number {
  const found = corpusExtensions(codec.oid, codec.type);
  for (const ext of found) {
    const where = `${ext.cert}: ${codec.type}`;
    const value = codec.decode(ext.der);
    expect({ where, der: codec.encode(value).toString('hex') }).toEqual({ where, der: ext.der.toString('hex') });
    expect({ where, value: viaJson(value) }).toEqual({ where, value: expected(ext.json?.value) });
    const parsed = codec.parse(ext.json?.value);
    expect({ where, der: codec.encode(parsed).toString('hex') }).toEqual({ where, der: ext.der.toString('hex') });
    expect({ where, value: codec.decode(codec.encode(parsed)) }).toEqual({ where, value: parsed });
    expect({ where, critical: ext.json?.critical }).toEqual({ where, critical: ext.critical });
  }
  return found.length;
}
