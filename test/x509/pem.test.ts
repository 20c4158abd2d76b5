import { execFileSync } from 'child_process';
import { DEFAULT_MAX_INPUT_BYTES, derFromInput, pemDecode, pemEncode } from '../../lib/x509/pem';
import { corpusNames, loadCorpusEntry, pemToDer } from '../helpers/corpus';
import { expectX509Error } from '../helpers/x509-error';

const root = loadCorpusEntry('root');
const rootDer = pemToDer(root.pem);

describe('pemEncode', () => {
  test.each(corpusNames())('%s: same text as openssl x509 -outform PEM', (name) => {
    const der = pemToDer(loadCorpusEntry(name).pem);
    const openssl = execFileSync('openssl', ['x509', '-inform', 'DER', '-outform', 'PEM'], { input: der }).toString();
    expect(pemEncode(der, 'CERTIFICATE')).toBe(openssl);
  });

  test('64-character lines, \\n line ends, trailing newline', () => {
    const pem = pemEncode(Buffer.alloc(100, 7), 'X');
    const lines = pem.split('\n');
    expect(lines[0]).toBe('-----BEGIN X-----');
    expect(lines[1]).toHaveLength(64);
    expect(lines[lines.length - 2]).toBe('-----END X-----');
    expect(lines[lines.length - 1]).toBe('');
    expect(pem).not.toContain('\r');
  });
});

describe('pemDecode', () => {
  test('round trip', () => {
    expect(pemDecode(pemEncode(rootDer, 'CERTIFICATE'), 'CERTIFICATE').equals(rootDer)).toBe(true);
  });

  test('CRLF line ends and surrounding text are accepted', () => {
    const text = 'Certificate:\n  some -text output\r\n' + root.pem.replace(/\n/g, '\r\n') + 'trailer\n';
    expect(pemDecode(text, 'CERTIFICATE').equals(rootDer)).toBe(true);
  });

  test('the first block with the requested label wins', () => {
    const csrPem = pemEncode(Buffer.from([0x30, 0x00]), 'CERTIFICATE REQUEST');
    expect(pemDecode(csrPem + root.pem, 'CERTIFICATE').equals(rootDer)).toBe(true);
  });

  test('wrong label names the label found', () => {
    const csrPem = pemEncode(Buffer.from([0x30, 0x00]), 'CERTIFICATE REQUEST');
    expectX509Error(() => pemDecode(csrPem, 'CERTIFICATE'), 'parse', /found "CERTIFICATE REQUEST"/);
    expectX509Error(() => pemDecode(root.pem, 'CERTIFICATE REQUEST'), 'parse', /found "CERTIFICATE"/);
  });

  test('no PEM at all', () => {
    expectX509Error(() => pemDecode('hello', 'CERTIFICATE'), 'parse', /no PEM data/);
    expectX509Error(() => pemDecode('', 'CERTIFICATE'), 'parse');
  });

  test('BEGIN without END', () => {
    expectX509Error(() => pemDecode(root.pem.replace(/-----END.*/, ''), 'CERTIFICATE'), 'parse', /without matching END/);
  });

  test('mismatched END label', () => {
    expectX509Error(() => pemDecode(root.pem.replace('END CERTIFICATE', 'END X509 CRL'), 'CERTIFICATE'), 'parse');
  });

  test('invalid base64 body', () => {
    expectX509Error(() => pemDecode(root.pem.replace(/\n[A-Za-z]/, '\n*'), 'CERTIFICATE'), 'parse', /base64/);
    expectX509Error(() => pemDecode('-----BEGIN CERTIFICATE-----\nMIIB\nA\n-----END CERTIFICATE-----\n', 'CERTIFICATE'), 'parse');
  });

  test('empty body', () => {
    expectX509Error(() => pemDecode('-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n', 'CERTIFICATE'), 'parse', /empty/);
  });

  test('legacy encrypted PEM headers are refused', () => {
    const text = root.pem.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n');
    expectX509Error(() => pemDecode(text, 'CERTIFICATE'), 'parse', /headers/);
  });

  test('many BEGIN lines without END are rejected quickly (linear scan)', () => {
    const text = '-----BEGIN CERTIFICATE-----\n'.repeat(20000);
    expectX509Error(() => pemDecode(text, 'CERTIFICATE'), 'parse');
  });
});

describe('derFromInput', () => {
  test('PEM string, PEM bytes and DER bytes give the same DER', () => {
    expect(derFromInput(root.pem, 'CERTIFICATE').equals(rootDer)).toBe(true);
    expect(derFromInput(Buffer.from('\n' + root.pem), 'CERTIFICATE').equals(rootDer)).toBe(true);
    expect(derFromInput(rootDer, 'CERTIFICATE').equals(rootDer)).toBe(true);
  });

  test('oversized input → too-large, before parsing', () => {
    const big = Buffer.alloc(1024 * 1024, 0x41);
    expectX509Error(() => derFromInput(big, 'CERTIFICATE'), 'too-large');
    expectX509Error(() => derFromInput(big.toString('latin1'), 'CERTIFICATE'), 'too-large');
    expectX509Error(() => derFromInput(rootDer, 'CERTIFICATE', rootDer.length - 1), 'too-large');
    expect(derFromInput(rootDer, 'CERTIFICATE', rootDer.length).length).toBe(rootDer.length);
    expect(DEFAULT_MAX_INPUT_BYTES).toBeLessThan(1024 * 1024);
  });

  test('empty DER', () => {
    expectX509Error(() => derFromInput(Buffer.alloc(0), 'CERTIFICATE'), 'parse');
  });
});
