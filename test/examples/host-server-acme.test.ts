/**
 * CA_ENABLE_ACME in the example server: the demo intermediate takes ACME clients (enabled, account
 * registration open, no contact needed) — made so on a new database, switched on for an existing one,
 * written once — and the server prints certbot and lego commands against its ACME directory,
 * `{base}/django_ca/acme/directory/{serial}/`. Without the switch nothing about ACME changes or is
 * printed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startChildServer, stopChild, type ChildServer } from './child-server';

// Up to four starts of the example server in one test, each several seconds on a loaded 2-core machine.
jest.setTimeout(180_000);

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'host-acme-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface CaJson {
  updated: string;
  acme_enabled: boolean;
  acme_registration: boolean;
  acme_requires_contact: boolean;
  acme_profile: string;
}

/** The demo intermediate as the REST API shows it. */
async function intermediate(server: ChildServer): Promise<CaJson> {
  const res = await fetch(`${server.apiRoot}/ca/${server.caSerial}/`, {
    headers: { Authorization: `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as CaJson;
}

const acmeFields = (ca: CaJson) => ({
  enabled: ca.acme_enabled,
  registration: ca.acme_registration,
  requiresContact: ca.acme_requires_contact,
  profile: ca.acme_profile,
});

/** Start, read the intermediate, stop. */
async function run(env: Record<string, string>): Promise<{ server: ChildServer; ca: CaJson; home: string }> {
  const server = await startChildServer(env);
  try {
    const home = await (await fetch(new URL('/', server.apiRoot))).text();
    return { server, ca: await intermediate(server), home };
  } finally {
    await stopChild(server.child);
  }
}

/** What a start with ACME on prints, for the server's base URL and the intermediate's serial. */
function expectWalkThrough(server: ChildServer, home: string): void {
  const base = new URL(server.apiRoot).origin;
  expect(server.caSerial).toMatch(/^[0-9A-F]+$/);
  const directory = `${base}/django_ca/acme/directory/${server.caSerial}/`;
  const out = server.output();
  expect(out).toContain(`ACME directory: ${directory}\n--- acme walk-through ---\n`);
  // CA_ACME_HTTP01_PORT unset: the validator's port 80, where the clients must listen (test/clients/readme-acme.test.ts runs them on another).
  expect(out).toContain(
    `\ncertbot certonly --server '${directory}' --standalone --http-01-port 80 -d demo.internal --register-unsafely-without-email --agree-tos\n`,
  );
  expect(out).toContain(
    `\nlego --server '${directory}' --email you@example.com --accept-tos --domains demo.internal --http --http.port :80 run\n--- end acme ---\n`,
  );
  // Printed before the REST walk-through, whose end is the server's "ready" line.
  expect(out.indexOf('--- end acme ---')).toBeLessThan(out.indexOf('--- walk-through ---'));
  expect(home).toContain(`ACME directory: ${directory}\n`);
}

test('off, then on for the existing demo database, then off again: the row left as it is, printed only while on', async () => {
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);

  const off = await run({ CA_DATA_DIR: data });
  expect(acmeFields(off.ca)).toEqual({ enabled: false, registration: true, requiresContact: true, profile: 'webserver' });
  expect(off.server.output()).not.toContain('ACME');
  expect(off.home).not.toContain('ACME');

  const on = await run({ CA_DATA_DIR: data, CA_ENABLE_ACME: 'true' });
  expect(on.server.caSerial).toBe(off.server.caSerial);
  expect(acmeFields(on.ca)).toEqual({ enabled: true, registration: true, requiresContact: false, profile: 'webserver' });
  expect(on.ca.updated > off.ca.updated).toBe(true);
  expectWalkThrough(on.server, on.home);

  // Off: the row stays as it is (the switch only ever turns the demo on), nothing is printed.
  const offAgain = await run({ CA_DATA_DIR: data, CA_ENABLE_ACME: 'false' });
  expect(offAgain.ca).toEqual(on.ca);
  expect(offAgain.server.output()).not.toContain('ACME');
  expect(offAgain.home).not.toContain('ACME');
});

test('on from the first start: the new intermediate takes ACME clients at once', async () => {
  const data = path.join(dir, 'first');
  fs.mkdirSync(data);
  const { server, ca, home } = await run({ CA_DATA_DIR: data, CA_ENABLE_ACME: 'yes' });
  expect(server.output()).toContain('Created in this database: Example Root, Example Intermediate, API user demo.');
  expect(acmeFields(ca)).toEqual({ enabled: true, registration: true, requiresContact: false, profile: 'webserver' });
  expectWalkThrough(server, home);
});

test('a value that is not a switch: says why and exits 1', async () => {
  const data = path.join(dir, 'bad');
  fs.mkdirSync(data);
  await expect(startChildServer({ CA_DATA_DIR: data, CA_ENABLE_ACME: 'maybe' }, undefined, { seedDatabase: false })).rejects.toThrow(
    /^server exited with 1:\nenvironment variable CA_ENABLE_ACME must be true\/false, 1\/0, yes\/no or on\/off \(got "maybe"\)\n$/,
  );
  expect(fs.readdirSync(data)).toEqual([]);
});
