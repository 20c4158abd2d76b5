/**
 * Real ACME clients — Debian's certbot and lego — against the example server (examples/host-server)
 * as a child process with CA_ENABLE_ACME: the pieces the client tests share.
 *
 * - `describeWith` (test/helpers/binaries.ts): a describe block that needs binaries, skipped outside
 *   CI when one is missing, failing in CI.
 * - `startAcmeExample`: the example server with its challenge validator pointed at the test DNS server
 *   and at the ports where the clients answer http-01 and tls-alpn-01.
 * - `run`: a client as a child process, asynchronously — the test DNS server and any proxy live in the
 *   test's own event loop, which a synchronous spawn would stop.
 * - openssl: `verify` up to the root, and `ocsp` against the URL in the certificate.
 * - DNS hooks: shell scripts for certbot's manual hooks and lego's `exec` provider that write TXT
 *   records into the file the test DNS server reads (txt-record-hook.js).
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { startChildServer, stopChild, type ChildServer } from '../examples/child-server';

// Shared with the other tests that need binaries (test/helpers/binaries.ts).
export { IN_CI, findBinary, describeWith } from '../helpers/binaries';

export interface RunResult {
  /** The exit code; null when killed (the output then ends with why). */
  code: number | null;
  /** stdout and stderr as they came. */
  out: string;
}

/** Run a command to its end (killed after `timeoutMs`); never rejects for an exit code. */
export function run(
  command: string,
  args: string[],
  o: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  // The test's environment, with `env` on top; a variable set to undefined there is left out.
  const env = Object.fromEntries(Object.entries({ ...process.env, ...o.env }).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      out += `\n[killed after ${o.timeoutMs ?? 60_000} ms]`;
      child.kill('SIGKILL');
    }, o.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** Fails the test with the command's output when it did not exit 0. */
export function expectSuccess(what: string, result: RunResult): void {
  if (result.code !== 0) throw new Error(`${what} exited with ${result.code}:\n${result.out}`);
}

/**
 * certbot against `directory`, non-interactive, with its config, work and logs directories under `home`
 * (it runs as root here, and would write /etc/letsencrypt otherwise).
 */
export function certbot(directory: string, home: string, args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  const dirs = ['config', 'work', 'logs'].flatMap((d) => [`--${d}-dir`, path.join(home, d)]);
  return run('certbot', [...args, '--server', directory, '--non-interactive', ...dirs], { env });
}

/** certbot's standalone http-01 server on 127.0.0.1:`port`, for `names`, with an account without e-mail. */
export function certbotStandaloneArgs(port: number, names: string[]): string[] {
  return [
    'certonly',
    '--standalone',
    '--http-01-port',
    String(port),
    '--http-01-address',
    '127.0.0.1',
    ...names.flatMap((n) => ['-d', n]),
    '--register-unsafely-without-email',
    '--agree-tos',
  ];
}

/** lego against `directory` with its data in `home`, registering you@example.com; `args` name the names, the challenge and the command. */
export function lego(directory: string, home: string, args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return run('lego', ['--server', directory, '--email', 'you@example.com', '--path', home, '--accept-tos', ...args], { env });
}

export interface AcmeExample {
  server: ChildServer;
  /** The demo intermediate's ACME directory, as the server printed it. */
  directory: string;
  /** The server's port on 127.0.0.1. */
  port: number;
  /** The root certificate the server wrote into its data directory. */
  rootPem: string;
  stop(): Promise<void>;
}

/**
 * The example server with ACME on, its own PGlite database in `dataDir`, and the challenge validator's
 * settings (`CA_ACME_DNS_SERVERS`, `CA_ACME_HTTP01_PORT`, `CA_ACME_TLS_ALPN01_PORT`) among `env`.
 */
export async function startAcmeExample(dataDir: string, env: Record<string, string>): Promise<AcmeExample> {
  fs.mkdirSync(dataDir, { recursive: true });
  const server = await startChildServer({ CA_DATA_DIR: dataDir, DATABASE_URL: dataDir, CA_ENABLE_ACME: 'true', ...env });
  const directory = /^ACME directory: (\S+)$/m.exec(server.output())?.[1];
  const rootPem = path.join(dataDir, 'root.pem');
  if (!directory || !fs.existsSync(rootPem)) {
    await stopChild(server.child);
    throw new Error(`no ACME directory or root.pem:\n${server.output()}`);
  }
  return { server, directory, port: Number(new URL(directory).port), rootPem, stop: () => stopChild(server.child) };
}

/** The certificate as the example server's REST API shows it (with the demo user). */
export async function restCertificate(example: AcmeExample, serial: string): Promise<{ revoked: boolean; revoked_reason: string | null }> {
  const { server } = example;
  const res = await fetch(`${server.apiRoot}/ca/${server.caSerial}/certs/${serial}/`, {
    headers: { Authorization: `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}` },
  });
  if (res.status !== 200) throw new Error(`GET certs/${serial}/: ${res.status} ${await res.text()}`);
  return (await res.json()) as { revoked: boolean; revoked_reason: string | null };
}

/** `openssl x509 -ext subjectAltName` of a PEM file (its first certificate). */
export async function subjectAltName(cert: string): Promise<string> {
  return (await run('openssl', ['x509', '-in', cert, '-noout', '-ext', 'subjectAltName'])).out;
}

/** The PEM certificates in `text`, in order. */
export function pemCertificates(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n?/g) ?? [];
}

