/**
 * A tiny authoritative DNS server for tests (RFC 1035 wire format over UDP, and TCP on the same port
 * for answers that do not fit a datagram): A, AAAA and TXT records set by the test or read from a JSON
 * file, SOA for the zones it is told about, NXDOMAIN for names it does not know and an empty NOERROR
 * answer for a known name without the type asked.
 *
 * Good enough for real resolvers: Node's c-ares, lego's and certbot's. It echoes the question as
 * received (case included, for resolvers that randomise it), sets AA, answers EDNS queries with an
 * OPT record of its own (RFC 6891 §7) and ignores the options in theirs, and truncates (TC) a UDP
 * answer that does not fit so that the resolver asks again over TCP. TTLs are 0: no resolver keeps an
 * answer the test is about to change.
 *
 * `recordsFile`: a JSON file `{ "name": { "A": [...], "AAAA": [...], "TXT": [...] } }` (names in any
 * case, trailing dot or not; a TXT value is a string or an array of strings, one record of several
 * character-strings), read again on every query, so that an outside process — certbot's manual auth
 * hook, say — adds records by writing the file (best by writing another file and renaming it over this
 * one). A file that is missing or not JSON (half written) counts as the last good content it had.
 */
import * as dgram from 'dgram';
import * as fs from 'fs';
import * as net from 'net';
import { encodeIpBytes } from '../../lib/x509/ip-address';

export type TxtValue = string | string[];

export interface DnsRecords {
  A?: string[];
  AAAA?: string[];
  TXT?: TxtValue[];
}

export interface DnsServerOptions {
  /** 0 (default): any free port, the same for UDP and TCP. */
  port?: number;
  recordsFile?: string;
  /** Zone apexes answered with an SOA record (lego finds a name's zone by asking for SOA records). */
  zones?: string[];
}

export interface TestDnsServer {
  port: number;
  host: '127.0.0.1';
  /** `127.0.0.1:port`, as `dnsServers` and `dns.Resolver.setServers` take it. */
  address: string;
  setA(name: string, ips: string[]): void;
  setAAAA(name: string, ips: string[]): void;
  setTxt(name: string, values: TxtValue[]): void;
  /** Forget every record of `name` set by the test (not those of the records file). */
  clear(name: string): void;
  /** Questions received, in order (name in lower case without the trailing dot, type as a number). */
  queries: ReceivedQuery[];
  close(): Promise<void>;
}

export interface ReceivedQuery {
  name: string;
  type: number;
  transport: 'udp' | 'tcp';
  /** Whether the query carried an OPT record (EDNS, RFC 6891). */
  edns: boolean;
}

export const TYPE = { A: 1, NS: 2, SOA: 6, TXT: 16, AAAA: 28, OPT: 41 } as const;
const CLASS_IN = 1;
const RCODE = { NOERROR: 0, FORMERR: 1, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
const UDP_LIMIT = 512; // RFC 1035 §4.2.1, without EDNS
const EDNS_UDP_SIZE = 1232; // what we announce and the most we send (the DNS flag day 2020 value)

export function normalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

export async function startDnsServer(options: DnsServerOptions = {}): Promise<TestDnsServer> {
  const records = new Map<string, DnsRecords>();
  const zones = new Set((options.zones ?? []).map(normalName));
  const queries: ReceivedQuery[] = [];
  const file = options.recordsFile ? recordsFileReader(options.recordsFile) : null;

  const answer = async (message: Buffer, transport: 'udp' | 'tcp'): Promise<Buffer | null> => {
    const all = new Map(records);
    if (file) for (const [name, r] of await file()) all.set(name, merge(all.get(name), r));
    return respond(message, transport, all, zones, queries);
  };

  const { udp, tcp } = await bindBoth(options.port ?? 0, answer);
  const port = (udp.address() as net.AddressInfo).port;
  const set = (type: keyof DnsRecords) => (name: string, values: unknown[]) => {
    const key = normalName(name);
    records.set(key, { ...records.get(key), [type]: [...values] });
  };
  return {
    port,
    host: '127.0.0.1',
    address: `127.0.0.1:${port}`,
    setA: set('A'),
    setAAAA: set('AAAA'),
    setTxt: set('TXT'),
    clear: (name) => void records.delete(normalName(name)),
    queries,
    close: () =>
      new Promise<void>((resolve) => {
        udp.close();
        tcp.close(() => resolve());
      }),
  };
}

function merge(a: DnsRecords | undefined, b: DnsRecords): DnsRecords {
  if (!a) return b;
  return { A: [...(a.A ?? []), ...(b.A ?? [])], AAAA: [...(a.AAAA ?? []), ...(b.AAAA ?? [])], TXT: [...(a.TXT ?? []), ...(b.TXT ?? [])] };
}

function recordsFileReader(path: string): () => Promise<Map<string, DnsRecords>> {
  let last = new Map<string, DnsRecords>();
  return async () => {
    try {
      const parsed = JSON.parse(await fs.promises.readFile(path, 'utf8')) as Record<string, DnsRecords>;
      last = new Map(Object.entries(parsed).map(([name, r]) => [normalName(name), r]));
    } catch {
      // Missing or half written: keep what it said last.
    }
    return last;
  };
}

/** UDP and TCP on one port; with port 0, tries again when the UDP port's TCP twin is taken. */
async function bindBoth(
  port: number,
  answer: (message: Buffer, transport: 'udp' | 'tcp') => Promise<Buffer | null>,
): Promise<{ udp: dgram.Socket; tcp: net.Server }> {
  for (let attempt = 0; ; attempt++) {
    const udp = dgram.createSocket('udp4');
    udp.on('message', (message, peer) => {
      void answer(message, 'udp').then((reply) => reply && udp.send(reply, peer.port, peer.address));
    });
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(port, '127.0.0.1', () => resolve());
    });
    const tcp = net.createServer((socket) => serveTcp(socket, answer));
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen((udp.address() as net.AddressInfo).port, '127.0.0.1', () => resolve());
      });
      return { udp, tcp };
    } catch (e) {
      udp.close();
      if (port !== 0 || attempt >= 10) throw e;
    }
  }
}

