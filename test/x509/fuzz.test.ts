/**
 * Robustness: whatever bytes arrive, the readers either succeed or throw X509Error — never another
 * error type, never a hang, never a stack overflow. Inputs come from a seeded generator so that a
 * failure is reproducible (the seed and the input are in the failure message).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseCertificate } from '../../lib/x509/certificate';
import { parseCsr } from '../../lib/x509/csr';
import { X509Error } from '../../lib/x509/errors';
import { pemDecode, pemEncode } from '../../lib/x509/pem';
import { Node, octets, parseDer, toDer } from '../../lib/x509/asn1';
import { CORPUS_DIR, loadCorpus, pemToDer } from '../helpers/corpus';
import { rng } from '../helpers/seeded-random';

type Outcome = 'ok' | 'x509';

/** Run `fn`; anything but success or an X509Error fails the test with the offending input. */
function outcome(fn: () => unknown, input: Buffer | string, what: string): Outcome {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (e instanceof X509Error) return 'x509';
    const shown = typeof input === 'string' ? JSON.stringify(input.slice(0, 200)) : input.toString('hex').slice(0, 400);
    throw new Error(`${what}: ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\ninput: ${shown}`, { cause: e });
  }
}

function mutations(der: Buffer, random: () => number, count: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const copy = Buffer.from(der);
    const kind = random();
    if (kind < 0.15) {
      out.push(copy.subarray(0, Math.floor(random() * der.length))); // truncation
    } else if (kind < 0.25) {
      const at = Math.floor(random() * der.length); // one byte removed
      out.push(Buffer.concat([copy.subarray(0, at), copy.subarray(at + 1)]));
    } else if (kind < 0.35) {
      const at = Math.floor(random() * der.length); // one byte inserted
      out.push(Buffer.concat([copy.subarray(0, at), Buffer.from([Math.floor(random() * 256)]), copy.subarray(at)]));
    } else if (kind < 0.6) {
      copy[Math.floor(random() * der.length)] ^= 1 << Math.floor(random() * 8); // one bit flipped
      out.push(copy);
    } else {
      copy[Math.floor(random() * der.length)] = Math.floor(random() * 256); // one byte replaced
      out.push(copy);
    }
  }
  return out;
}

const corpus = loadCorpus().map((e) => ({ name: e.name, der: pemToDer(e.pem) }));
let csrs: { name: string; der: Buffer }[] = [];

