/**
 * What the drills of docs/operations/backup-restore.md share (test/operations/backup-drill.test.ts:
 * ca-admin backup and pg_dump; test/operations/pitr-drill.test.ts: point-in-time recovery): the
 * document's command blocks by name, `ca-admin` as the package installs it, and the CA work done
 * before and checked after a restore — through the example server, openssl the oracle.
 */
import { execFile } from 'child_process';
import { X509Certificate } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { startHostServer, type HostServer } from '../../examples/host-server/server';
import { verifyAuditChain } from '../../lib/audit/audit-chain';
import { cliRunner, TEST_KEK } from '../cli/helpers';
import { openssl, opensslCsr } from '../cli/openssl';

export const ROOT = path.resolve(__dirname, '../..');
export const DOC_FILE = 'docs/operations/backup-restore.md';

/** The document's command blocks by the name in their `<!-- backup-drill: NAME -->` marker. */
export function docBlocks(doc = fs.readFileSync(path.join(ROOT, DOC_FILE), 'utf8')): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of doc.matchAll(/(?:<!-- backup-drill: ([\w-]+) -->\n)?```(\w*)\n([\s\S]*?)\n```/g)) {
    if (!m[1]) throw new Error(`A block of ${DOC_FILE} has no backup-drill marker: ${m[3]}`);
    out.set(m[1], m[3]);
  }
  return out;
}

/** The blocks of the point-in-time recovery drill (test/operations/pitr-drill.test.ts) are named `pitr-…`. */
export const isPitrBlock = (name: string): boolean => name.startsWith('pitr-');

/** `ca-admin` on PATH as the package's bin, run from the sources: the directory to put on PATH. */
export function caAdminBin(dir: string): string {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const register = path.join(ROOT, 'test/helpers/ts-register-cached.js');
  fs.writeFileSync(
    path.join(bin, 'ca-admin'),
    `#!/bin/sh\nexec "${process.execPath}" -r "${register}" "${path.join(ROOT, 'lib/cli/main.ts')}" "$@"\n`,
    { mode: 0o755 },
  );
  return bin;
}

/** What a drill remembers of the lost database. */
export interface Seen {
  crlNumbers: bigint[];
  serials: Set<string>;
}

export const crlNumberOf = (der: Buffer): bigint => {
  const text = openssl(['crl', '-inform', 'DER', '-noout', '-text'], der);
  return BigInt(/CRL Number:\s*\n\s*(\d+)/.exec(text)?.[1] ?? '-1');
};

export async function publishCrl(server: HostServer, seen: Seen): Promise<bigint> {
  const res = await fetch(`${server.url}/django_ca/crl/${server.intermediate.serial}/`);
  expect(res.status).toBe(200);
  const number = crlNumberOf(Buffer.from(await res.arrayBuffer()));
  seen.crlNumbers.push(number);
  return number;
}

/** A certificate of the demo intermediate, by ca-admin on the server's own store; its hex serial. */
export async function issue(server: HostServer, dir: string, name: string, seen: Seen): Promise<string> {
  const cli = cliRunner(server.store);
  const r = await cli(
    [
      'sign_cert',
      '--ca',
      server.intermediate.serial,
      '--csr',
      opensslCsr(dir, name, `/CN=${name}.example.com`),
      '--subject',
      `CN=${name}.example.com`,
    ],
    { keyBackends: server.keyBackends },
  );
  expect(r.stderr).toBe('');
  const serial = openssl(['x509', '-noout', '-serial'], r.stdout).trim().split('=')[1].replace(/^0+/, '');
  seen.serials.add(serial);
  return serial;
}

export async function revoke(server: HostServer, serial: string): Promise<void> {
  const r = await cliRunner(server.store)(['revoke_cert', serial, '--reason', 'key_compromise'], { keyBackends: server.keyBackends });
  expect(r.stderr).toBe('');
}

/** openssl's OCSP client (asynchronous: the server it asks runs in this process). */
export async function ocspStatus(server: HostServer, dir: string, serial: string): Promise<string> {
  const issuer = path.join(dir, 'issuer.pem');
  fs.writeFileSync(issuer, new X509Certificate(server.intermediate.der).toString());
  const { stdout: out } = await promisify(execFile)('openssl', [
    'ocsp',
    '-issuer',
    issuer,
    '-serial',
    `0x${serial}`,
    '-url',
    `${server.url}/django_ca/ocsp/${server.intermediate.serial}/cert/`,
    '-noverify',
  ]);
  return /: (good|revoked|unknown)/.exec(out)?.[1] ?? out;
}

/** The example server on `databaseUrl` (its demo CAs made on first start), quiet, on a free port. */
export const startServer = (databaseUrl: string, dataDir: string): Promise<HostServer> =>
  startHostServer({ databaseUrl, dataDir, port: 0, keyEncryptionKey: TEST_KEK, log: () => undefined });

/** The serials of an `audit_log --format jsonl` export: every certificate the lost database knew. */
export function serialsOfExport(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .flatMap((line) => {
      const record = JSON.parse(line) as { serial: string | null };
      return record.serial ? [record.serial] : [];
    });
}

/**
 * What the restored database must do once served: its audit chain verifies, its next CRL is numbered
 * above every CRL published before (RFC 5280 §5.2.3), a new certificate gets a serial never used, and
 * OCSP answers `ocsp` (serial → status) for the certificates the test knows.
 */
export async function afterTheRestore(databaseUrl: string, work: string, seen: Seen, ocsp: Record<string, string>): Promise<void> {
  const server = await startServer(databaseUrl, path.join(work, '.ca-data-served'));
  try {
    const store = server.store;
    expect(await verifyAuditChain(store.auditLog)).toMatchObject({ intact: true });
    const highest = seen.crlNumbers.reduce((a, b) => (a > b ? a : b));
    expect(await publishCrl(server, { crlNumbers: [], serials: new Set() })).toBeGreaterThan(highest);
    const fresh = await issue(server, work, 'fresh', { crlNumbers: [], serials: new Set() });
    expect(seen.serials.has(fresh)).toBe(false);
    const answers: Record<string, string> = {};
    for (const serial of Object.keys(ocsp)) answers[serial] = await ocspStatus(server, work, serial);
    expect(answers).toEqual(ocsp);
  } finally {
    await server.close();
  }
}
