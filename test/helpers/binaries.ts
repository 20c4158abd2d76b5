/**
 * Tests that need programs of the system (Debian's certbot, lego, openssl, promtool): `describeWith`
 * is a describe block that needs them. Outside CI a missing one skips the block, saying why in its
 * title; in CI (`CI=true`) it fails: .ci/run installs them, and a test that CI skips is a test nobody
 * runs.
 */
import * as fs from 'fs';
import * as path from 'path';

export const IN_CI = process.env.CI === 'true';

/** The Debian package of a program, where its name is not the program's. */
const DEBIAN_PACKAGE: Record<string, string> = { promtool: 'prometheus', pki: 'strongswan-pki', scepclient: 'scep' };

/** Where `name` is on PATH, or null. */
export function findBinary(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * `describe(title, fn)` when every binary is on PATH. Otherwise, in CI, a block whose one test fails
 * naming what is missing; outside CI, the block skipped with the reason in its title.
 */
export function describeWith(binaries: string[], title: string, fn: () => void): void {
  const missing = binaries.filter((b) => findBinary(b) === null);
  if (missing.length === 0) {
    describe(title, fn);
    return;
  }
  const reason = `${missing.join(' and ')} not found on PATH (Debian: apt-get install ${missing.map((b) => DEBIAN_PACKAGE[b] ?? b).join(' ')})`;
  if (IN_CI) {
    describe(title, () => {
      test(`${missing.join(' and ')} installed`, () => {
        throw new Error(`${reason}. CI (CI=true) must run these tests: .ci/run installs the packages.`);
      });
    });
    return;
  }
  console.warn(`${title}: skipped, ${reason}`);
  describe.skip(`${title} (skipped: ${reason})`, fn);
}
