/**
 * What the documentation's walk-throughs make inside a checkout stays out of git: the example server's
 * `.ca-data/` and the HSM walk-through's SoftHSM2 token in `softhsm/` (docs/operations/hsm.md).
 * The paths are read from the README's own commands (README and docs/), and `git check-ignore` answers as git would.
 */
import { execFileSync } from 'child_process';
import { ROOT } from './working-copy';
import { allDocs } from '../helpers/docs';

const readme = allDocs();

/**
 * The folders the documentation's `mkdir -p` commands (README and docs/) make relative to the current
 * directory: not an absolute path, nor one a variable names (`mkdir -p "$ARCHIVE"`, quoted or not).
 */
const madeByReadme = [...readme.matchAll(/^mkdir -p (?!["']?\$)([^\s/][^\s]*)/gm)].map((m) => m[1]);

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
