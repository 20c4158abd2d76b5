/**
 * Every certificate of the shared corpus, read by our engine, against the facts the reference service
 * recorded for it (NAME.json): serial, subject, the multiset of extensions, fingerprints, key and hash.
 */
import { parseCertificate } from '../../lib/x509/certificate';
import { fingerprint } from '../../lib/x509/fingerprints';
import { CorpusEntry, loadCorpus } from '../helpers/corpus';

/** JSON with object keys sorted at every level, so that key order does not matter. */
function canonical(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The corpus files are pydantic JSON-mode dumps: naive datetimes there carry 6 fractional digits where
 * the API encoder keeps 3 (models.md §13, §1.2), and a distribution point's `reasons` is a Python set
 * in arbitrary order, which we emit sorted (contract D8). Bring the expected side to the API form.
 */
function apiForm(value: unknown): unknown {
  if (typeof value === 'string') {
    const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{6})$/.exec(value);
    if (m) return m[2] === '000000' ? m[1] : `${m[1]}.${m[2].slice(0, 3)}`;
    return value;
  }
  if (Array.isArray(value)) return value.map(apiForm);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'reasons' && Array.isArray(v) ? [...v].sort() : apiForm(v)]));
  }
  return value;
}

const HASH_NAMES: Record<string, string> = {
  md5: 'MD5',
  sha1: 'SHA1',
  sha224: 'SHA-224',
  sha256: 'SHA-256',
  sha384: 'SHA-384',
  sha512: 'SHA-512',
};

interface Comparison {
  expected: Record<string, unknown>;
  actual: Record<string, unknown>;
}

function compare(entry: CorpusEntry): Comparison {
  const { facts } = entry;
  const cert = parseCertificate(entry.pem);
  const expected: Record<string, unknown> = {
    serial: facts.serial,
    subject: facts.subject,
    extensions: facts.extensions.map((e) => canonical(apiForm(e))).sort(),
  };
  const actual: Record<string, unknown> = {
    serial: cert.serial,
    subject: cert.subject,
    extensions: cert.extensions.map((e) => canonical(e)).sort(),
  };
  if (facts.md5) {
    expected.md5 = facts.md5;
    actual.md5 = fingerprint(cert.der, 'MD5');
  }
  if (facts.sha1) {
    expected.sha1 = facts.sha1;
    actual.sha1 = fingerprint(cert.der, 'SHA1');
  }
  if (facts.sha256) {
    expected.sha256 = facts.sha256;
    actual.sha256 = cert.fingerprints['SHA-256'];
  }
  if (facts.sha512) {
    expected.sha512 = facts.sha512;
    actual.sha512 = cert.fingerprints['SHA-512'];
  }
  if (facts.key_type) {
    expected.key_type = facts.key_type;
    actual.key_type = cert.publicKey.keyType;
  }
  if (typeof facts.key_size === 'number') {
    expected.key_size = facts.key_size;
    actual.key_size = cert.publicKey.keySize;
  }
  if ('algorithm' in facts) {
    expected.algorithm = facts.algorithm ?? null;
    const hash = cert.signatureAlgorithm.hash;
    actual.algorithm = hash === null ? null : (Object.keys(HASH_NAMES).find((k) => HASH_NAMES[k] === hash) ?? hash);
  }
  return { expected, actual };
}

const corpus = loadCorpus();
const matched = new Set<string>();

describe('corpus conformance', () => {
  test('the corpus is there', () => {
    expect(corpus.length).toBeGreaterThan(20);
  });

  test.each(corpus.map((e) => [e.name, e] as const))('%s', (name, entry) => {
    const { expected, actual } = compare(entry);
    expect(actual).toEqual(expected);
    matched.add(name);
  });

  test('summary', () => {
    console.log(`corpus: ${matched.size}/${corpus.length} certificates match`);
    expect(matched.size).toBe(corpus.length);
  });
});
