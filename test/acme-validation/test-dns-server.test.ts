/**
 * The test DNS server of test/helpers/dns-server.ts, asked by Node's own resolver (c-ares) and, for
 * what a resolver hides (flags, the echoed question, EDNS), by hand over UDP.
 */
import * as dgram from 'dgram';
import { promises as dns } from 'dns';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startDnsServer, TYPE, type TestDnsServer } from '../helpers/dns-server';

let server: TestDnsServer;
let resolver: dns.Resolver;

beforeAll(async () => {
  server = await startDnsServer({ zones: ['zone.test'] });
  resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([server.address]);
});
afterAll(() => server.close());

async function dnsError(query: Promise<unknown>): Promise<string | undefined> {
  try {
    await query;
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
}

/** A query message by hand: id 0x1234, RD, one question, with an OPT record when `edns`. */
function query(name: string, type: number, edns: boolean): Buffer {
  const header = Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, edns ? 1 : 0]);
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(1, 2);
  // OPT: root, type 41, UDP size 4096, TTL 0, one option (a DNS cookie, RFC 7873) the server must ignore.
  const cookie = Buffer.from([0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]);
  const opt = Buffer.concat([Buffer.from([0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, cookie.length]), cookie]);
  return Buffer.concat([header, ...labels, Buffer.from([0]), tail, ...(edns ? [opt] : [])]);
}

