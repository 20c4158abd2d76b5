/** ca-admin as a real process on an embedded PGlite directory: exit codes, stderr, persistence. */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { TEST_KEK } from './helpers';
import { tmpDir } from './openssl';

const ROOT = path.resolve(__dirname, '../..');
let dir: string;
beforeAll(() => {
  dir = tmpDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function caAdmin(args: string[]) {
  const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(ROOT, 'lib/cli/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: path.join(dir, 'data'), CA_KEY_ENCRYPTION_KEY: TEST_KEK },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

it('a second process sees the first one\'s writes; errors are one line with a non-zero exit', () => {
  const init = caAdmin(['init_ca', '--key-type', 'Ed25519', 'Proc', 'CN=proc.example.com']);
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);
  expect(init.stdout).toMatch(/^([0-9A-F]{2}:)+[0-9A-F]{2}\n$/);

  const list = caAdmin(['list_cas']);
  expect(list.code).toBe(0);
  expect(list.stdout).toBe(`${init.stdout.trim()} - Proc\n`);

  const bad = caAdmin(['init_ca', '--key-type', 'RSA', '--key-size', '1024', 'Weak', 'CN=weak.example.com']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toBe('Error: 1024: Key size must be at least 2048 bits.\n');
});