/** RFC 1035 §4.2.2: each message prefixed with its two-byte length; several per connection. */
function serveTcp(socket: net.Socket, answer: (message: Buffer, transport: 'udp' | 'tcp') => Promise<Buffer | null>): void {
  let buffered = Buffer.alloc(0);
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
      const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
      buffered = buffered.subarray(2 + message.length);
      void answer(message, 'tcp').then((reply) => {
        if (!reply || socket.destroyed) return;
        const length = Buffer.alloc(2);
        length.writeUInt16BE(reply.length);
        socket.write(Buffer.concat([length, reply]));
      });
    }
  });
}

interface Question {
  /** QNAME as received (its case too), QTYPE and QCLASS. */
  raw: Buffer;
  name: string;
  type: number;
  klass: number;
}

/** The answer to one query message, or null when it is not worth one (no header, or a response). */
export function respond(
  message: Buffer,
  transport: 'udp' | 'tcp',
  records: ReadonlyMap<string, DnsRecords>,
  zones: ReadonlySet<string>,
  queries: ReceivedQuery[] = [],
): Buffer | null {
  if (message.length < 12 || message[2] & 0x80) return null;
  const id = message.readUInt16BE(0);
  const opcode = (message[2] >> 3) & 0x0f;
  const rd = message[2] & 0x01;
  const header = (rcode: number, counts: [number, number, number, number], tc = false): Buffer => {
    const h = Buffer.alloc(12);
    h.writeUInt16BE(id, 0);
    h[2] = 0x80 | (opcode << 3) | 0x04 | (tc ? 0x02 : 0) | rd; // QR, opcode, AA, TC, RD
    h[3] = rcode; // RA = 0: not a recursive resolver
    counts.forEach((c, i) => h.writeUInt16BE(c, 4 + i * 2));
    return h;
  };
  let question: Question;
  let edns: boolean;
  try {
    if (message.readUInt16BE(4) !== 1) throw new Error('one question per query');
    question = readQuestion(message, 12);
    edns = hasOpt(message, 12 + question.raw.length);
  } catch {
    return header(RCODE.FORMERR, [0, 0, 0, 0]);
  }
  queries.push({ name: question.name, type: question.type, transport, edns });
  const opt = edns ? [optRecord()] : [];
  const reply = (rcode: number, answers: Buffer[], authority: Buffer[] = []): Buffer => {
    const full = Buffer.concat([
      header(rcode, [1, answers.length, authority.length, opt.length]),
      question.raw,
      ...answers,
      ...authority,
      ...opt,
    ]);
    const limit = edns ? EDNS_UDP_SIZE : UDP_LIMIT;
    if (transport === 'tcp' || full.length <= limit) return full;
    return Buffer.concat([header(rcode, [1, 0, 0, opt.length], true), question.raw, ...opt]);
  };
  if (opcode !== 0) return reply(RCODE.NOTIMP, []);
  if (question.klass !== CLASS_IN) return reply(RCODE.REFUSED, []);

  const zone = [...zones].find((z) => question.name === z || question.name.endsWith(`.${z}`));
  const soa = zone ? [resourceRecord(TYPE.SOA, soaData(zone), encodeName(zone))] : [];
  if (question.type === TYPE.SOA && zone === question.name) return reply(RCODE.NOERROR, soa);
  // A name with records, or with names below it (an "empty non-terminal", RFC 8020 §2), exists.
  const exists = records.has(question.name) || zone === question.name || [...records.keys()].some((n) => n.endsWith(`.${question.name}`));
  if (!exists) return reply(RCODE.NXDOMAIN, [], soa);
  const found = records.get(question.name) ?? {};
  const answers =
    question.type === TYPE.A
      ? (found.A ?? []).map((ip) => resourceRecord(TYPE.A, addressBytes(ip, 4)))
      : question.type === TYPE.AAAA
        ? (found.AAAA ?? []).map((ip) => resourceRecord(TYPE.AAAA, addressBytes(ip, 16)))
        : question.type === TYPE.TXT
          ? (found.TXT ?? []).map((value) => resourceRecord(TYPE.TXT, txtData(value)))
          : [];
  return reply(RCODE.NOERROR, answers, answers.length === 0 ? soa : []);
}

