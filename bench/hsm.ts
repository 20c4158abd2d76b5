/**
 * HSM benchmark (docs/operations/hsm.md): issued certificates/s through a CA whose EC P-256 key is in
 * a SoftHSM2 token (the PKCS#11 backend) next to a CA whose key is in the default backend, in the same
 * run, on the same store (PGlite in memory), with the same CSR and concurrency. Each certificate is the
 * whole engine path (`signCert`: CSR checked, certificate built and signed, stored), so the ratio is
 * what the PKCS#11 path costs around a signature. SoftHSM2 is a software token: this measures the
 * overhead of PKCS#11 (sessions, the binding, the thread-pool hop), not a hardware HSM's speed. Bare
 * signatures/s of both signers are printed too: the PKCS#11 path's cost without the rest of issuance.
 *
 *   npm run bench:hsm        (needs softhsm2: apt-get install softhsm2)
 *
 * Ends with one line: `hsm: <n> certs/s PKCS#11, <n> certs/s default, ratio <r>`.
 */
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { monitorEventLoopDelay } from 'perf_hooks';
import { defaultKeyBackend } from '../adapters/keys';
import { pkcs11KeyBackend } from '../adapters/keys/pkcs11';
import { openDatabase } from '../adapters/store/database';
import { knexStore } from '../adapters/store/knex';
import { initCa } from '../lib/ca/authorities';
import { signCert } from '../lib/cli/certificates';
import { defaultProfiles } from '../lib/ca/profiles';
import type { CaRecord, KeyBackend, Store } from '../lib/ports';
import { benchCsrPem } from './csr';

const TOTAL = Number(process.env.HSM_TOTAL ?? 2000);
const CONCURRENCY = Number(process.env.HSM_CONCURRENCY ?? 8);
const LIBRARY = process.env.SOFTHSM2_LIBRARY ?? '/usr/lib/softhsm/libsofthsm2.so';

/** A token of the bench's own in a temporary directory (SOFTHSM2_CONF is read when the library starts). */
function softHsmToken(dir: string): { label: string; pin: string } {
  const tokens = path.join(dir, 'tokens');
  fs.mkdirSync(tokens);
  const conf = path.join(dir, 'softhsm2.conf');
  fs.writeFileSync(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env.SOFTHSM2_CONF = conf;
  const token = { label: 'bench', pin: randomBytes(8).toString('hex') };
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', token.label, '--pin', token.pin, '--so-pin', token.pin], {
    stdio: 'pipe',
  });
  return token;
}

/** Certificates/s issued by `ca`, `CONCURRENCY` at a time. */
async function issueRate(store: Store, keyBackends: Record<string, KeyBackend>, ca: CaRecord, csr: string, total: number): Promise<number> {
  const profiles = defaultProfiles();
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        next += 1;
        await signCert({ store, keyBackends, profiles, ca, csr, subject: [{ oid: '2.5.4.3', value: 'bench.example.com' }] });
      }
    }),
  );
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** Bare signatures/s of a CA's signer (SHA-256 over a certificate-sized message), `CONCURRENCY` at a time. */
async function signRate(keyBackends: Record<string, KeyBackend>, ca: CaRecord, total: number): Promise<number> {
  const signer = await keyBackends[ca.keyBackendAlias].getSigner(ca.keyBackendOptions ?? {});
  const data = randomBytes(600);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        next += 1;
        await signer.sign(data, { hash: 'SHA-256' });
      }
    }),
  );
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hsm-'));
  const token = softHsmToken(dir);
  const hsm = pkcs11KeyBackend({ library: LIBRARY, token: token.label, pin: token.pin, sessions: CONCURRENCY });
  const keyBackends: Record<string, KeyBackend> = { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }), hsm };
  const db = await openDatabase('memory://');
  const store = knexStore(db);
  try {
    await store.migrate();
    const base = { store, keyBackends, keyType: 'EC' as const, curve: 'secp256r1' as const };
    const root = await initCa({ ...base, name: 'root', subject: [{ oid: '2.5.4.3', value: 'Bench Root' }], pathLength: 1 });
    const cas: Record<'pkcs11' | 'default', CaRecord> = {
      pkcs11: await initCa({
        ...base,
        name: 'in-hsm',
        subject: [{ oid: '2.5.4.3', value: 'In HSM' }],
        parent: root,
        keyBackendAlias: 'hsm',
      }),
      default: await initCa({ ...base, name: 'in-db', subject: [{ oid: '2.5.4.3', value: 'In DB' }], parent: root }),
    };
    const csr = benchCsrPem();
    console.log(`EC P-256 intermediates, ${TOTAL} certificates each, ${CONCURRENCY} at a time (signCert: sign and store)`);
    const rates: Record<'pkcs11' | 'default', number[]> = { pkcs11: [], default: [] };
    for (const name of ['pkcs11', 'default', 'pkcs11', 'default'] as const) await issueRate(store, keyBackends, cas[name], csr, 100); // warm-up
    // Alternating rounds: a machine shared with other work slows both alike.
    for (let round = 0; round < 2; round++) {
      for (const name of ['pkcs11', 'default'] as const) {
        // The event loop's delay while issuing: the PKCS#11 calls around the (thread-pool) signature are synchronous.
        const delay = monitorEventLoopDelay({ resolution: 5 });
        delay.enable();
        const rate = await issueRate(store, keyBackends, cas[name], csr, TOTAL / 2);
        delay.disable();
        rates[name].push(rate);
        const p99 = (delay.percentile(99) / 1e6).toFixed(1);
        console.log(`  round ${round + 1} ${name.padEnd(7)} ${rate.toFixed(0)} certs/s (event-loop delay p99 ${p99} ms)`);
      }
    }
    const signatures = { pkcs11: await signRate(keyBackends, cas.pkcs11, 5000), default: await signRate(keyBackends, cas.default, 5000) };
    console.log(
      `  bare signatures: ${signatures.pkcs11.toFixed(0)}/s PKCS#11, ${signatures.default.toFixed(0)}/s default (no certificate, no store)`,
    );
    const best = (name: 'pkcs11' | 'default') => Math.max(...rates[name]);
    const ratio = best('pkcs11') / best('default');
    console.log(
      `hsm: ${best('pkcs11').toFixed(0)} certs/s PKCS#11, ${best('default').toFixed(0)} certs/s default, ratio ${ratio.toFixed(2)}`,
    );
  } finally {
    await store.close();
    hsm.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
