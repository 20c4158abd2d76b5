/**
 * A line of the machine's /etc/hosts for the length of a test, for tests of "resolves the way the
 * host does" (the ACME validator without CA_ACME_DNS_SERVERS, docs/guides/acme.md). Only as root, which CI
 * is (.ci/run); outside CI a test that needs it is skipped. Only the test's own line is ever removed,
 * so other lines — another test's included — are left as they were.
 */
import * as fs from 'fs';

export const HOSTS_FILE = '/etc/hosts';

/** Why /etc/hosts cannot be changed here, or null when it can. */
export function hostsFileUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'not root: /etc/hosts cannot be changed';
  try {
    fs.accessSync(HOSTS_FILE, fs.constants.W_OK);
    return null;
  } catch (e) {
    return `${HOSTS_FILE} is not writable: ${(e as Error).message}`;
  }
}

/** `describe`, or, when /etc/hosts cannot be changed, a failing test in CI and a skipped block elsewhere. */
export function describeWithHostsFile(title: string, fn: () => void): void {
  const reason = hostsFileUnavailable();
  if (reason === null) return describe(title, fn);
  if (process.env.CI === 'true') {
    return describe(title, () => {
      test('/etc/hosts can be changed', () => {
        throw new Error(`${reason}. CI (CI=true) runs as root and must run these tests.`);
      });
    });
  }
  console.warn(`${title}: skipped, ${reason}`);
  describe.skip(`${title} (skipped: ${reason})`, fn);
}

/** Removes every line of /etc/hosts that is exactly `line` (what a test or the README recipe added). */
export function removeHostsLine(line: string): void {
  const text = fs.readFileSync(HOSTS_FILE, 'utf8');
  const kept = text.split('\n').filter((l) => l.trim() !== line.trim());
  if (kept.length !== text.split('\n').length) fs.writeFileSync(HOSTS_FILE, kept.join('\n'));
}

/** Appends `address name` to /etc/hosts; the line, for `removeHostsLine`. */
export function addHostsLine(address: string, name: string): string {
  const line = `${address} ${name}`;
  const text = fs.readFileSync(HOSTS_FILE, 'utf8');
  fs.appendFileSync(HOSTS_FILE, `${text.endsWith('\n') || text === '' ? '' : '\n'}${line}\n`);
  return line;
}
