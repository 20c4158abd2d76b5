/**
 * A SoftHSM2 token of the test's own, in a temporary directory (SOFTHSM2_CONF points the library at a
 * config whose tokendir is that directory). Tests skip, saying why, only where softhsm2 is not
 * installed and CI is not set; in CI (.ci/run installs softhsm2 and opensc) they run.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SHARE_ENV, Worker } from 'worker_threads';

export const SOFTHSM_LIBRARY = process.env.SOFTHSM2_LIBRARY ?? '/usr/lib/softhsm/libsofthsm2.so';

function installed(): boolean {
  try {
    execFileSync('softhsm2-util', ['--version'], { stdio: 'ignore' });
    require.resolve('pkcs11js');
    return fs.existsSync(SOFTHSM_LIBRARY);
  } catch {
    return false;
  }
}

/** `describe`, or `describe.skip` with the reason printed, where SoftHSM2 is missing outside CI. */
export function describeWithSoftHsm(name: string, body: () => void): void {
  if (installed() || process.env.CI) {
    describe(name, body);
    return;
  }
  console.warn(`${name}: skipped — softhsm2 (${SOFTHSM_LIBRARY}) or pkcs11js is not installed (apt-get install softhsm2 opensc)`);
  describe.skip(name, body);
}

export interface SoftHsmToken {
  dir: string;
  label: string;
  pin: string;
  soPin: string;
  library: string;
  /** The environment that makes softhsm2-util, pkcs11-tool and the library see this token. */
  env: Record<string, string>;
  /** Remove the token's files (the token disappears for a process that reloads the library). */
  remove(): void;
  cleanup(): void;
}

/**
 * Set a variable in the process's real environment, where the library's getenv() reads it. Jest gives
 * tests a copy of process.env; a worker thread sharing the environment (SHARE_ENV) writes the real one.
 */
function setRealEnv(name: string, value: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(`process.env[${JSON.stringify(name)}] = ${JSON.stringify(value)};`, { eval: true, env: SHARE_ENV });
    worker.on('error', reject);
    worker.on('exit', () => resolve());
  });
}

/** A new token; the library must not be initialized meanwhile (SOFTHSM2_CONF is read by C_Initialize). */
export async function createSoftHsmToken(label = 'express-ca-test', pin = '4711-user-pin', soPin = '0815-so-pin'): Promise<SoftHsmToken> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'softhsm-'));
  const tokens = path.join(dir, 'tokens');
  fs.mkdirSync(tokens);
  const conf = path.join(dir, 'softhsm2.conf');
  fs.writeFileSync(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  // The library reads SOFTHSM2_CONF when it is initialized: set for this process, given to the tools.
  process.env.SOFTHSM2_CONF = conf;
  await setRealEnv('SOFTHSM2_CONF', conf);
  const env = { ...(process.env as Record<string, string>), SOFTHSM2_CONF: conf };
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', soPin], { env, stdio: 'pipe' });
  return {
    dir,
    label,
    pin,
    soPin,
    library: SOFTHSM_LIBRARY,
    env,
    remove: () => fs.rmSync(tokens, { recursive: true, force: true }),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** `pkcs11-tool --list-objects` of the token (logged in: private objects are listed too). */
export function listObjects(token: SoftHsmToken): string {
  return execFileSync(
    'pkcs11-tool',
    ['--module', token.library, '--token-label', token.label, '--login', '--pin', token.pin, '--list-objects'],
    { env: token.env, stdio: ['ignore', 'pipe', 'pipe'] },
  ).toString('utf8');
}
