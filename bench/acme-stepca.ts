/**
 * smallstep's step-ca (0.19, built from Debian's Go sources: docs/CONTRIBUTING.md "step-ca for
 * bench:acme") as an anchor of bench/acme.ts: the production ACME CA a user would pick instead of ours,
 * with a durable store on disk (BadgerDB v2, which does not fsync each write by default; PostgreSQL does).
 *
 * Started from STEPCA_BIN with a configuration written here into `dir`: the bench's TLS CA (bench/tls.ts)
 * as its root, a P-256 intermediate made with `openssl` under it (so the load client, which trusts that
 * CA alone, trusts step-ca's HTTPS certificate, issued by the intermediate at start-up), one ACME
 * provisioner, `badgerv2` in `dir/db`, a free loopback port. `--resolver` sends its validator's DNS
 * lookups to the load client's DNS server; it fetches http-01 answers on port 80, always, so the
 * load client's responder must listen there too (AcmeLoader.setup's `port80`).
 */
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const STEPCA_BIN = process.env.STEPCA_BIN;

export interface StepCa {
  pid: number;
  directory: string;
  stop(): Promise<void>;
}

const INTERMEDIATE_EXTENSIONS = [
  'basicConstraints = critical, CA:TRUE, pathlen:0',
  'keyUsage = critical, digitalSignature, keyCertSign, cRLSign',
  'subjectKeyIdentifier = hash',
  'authorityKeyIdentifier = keyid:always',
].join('\n');

/** An intermediate CA under the TLS CA (`caFile`, `caKey`), in `dir`. */
function makeIntermediate(dir: string, caFile: string, caKey: string): { crt: string; key: string } {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file('intermediate.key'));
  openssl(
    'req',
    '-new',
    '-key',
    file('intermediate.key'),
    '-subj',
    '/O=bench/CN=bench step-ca intermediate',
    '-out',
    file('intermediate.csr'),
  );
  fs.writeFileSync(file('intermediate.ext'), `${INTERMEDIATE_EXTENSIONS}\n`);
  openssl(
    'x509', '-req', '-in', file('intermediate.csr'), '-CA', caFile, '-CAkey', caKey, '-CAcreateserial', '-sha256',
    '-days', '2', '-extfile', file('intermediate.ext'), '-out', file('intermediate.crt'),
  ); // prettier-ignore
  fs.chmodSync(file('intermediate.key'), 0o600);
  return { crt: file('intermediate.crt'), key: file('intermediate.key') };
}

/** step-ca on 127.0.0.1:`port`, its files in `dir` (fresh: one running step-ca per database directory). */
export async function startStepCa(
  bin: string,
  dir: string,
  tls: { caFile: string; caKey: string },
  port: number,
  dnsServer: string,
): Promise<StepCa> {
  fs.mkdirSync(dir, { recursive: true });
  const intermediate = makeIntermediate(dir, tls.caFile, tls.caKey);
  const config = path.join(dir, 'ca.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      root: tls.caFile,
      crt: intermediate.crt,
      key: intermediate.key,
      address: `127.0.0.1:${port}`,
      dnsNames: ['localhost', '127.0.0.1'],
      db: { type: 'badgerv2', dataSource: path.join(dir, 'db'), badgerFileLoadingMode: '' },
      authority: { provisioners: [{ type: 'ACME', name: 'acme' }] },
      tls: { minVersion: 1.2, maxVersion: 1.3, renegotiation: false },
    }),
  );
  // No `logger` in the configuration: no line per request (0.19 still prints each ACME answer to stderr).
  const logFile = path.join(dir, 'step-ca.log');
  const log = fs.openSync(logFile, 'w');
  const child = spawn(bin, [config, '--resolver', dnsServer], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); // badger closes cleanly
    await exited;
  };
  let error: Error | null = null;
  child.once('error', (e) => (error = e));
  for (let waited = 0; ; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    const out = fs.readFileSync(logFile, 'utf8');
    if (/Serving HTTPS on/.test(out)) break;
    if (error || child.exitCode !== null || waited > 30_000) {
      await stop();
      throw new Error(`step-ca did not start (${String(error ?? `exit ${child.exitCode}`)}):\n${out.slice(-2000)}`);
    }
  }
  return { pid: child.pid!, directory: `https://127.0.0.1:${port}/acme/acme/directory`, stop };
}
