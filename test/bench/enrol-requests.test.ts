/**
 * The requests bench/enrol.ts builds are what a SCEP client sends: openssl verifies the signed layer,
 * opens the envelope with the recipient's key and finds a CSR with the challenge (RFC 8894 §3.2), so
 * that the bench cannot measure a server answering errors to malformed requests.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { estBodies, pkcsReqs } from '../../bench/enrol-requests';

const openssl = (args: string[], input?: Buffer): Buffer => execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });

test('a PKCSReq verifies, opens to the recipient and holds a CSR with the challenge; EST bodies are base64 P-256 CSRs', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrol-requests-'));
  try {
    const file = (name: string) => path.join(dir, name);
    for (const name of ['requester', 'recipient'])
      openssl([
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        file(`${name}.key`),
        '-subj',
        `/CN=${name}`,
        '-days',
        '1',
        '-out',
        file(`${name}.pem`),
      ]);
    const der = (name: string) => openssl(['x509', '-in', file(`${name}.pem`), '-outform', 'DER']);
    const requester = { key: crypto.createPrivateKey(fs.readFileSync(file('requester.key'))), certDer: der('requester') };
    const [first, second] = pkcsReqs(2, 'dev', requester, der('recipient'), 'sesame');
    expect(first.equals(second)).toBe(false);
    const envelope = openssl(['cms', '-verify', '-inform', 'DER', '-noverify', '-binary'], first);
    const csr = openssl(
      ['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', file('recipient.pem'), '-inkey', file('recipient.key')],
      envelope,
    );
    const text = openssl(['req', '-inform', 'DER', '-verify', '-noout', '-text'], csr).toString();
    expect(text).toMatch(/Subject: CN ?= ?dev-0.example.org/);
    expect(text).toMatch(/challengePassword\s*:sesame/);
    expect(text).toContain('Public-Key: (2048 bit)');

    const [body] = estBodies(1, 'est');
    const estText = openssl(['req', '-inform', 'DER', '-verify', '-noout', '-text'], Buffer.from(body.toString(), 'base64')).toString();
    expect(estText).toMatch(/Subject: CN ?= ?est-0.example.com/);
    expect(estText).toContain('NIST CURVE: P-256');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
