/**
 * `ca-admin` without CA_KEY_ENCRYPTION_KEY on the example server's data (docs/guides/getting-started.md):
 * the server encrypted its CA keys under the development key it keeps in the data directory, and a
 * new key would open none of them, so the error names that file and the line that uses it — which,
 * run as printed, makes the command work. The data directory is made by the example server's own
 * code; `ca-admin` runs as a real process.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { startHostServer } from '../../examples/host-server/server';
import { opensslCsr, tmpDir } from './openssl';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '../..');
const TS_REGISTER = path.join(ROOT, 'test/helpers/ts-register-cached.js');
const MAIN = path.join(ROOT, 'lib/cli/main.ts');

let dir: string;
let csr: string;
beforeAll(async () => {
  dir = tmpDir('dev-kek-');
  csr = opensslCsr(dir, 'leaf');
  // The example server's default data directory, made by the server itself, without a key of ours.
  const saved = process.env.CA_KEY_ENCRYPTION_KEY;
  delete process.env.CA_KEY_ENCRYPTION_KEY;
  try {
    const server = await startHostServer({ dataDir: path.join(dir, '.ca-data'), port: 0, log: () => undefined });
    await server.close();
  } finally {
    if (saved !== undefined) process.env.CA_KEY_ENCRYPTION_KEY = saved;
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The environment of an operator's shell that has no key-encryption key, database or data directory set. */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['CA_KEY_ENCRYPTION_KEY', 'DATABASE_URL', 'CA_DATA_DIR']) if (!(name in extra)) delete env[name];
  return env;
}

function caAdmin(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, ['-r', TS_REGISTER, MAIN, ...args], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const SIGN = ['sign_cert', '--ca', 'Example Intermediate', '--subject', 'CN=dev-kek.example.com', '--csr'];

test('the error names the development key and the export line; run as printed, the command works', () => {
  const failed = caAdmin([...SIGN, csr], shellEnv());
  const exportLine = 'export CA_KEY_ENCRYPTION_KEY=$(cat .ca-data/dev-key-encryption-key)';
  expect(failed).toMatchObject({ code: 1, stdout: '' });
  expect(failed.stderr).toBe(
    "Error: No key-encryption key: CA_KEY_ENCRYPTION_KEY is not set, and the data directory holds the example server's " +
      'development key-encryption key, .ca-data/dev-key-encryption-key, which its CA keys are encrypted under. ' +
      `Use it: ${exportLine}\n`,
  );
  expect(failed.stderr).not.toContain('openssl rand');

  const script = `${exportLine}\n"${process.execPath}" -r "${TS_REGISTER}" "${MAIN}" ${SIGN.map((a) => `'${a}'`).join(' ')} '${csr}'`;
  const signed = execFileSync('bash', ['-e', '-c', script], { cwd: dir, env: shellEnv(), encoding: 'utf8' });
  expect(signed).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
});

test('CA_DATA_DIR elsewhere: the message names that directory', () => {
  const moved = path.join(dir, 'moved data');
  fs.cpSync(path.join(dir, '.ca-data'), moved, { recursive: true });
  const failed = caAdmin([...SIGN, csr], shellEnv({ CA_DATA_DIR: moved, DATABASE_URL: moved }));
  expect(failed.code).toBe(1);
  expect(failed.stderr).toContain(`Use it: export CA_KEY_ENCRYPTION_KEY=$(cat '${path.join(moved, 'dev-key-encryption-key')}')\n`);
});

test('a data directory without a development key: the general advice, as before', () => {
  const empty = path.join(dir, 'no-key');
  fs.cpSync(path.join(dir, '.ca-data'), empty, { recursive: true });
  fs.rmSync(path.join(empty, 'dev-key-encryption-key'));
  const failed = caAdmin([...SIGN, csr], shellEnv({ CA_DATA_DIR: empty, DATABASE_URL: empty }));
  expect(failed.code).toBe(1);
  expect(failed.stderr).toContain('openssl rand -base64 32');
  expect(failed.stderr).not.toContain('dev-key-encryption-key');
});