/** `openssl verify -CAfile root -untrusted chain leaf`: its output (`leaf: OK` when it verifies). */
export async function opensslVerify(root: string, chain: string, leaf: string): Promise<string> {
  return (await run('openssl', ['verify', '-CAfile', root, '-untrusted', chain, leaf])).out;
}

/** The certificate's serial as the REST API writes it: hex, upper case, no leading zeros. */
export async function serialOf(cert: string): Promise<string> {
  const { out } = await run('openssl', ['x509', '-in', cert, '-noout', '-serial']);
  const m = /^serial=([0-9A-F]+)$/m.exec(out);
  if (!m) throw new Error(`no serial: ${out}`);
  return m[1].replace(/^0+(?=.)/, '');
}

export interface OcspAnswer {
  status: 'good' | 'revoked' | 'unknown';
  /** The reason the responder gives for a revoked certificate (`keyCompromise`), else null. */
  reason: string | null;
  out: string;
}

/**
 * Ask the OCSP responder named in the certificate's AIA (`openssl x509 -ocsp_uri`), as a relying
 * party does: `issuer` is the leaf's issuer (the first certificate of the file is used), the response
 * verified against `root` with `chain` as intermediates.
 */
export async function opensslOcsp(leaf: string, chain: string, root: string, workDir: string): Promise<OcspAnswer> {
  const url = (await run('openssl', ['x509', '-in', leaf, '-noout', '-ocsp_uri'])).out.trim();
  if (!/^http:\/\//.test(url)) throw new Error(`no OCSP URL in ${leaf}: ${url}`);
  const issuer = path.join(workDir, `ocsp-issuer-${path.basename(leaf)}.pem`);
  fs.writeFileSync(issuer, pemCertificates(fs.readFileSync(chain, 'utf8'))[0]);
  const { out } = await run('openssl', ['ocsp', '-issuer', issuer, '-cert', leaf, '-url', url, '-CAfile', root, '-verify_other', chain]);
  const status = new RegExp(`^${escapeRegExp(leaf)}: (good|revoked|unknown)$`, 'm').exec(out)?.[1];
  if (!status || !out.includes('Response verify OK')) throw new Error(`openssl ocsp (${url}):\n${out}`);
  return { status: status as OcspAnswer['status'], reason: /^\s*Reason: (\S+)$/m.exec(out)?.[1] ?? null, out };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const HOOK = path.join(__dirname, 'txt-record-hook.js');

/** A `#!/bin/sh` script at `file`, executable. */
export function writeScript(file: string, body: string): string {
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

/** A shell word: `'…'` with any `'` inside closed and reopened. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * certbot's `--manual-auth-hook` and `--manual-cleanup-hook`: the TXT record
 * `_acme-challenge.$CERTBOT_DOMAIN` = `$CERTBOT_VALIDATION`, added and removed in `recordsFile`.
 */
export function certbotDnsHooks(dir: string, recordsFile: string): { auth: string; cleanup: string } {
  const hook = (action: string) =>
    `exec ${shellQuote(process.execPath)} ${shellQuote(HOOK)} ${shellQuote(recordsFile)} ${action} "_acme-challenge.$CERTBOT_DOMAIN" "$CERTBOT_VALIDATION"`;
  return {
    auth: writeScript(path.join(dir, 'certbot-auth-hook.sh'), hook('add')),
    cleanup: writeScript(path.join(dir, 'certbot-cleanup-hook.sh'), hook('remove')),
  };
}

/** lego's `EXEC_PATH`: called as `present|cleanup <fqdn> <value>`. */
export function legoExecScript(dir: string, recordsFile: string): string {
  return writeScript(
    path.join(dir, 'lego-exec.sh'),
    `exec ${shellQuote(process.execPath)} ${shellQuote(HOOK)} ${shellQuote(recordsFile)} "$1" "$2" "$3"`,
  );
}

/** The hook calls so far (`<action> <name> <value>` lines of txt-record-hook.js). */
export function hookCalls(recordsFile: string): string[] {
  try {
    return fs.readFileSync(`${recordsFile}.log`, 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** Every file under `dir` (relative paths), for "no certificate was written". */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** The files under `dir` that hold a PEM certificate. */
export function certificateFilesUnder(dir: string): string[] {
  return filesUnder(dir).filter((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes('-----BEGIN CERTIFICATE-----'));
}

/**
 * A TLS CA and a server certificate it issued for localhost and 127.0.0.1 (openssl, P-256, 2 days),
 * for the example server's TLS_CERT_FILE/TLS_KEY_FILE or a proxy; the clients trust `ca`.
 */
export async function makeTlsServerCertificate(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const file = (name: string) => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const openssl = async (args: string[]) => expectSuccess(`openssl ${args[0]}`, await run('openssl', args));
  await openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('tls-ca.key'),
    '-out',
    file('tls-ca.pem'),
    '-subj',
    '/CN=Test TLS CA',
    '-days',
    '2',
  ]);
  await openssl(['req', '-new', ...ec, '-keyout', file('tls-server.key'), '-out', file('tls-server.csr'), '-subj', '/CN=localhost']);
  fs.writeFileSync(file('tls-server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  await openssl([
    'x509',
    '-req',
    '-in',
    file('tls-server.csr'),
    '-CA',
    file('tls-ca.pem'),
    '-CAkey',
    file('tls-ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('tls-server.ext'),
    '-out',
    file('tls-server.pem'),
  ]);
  return { ca: file('tls-ca.pem'), cert: file('tls-server.pem'), key: file('tls-server.key') };
}

/** What a revocation must show, wherever it was made: OCSP through the server (openssl) and the REST inventory agree on the reason. */
export async function expectRevokedEverywhere(
  example: AcmeExample,
  certificate: { cert: string; chain: string; serial: string; workDir: string },
  reason: { ocsp: string; rest: string },
): Promise<void> {
  const ocsp = await opensslOcsp(certificate.cert, certificate.chain, example.rootPem, certificate.workDir);
  expect({ status: ocsp.status, reason: ocsp.reason }).toEqual({ status: 'revoked', reason: reason.ocsp });
  expect(await restCertificate(example, certificate.serial)).toMatchObject({ revoked: true, revoked_reason: reason.rest });
}