function readQuestion(message: Buffer, offset: number): Question {
  const labels: string[] = [];
  let pos = offset;
  for (;;) {
    const length = message[pos];
    if (length === undefined) throw new Error('truncated name');
    if (length === 0) break;
    if (length & 0xc0) throw new Error('compression in a question'); // RFC 1035 §4.1.4: nothing to point back to
    labels.push(message.toString('latin1', pos + 1, pos + 1 + length));
    pos += 1 + length;
  }
  if (pos + 5 > message.length || pos + 1 - offset > 255) throw new Error('bad question');
  return {
    raw: message.subarray(offset, pos + 5),
    name: normalName(labels.join('.')),
    type: message.readUInt16BE(pos + 1),
    klass: message.readUInt16BE(pos + 3),
  };
}

/** Whether the additional section after the question holds an OPT record (its options are ignored). */
function hasOpt(message: Buffer, offset: number): boolean {
  const [an, ns, ar] = [6, 8, 10].map((i) => message.readUInt16BE(i));
  let pos = offset;
  for (let i = 0; i < an + ns + ar; i++) {
    pos = skipName(message, pos);
    if (pos + 10 > message.length) throw new Error('truncated record');
    const type = message.readUInt16BE(pos);
    const end = pos + 10 + message.readUInt16BE(pos + 8);
    if (end > message.length) throw new Error('truncated record');
    if (i >= an + ns && type === TYPE.OPT) return true;
    pos = end;
  }
  return false;
}

function skipName(message: Buffer, pos: number): number {
  for (;;) {
    const length = message[pos];
    if (length === undefined) throw new Error('truncated name');
    if ((length & 0xc0) === 0xc0) return pos + 2;
    if (length === 0) return pos + 1;
    pos += 1 + length;
  }
}

function encodeName(name: string): Buffer {
  const labels = name === '' ? [] : name.split('.');
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])), Buffer.from([0])]);
}

/** NAME (a pointer to the question's name unless given), TYPE, CLASS IN, TTL 0, RDLENGTH, RDATA. */
function resourceRecord(type: number, data: Buffer, name: Buffer = Buffer.from([0xc0, 12])): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(CLASS_IN, 2);
  fixed.writeUInt32BE(0, 4);
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([name, fixed, data]);
}

/** RFC 6891 §6.1.2: root name, type OPT, CLASS = our UDP payload size, extended RCODE 0, version 0, no options. */
function optRecord(): Buffer {
  const r = Buffer.alloc(11);
  r.writeUInt16BE(TYPE.OPT, 1);
  r.writeUInt16BE(EDNS_UDP_SIZE, 3);
  return r;
}

function addressBytes(ip: string, length: 4 | 16): Buffer {
  const bytes = encodeIpBytes(ip);
  if (bytes.length !== length) throw new Error(`${ip} is not an IPv${length === 4 ? 4 : 6} address`);
  return bytes;
}

/** RFC 1035 §3.3.14: character-strings of at most 255 bytes; a longer string is split. */
function txtData(value: TxtValue): Buffer {
  const parts: Buffer[] = [];
  for (const text of Array.isArray(value) ? value : [value]) {
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 0; i === 0 || i < bytes.length; i += 255) {
      const chunk = bytes.subarray(i, i + 255);
      parts.push(Buffer.from([chunk.length]), chunk);
    }
  }
  return Buffer.concat(parts);
}

/** SOA RDATA: MNAME ns.<zone>, RNAME hostmaster.<zone>, serial 1, refresh, retry, expire, minimum 0 (no negative caching). */
function soaData(zone: string): Buffer {
  const numbers = Buffer.alloc(20);
  [1, 3600, 600, 86400, 0].forEach((n, i) => numbers.writeUInt32BE(n, i * 4));
  return Buffer.concat([encodeName(`ns.${zone}`), encodeName(`hostmaster.${zone}`), numbers]);
}
