/**
 * What the README's walk-throughs make inside a checkout stays out of git: the example server's
 * `.ca-data/` and the HSM walk-through's SoftHSM2 token in `softhsm/` (README "Keys in an HSM").
 * The paths are read from the README's own commands, and `git check-ignore` answers as git would.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ROOT } from './working-copy';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The folders the README's `mkdir -p` commands make relative to the current directory. */
const madeByReadme = [...readme.matchAll(/^mkdir -p ([^\s/$][^\s]*)/gm)].map((m) => m[1]);

const ignored = (file: string): boolean => {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', file], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

test("the HSM walk-through's token folder is among the folders the README makes", () => {
  expect(madeByReadme).toContain('softhsm/tokens');
});

test.each([...madeByReadme.map((dir) => `${dir}/token-file`), 'softhsm/softhsm2.conf', '.ca-data/PG_VERSION'])(
  '%s is ignored by git',
  (file) => {
    expect(ignored(file)).toBe(true);
  },
);
