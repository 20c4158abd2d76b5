/**
 * `npm install` in a fresh clone leaves the checkout clean: the npm this project is developed with
 * (npm 11) rewrites package-lock.json whenever the committed one is not what it would write itself —
 * as it did while pkcs11js, an optionalDependency, was also listed among the root's `dependencies`.
 * Here npm resolves package.json + package-lock.json in a scratch directory
 * (`--package-lock-only --ignore-scripts`: no node_modules, no install scripts; `--prefer-offline`:
 * from npm's cache where it can) and the lockfile it writes must be the committed one, byte for byte.
 * `npm ci` never writes the lockfile, and refuses one that disagrees with package.json.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ROOT } from './working-copy';

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eca-lockfile-'));
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('npm install writes back package-lock.json exactly as committed', () => {
  execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 240_000,
  });
  const committed = fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8');
  const written = fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
  expect(written).toBe(committed);
}, 300_000);

test('the lockfile lists an optional dependency of the root only as optional', () => {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
  };
  const root = lock.packages[''];
  for (const name of Object.keys(root.optionalDependencies ?? {})) expect(root.dependencies ?? {}).not.toHaveProperty(name);
});