beforeAll(() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x509-fuzz-'));
  try {
    csrs = ['root', 'ec', 'ed25519', 'dsa'].map((name) => {
      const key = path.join(dir, `${name}.pem`);
      execFileSync('openssl', ['pkey', '-inform', 'DER', '-in', path.join(CORPUS_DIR, `${name}.key.der`), '-out', key]);
      const der = execFileSync('openssl', [
        'req',
        '-new',
        '-key',
        key,
        '-subj',
        `/C=AT/O=Fuzz/CN=${name}.fuzz.example.com`,
        '-outform',
        'DER',
        '-addext',
        'subjectAltName=DNS:a.example.com,IP:192.0.2.1,email:x@example.com',
        '-addext',
        'basicConstraints=critical,CA:FALSE',
      ]);
      return { name, der };
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('mutated certificates', () => {
  test('~1,500 truncations and single-byte mutations of every corpus certificate', () => {
    const random = rng(0xc0ffee);
    const counts = { ok: 0, x509: 0 };
    for (const { name, der } of corpus) {
      for (const m of mutations(der, random, 50)) counts[outcome(() => parseCertificate(m), m, `certificate ${name}`)]++;
    }
    // Both outcomes occur: many mutations land in signature bytes (still parse), many break structure.
    expect(counts.ok).toBeGreaterThan(0);
    expect(counts.x509).toBeGreaterThan(0);
  });

  test('mutated PEM text of certificates', () => {
    const random = rng(7);
    for (const { name, der } of corpus.slice(0, 10)) {
      const pem = pemEncode(der, 'CERTIFICATE');
      for (let i = 0; i < 20; i++) {
        const at = Math.floor(random() * pem.length);
        const text = pem.slice(0, at) + String.fromCharCode(Math.floor(random() * 128)) + pem.slice(at + 1);
        outcome(() => parseCertificate(text), text, `PEM ${name}`);
        outcome(() => pemDecode(text, 'CERTIFICATE'), text, `pemDecode ${name}`);
      }
    }
  });
});

describe('mutated CSRs', () => {
  test('~800 mutations of CSRs of four key types (self-signature checked)', () => {
    const random = rng(42);
    const counts = { ok: 0, x509: 0 };
    for (const { name, der } of csrs) {
      expect(outcome(() => parseCsr(der), der, `CSR ${name}`)).toBe('ok');
      for (const m of mutations(der, random, 200)) counts[outcome(() => parseCsr(m), m, `CSR ${name}`)]++;
    }
    expect(counts.x509).toBeGreaterThan(0);
  });

  test('mutations without verification', () => {
    const random = rng(43);
    for (const { name, der } of csrs) {
      for (const m of mutations(der, random, 100)) outcome(() => parseCsr(m, { verify: false }), m, `CSR ${name}`);
    }
  });
});

describe('random input', () => {
  test('random bytes, and random bytes behind a plausible SEQUENCE header', () => {
    const random = rng(1234);
    for (let i = 0; i < 1500; i++) {
      const len = Math.floor(random() * 400);
      const bytes = Buffer.alloc(len);
      for (let j = 0; j < len; j++) bytes[j] = Math.floor(random() * 256);
      if (i % 2 && len > 4) {
        bytes[0] = 0x30;
        bytes[1] = 0x82;
        bytes.writeUInt16BE(len - 4, 2);
      }
      outcome(() => parseCertificate(bytes), bytes, 'certificate');
      outcome(() => parseCsr(bytes), bytes, 'CSR');
      const text = bytes.toString('latin1');
      outcome(() => pemDecode(text, 'CERTIFICATE'), text, 'pemDecode');
    }
  });

  test('random PEM-like text', () => {
    const random = rng(99);
    const pieces = ['-----BEGIN ', '-----END ', 'CERTIFICATE', 'CERTIFICATE REQUEST', '-----', '\n', '\r\n', 'MIIB', '====', ':', ' ', 'A'];
    for (let i = 0; i < 1000; i++) {
      let text = '';
      const n = Math.floor(random() * 30);
      for (let j = 0; j < n; j++) text += pieces[Math.floor(random() * pieces.length)];
      outcome(() => pemDecode(text, 'CERTIFICATE'), text, 'pemDecode');
      outcome(() => parseCertificate(text), text, 'certificate');
      outcome(() => parseCsr(text), text, 'CSR');
    }
  });
});

describe('hostile structure', () => {
  /** `depth` nested SEQUENCEs (definite lengths) around `inner`. */
  function nested(depth: number, inner: Buffer = Buffer.alloc(0)): Buffer {
    let body = inner;
    for (let i = 0; i < depth; i++) {
      const len = body.length;
      const header =
        len < 0x80
          ? Buffer.from([0x30, len])
          : len < 0x10000
            ? Buffer.from([0x30, 0x82, len >> 8, len & 0xff])
            : Buffer.from([0x30, 0x83, len >> 16, (len >> 8) & 0xff, len & 0xff]);
      body = Buffer.concat([header, body]);
    }
    return body;
  }

  test('deeply nested SEQUENCEs → X509Error, not a stack overflow', () => {
    const deep = nested(20000);
    expect(deep.length).toBeLessThan(256 * 1024);
    for (const fn of [() => parseCertificate(deep), () => parseCsr(deep)]) {
      expect(outcome(fn, deep, 'deep nesting')).toBe('x509');
    }
  });

  test('deep nesting inside an extension value of an otherwise well-formed certificate', () => {
    // Rebuild the root certificate with its last extension's value replaced by nested SEQUENCEs, so
    // that the envelope is valid and the extension decoder meets the nesting.
    const root = parseDer(corpus.find((c) => c.name === 'root')!.der);
    const tbs = root.value[0] as Node;
    const extsWrapper = (tbs.value as Node[])[(tbs.value as Node[]).length - 1];
    const exts = (extsWrapper.value as Node[])[0].value as Node[];
    const lastExt = exts[exts.length - 1].value as Node[];
    for (const depth of [50, 240, 1000]) {
      lastExt[lastExt.length - 1] = octets(nested(depth, Buffer.from('0500', 'hex')));
      const input = toDer(root);
      outcome(() => parseCertificate(input), input, `nesting ${depth} in an extension`);
    }
  });

  test('indefinite lengths (BER) are refused', () => {
    const ber = Buffer.from('3080308002010000000000', 'hex');
    expect(outcome(() => parseCertificate(ber), ber, 'BER')).toBe('x509');
  });

  test('1 MiB input → too-large for every reader that takes raw input', () => {
    const big = Buffer.alloc(1024 * 1024, 0x30);
    for (const fn of [() => parseCertificate(big), () => parseCsr(big), () => parseCertificate(big.toString('latin1'))]) {
      let err: unknown;
      try {
        fn();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(X509Error);
      expect((err as X509Error).code).toBe('too-large');
    }
  });
});