async function ask(message: Buffer): Promise<Buffer> {
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      socket.once('message', resolve);
      socket.once('error', reject);
      socket.send(message, server.port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

describe('records', () => {
  test('A, AAAA and TXT records, names in any case, with or without the trailing dot', async () => {
    server.setA('Host.Test.', ['127.0.0.1', '127.0.0.2']);
    server.setAAAA('host.test', ['::1']);
    server.setTxt('host.test', ['hello', ['two', ' strings']]);
    expect((await resolver.resolve4('HOST.test')).sort()).toEqual(['127.0.0.1', '127.0.0.2']);
    expect(await resolver.resolve6('host.test.')).toEqual(['::1']);
    expect((await resolver.resolveTxt('host.test')).sort()).toEqual([['hello'], ['two', ' strings']]);
    expect(server.queries).toContainEqual(expect.objectContaining({ name: 'host.test', type: TYPE.TXT }));
  });

  test('NXDOMAIN for an unknown name; an empty NOERROR answer for a known name without the type', async () => {
    server.setTxt('_acme-challenge.only-txt.test', ['x']);
    expect(await dnsError(resolver.resolve4('unknown.test'))).toBe('ENOTFOUND');
    expect(await dnsError(resolver.resolve4('_acme-challenge.only-txt.test'))).toBe('ENODATA');
    // A name with names below it exists, without records of its own (RFC 8020).
    expect(await dnsError(resolver.resolveTxt('only-txt.test'))).toBe('ENODATA');
  });

  test('clear forgets the records of a name', async () => {
    server.setA('gone.test', ['127.0.0.9']);
    expect(await resolver.resolve4('gone.test')).toEqual(['127.0.0.9']);
    server.clear('gone.test');
    expect(await dnsError(resolver.resolve4('gone.test'))).toBe('ENOTFOUND');
  });

  test('a TXT value longer than 255 bytes is split into character-strings', async () => {
    const long = 'x'.repeat(600);
    server.setTxt('long.test', [long]);
    const [record] = await resolver.resolveTxt('long.test');
    expect(record.map((s) => s.length)).toEqual([255, 255, 90]);
    expect(record.join('')).toBe(long);
  });

  test('an answer too large for UDP is truncated, and the resolver gets it over TCP', async () => {
    const values = Array.from({ length: 40 }, (_, i) => `${i}-${'v'.repeat(100)}`);
    server.setTxt('many.test', values);
    const answer = await resolver.resolveTxt('many.test');
    expect(answer.map((r) => r.join('')).sort()).toEqual([...values].sort());
    const asked = server.queries.filter((q) => q.name === 'many.test').map((q) => q.transport);
    expect(asked).toEqual(['udp', 'tcp']);
  });

  test('SOA at the apex of a configured zone', async () => {
    const soa = await resolver.resolveSoa('zone.test');
    expect(soa).toMatchObject({ nsname: 'ns.zone.test', hostmaster: 'hostmaster.zone.test', minttl: 0 });
    expect(await dnsError(resolver.resolveSoa('other.test'))).toBe('ENOTFOUND');
  });
});

describe('the wire', () => {
  test('AA set, the question echoed as received, an OPT record answered with one, its options ignored', async () => {
    server.setA('echo.test', ['127.0.0.3']);
    const reply = await ask(query('EcHo.TeSt', TYPE.A, true));
    expect(reply.readUInt16BE(0)).toBe(0x1234);
    expect(reply[2] & 0x80).toBe(0x80); // QR
    expect(reply[2] & 0x04).toBe(0x04); // AA
    expect(reply[3] & 0x0f).toBe(0); // NOERROR
    expect([4, 6, 8, 10].map((i) => reply.readUInt16BE(i))).toEqual([1, 1, 0, 1]);
    expect(reply.subarray(12, 12 + 11).toString('latin1')).toBe('\x04EcHo\x04TeSt\x00');
    expect(reply.subarray(reply.length - 11 - 4, reply.length - 11)).toEqual(Buffer.from([127, 0, 0, 3])); // the A record's RDATA, before the OPT
    expect(reply.readUInt16BE(reply.length - 11 + 1)).toBe(TYPE.OPT);
  });

  test('no OPT in the answer to a query without one', async () => {
    const reply = await ask(query('echo.test', TYPE.A, false));
    expect(reply.readUInt16BE(10)).toBe(0);
  });

  test('FORMERR for a message that is not a query of one question', async () => {
    const bad = query('echo.test', TYPE.A, false);
    bad.writeUInt16BE(2, 4); // two questions announced, one sent
    const reply = await ask(bad);
    expect(reply.readUInt16BE(0)).toBe(0x1234);
    expect(reply[3] & 0x0f).toBe(1);
  });
});

describe('recordsFile', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dns-records-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('records written to the file by another process are answered, and changes seen at the next query', async () => {
    const file = path.join(dir, 'records.json');
    const fromFile = await startDnsServer({ recordsFile: file });
    const r = new dns.Resolver({ timeout: 2000, tries: 1 });
    r.setServers([fromFile.address]);
    try {
      expect(await dnsError(r.resolveTxt('_acme-challenge.hook.test'))).toBe('ENOTFOUND'); // no file yet
      fs.writeFileSync(file, JSON.stringify({ '_ACME-challenge.hook.test.': { TXT: ['first'] }, 'hook.test': { A: ['127.0.0.5'] } }));
      expect(await r.resolveTxt('_acme-challenge.hook.test')).toEqual([['first']]);
      expect(await r.resolve4('hook.test')).toEqual(['127.0.0.5']);
      // Written elsewhere and renamed over it, as a hook script should.
      fs.writeFileSync(`${file}.new`, JSON.stringify({ '_acme-challenge.hook.test': { TXT: ['second', 'third'] } }));
      fs.renameSync(`${file}.new`, file);
      expect((await r.resolveTxt('_acme-challenge.hook.test')).sort()).toEqual([['second'], ['third']]);
      // Half written: the last good content stands.
      fs.writeFileSync(file, '{ "_acme-challenge.hook.test": { "TXT": [');
      expect((await r.resolveTxt('_acme-challenge.hook.test')).sort()).toEqual([['second'], ['third']]);
      // Records set by the test and from the file are both answered.
      fromFile.setTxt('_acme-challenge.hook.test', ['from the test']);
      expect((await r.resolveTxt('_acme-challenge.hook.test')).sort()).toEqual([['from the test'], ['second'], ['third']]);
    } finally {
      await fromFile.close();
    }
  });
});
