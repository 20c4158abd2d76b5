/**
 * The embedded database keeps its data in a directory: write, close, reopen, read back. Also how
 * `openDatabase` reads its URL.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openDatabase, parseDatabaseUrl } from '../../adapters/store/database';
import { knexStore } from '../../adapters/store/knex';
import { newCa, newCertificate, signRequest } from './records';

describe('openDatabase URL parsing', () => {
  const saved = process.env.DATABASE_URL;
  afterEach(() => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  });

  it('sends postgres:// and postgresql:// to the pg client', () => {
    expect(parseDatabaseUrl('postgres://u:p@h/db')).toEqual({ kind: 'postgres', url: 'postgres://u:p@h/db' });
    expect(parseDatabaseUrl('postgresql://h/db')).toEqual({ kind: 'postgres', url: 'postgresql://h/db' });
  });

  it('opens memory:// and directories with PGlite', () => {
    expect(parseDatabaseUrl('memory://')).toEqual({ kind: 'pglite-memory' });
    expect(parseDatabaseUrl('/var/lib/ca')).toEqual({ kind: 'pglite-directory', directory: '/var/lib/ca' });
    expect(parseDatabaseUrl('file:///var/lib/ca')).toEqual({ kind: 'pglite-directory', directory: '/var/lib/ca' });
  });

  it('falls back to DATABASE_URL, then ./.ca-data', () => {
    process.env.DATABASE_URL = 'postgres://from-env/db';
    expect(parseDatabaseUrl()).toEqual({ kind: 'postgres', url: 'postgres://from-env/db' });
    delete process.env.DATABASE_URL;
    expect(parseDatabaseUrl()).toEqual({ kind: 'pglite-directory', directory: path.resolve('.ca-data') });
  });
});

describe('PGlite data directory', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-store-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps everything written across close and reopen', async () => {
    const location = path.join(dir, 'data');
    const ca = newCa({ name: 'persistent', apiEnabled: true });
    const cert = newCertificate(0);

    const first = knexStore(await openDatabase(location));
    await first.migrate();
    const storedCa = await first.insertCa(ca);
    const storedCert = await first.insertCertificate({ ...cert, caId: storedCa.id });
    const alice = await first.createUser('alice', 'hash', ['view_certificate']);
    const order = await first.createOrder({ caId: storedCa.id, userId: alice.id, request: signRequest() });
    await first.close();
    expect(fs.readdirSync(location).length).toBeGreaterThan(0);

    const second = knexStore(await openDatabase(location));
    await second.migrate(); // already applied: must be a no-op, not a failure
    expect(await second.getCa(storedCa.id)).toEqual(storedCa);
    expect(await second.findCertificate(storedCa.id, cert.serial)).toEqual(storedCert);
    expect(await second.findUser('alice')).toEqual(alice);
    expect(await second.getOrder(order.slug)).toEqual(order);
    await second.close();
  });
});
