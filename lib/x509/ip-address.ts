/**
 * IP addresses and networks of the iPAddress GeneralName (RFC 5280 §4.2.1.6: 4 or 16 octets for an
 * address; 8 or 32 — address and mask — inside name constraints), with the text forms of Python's
 * `ipaddress` module: IPv6 text per RFC 4291 §2.2 written with RFC 5952 compression, networks in
 * CIDR prefix notation (RFC 4632 §3.1) and strict (no host bits), IPv4 netmask or hostmask accepted
 * on input.
 */
import { invalid, parseError } from './errors';

interface ParsedIp {
  /** Address bytes (4 or 16). */
  address: Buffer;
  /** Prefix length for networks, null for a single address. */
  prefix: number | null;
}

function parseIpv4(text: string): Buffer | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const octets = m.slice(1).map((o) => (o.length > 1 && o[0] === '0' ? 256 : Number(o)));
  return octets.every((o) => o <= 255) ? Buffer.from(octets) : null;
}

export function parseIpv6(text: string): Buffer | null {
  // Scope ids (`fe80::1%eth0`) cannot be represented in a certificate.
  if (!/^[0-9A-Fa-f:.]+$/.test(text)) return null;
  let s = text;
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return null;
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail);
    if (!v4) return null;
    s = s.slice(0, lastColon + 1) + v4.readUInt16BE(0).toString(16) + ':' + v4.readUInt16BE(2).toString(16);
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string): string[] | null => {
    if (part === '') return [];
    const g = part.split(':');
    return g.every((h) => /^[0-9A-Fa-f]{1,4}$/.test(h)) ? g : null;
  };
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  if (!left || !right) return null;
  let all: string[];
  if (halves.length === 2) {
    if (left.length + right.length > 7) return null;
    all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  } else {
    if (left.length !== 8) return null;
    all = left;
  }
  const out = Buffer.alloc(16);
  all.forEach((h, i) => out.writeUInt16BE(parseInt(h, 16), i * 2));
  return out;
}

function prefixFromMask(mask: Buffer): number | null {
  const bits = [...mask].map((b) => b.toString(2).padStart(8, '0')).join('');
  if (!/^1*0*$/.test(bits)) return null;
  const firstZero = bits.indexOf('0');
  return firstZero < 0 ? bits.length : firstZero;
}

function maskBytes(prefix: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < prefix; i++) out[i >> 3] |= 0x80 >> (i & 7);
  return out;
}

/** Address, or network `addr/prefix` (IPv4 also `addr/netmask` or `addr/hostmask`); null if invalid. */
function parseIp(text: string): ParsedIp | null {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const address = parseIpv4(addrText) ?? parseIpv6(addrText);
  if (!address) return null;
  if (slash < 0) return { address, prefix: null };
  const prefixText = text.slice(slash + 1);
  const maxPrefix = address.length * 8;
  let prefix: number | null = null;
  if (/^\d+$/.test(prefixText)) {
    prefix = Number(prefixText);
  } else if (address.length === 4) {
    const mask = parseIpv4(prefixText);
    if (mask) prefix = prefixFromMask(mask) ?? prefixFromMask(Buffer.from(mask.map((b) => ~b & 0xff)));
  }
  if (prefix === null || prefix > maxPrefix) return null;
  // Strict: host bits must be zero.
  const mask = maskBytes(prefix, address.length);
  if (address.some((b, i) => (b & ~mask[i] & 0xff) !== 0)) return null;
  return { address, prefix };
}

function formatIpv6(bytes: Buffer): string {
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return '::ffff:' + [...bytes.subarray(12)].join('.'); // IPv4-mapped, RFC 5952 §5
  }
  const hextets = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  // Longest run (>= 2) of zero groups, the first one on ties, becomes "::".
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (hextets[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && hextets[j] === '0') j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) return hextets.join(':');
  return hextets.slice(0, bestStart).join(':') + '::' + hextets.slice(bestStart + bestLen).join(':');
}

function formatIpAddress(bytes: Buffer): string {
  return bytes.length === 4 ? [...bytes].join('.') : formatIpv6(bytes);
}

function formatIp(ip: ParsedIp): string {
  const addr = formatIpAddress(ip.address);
  return ip.prefix === null ? addr : `${addr}/${ip.prefix}`;
}

/** iPAddress OCTET STRING content: 4/16 bytes for an address, 8/32 bytes (address + mask) for a network. */
export function decodeIpBytes(bytes: Buffer): string {
  if (bytes.length === 4 || bytes.length === 16) return formatIpAddress(bytes);
  if (bytes.length === 8 || bytes.length === 32) {
    const half = bytes.length / 2;
    const prefix = prefixFromMask(bytes.subarray(half));
    if (prefix === null) throw parseError('iPAddress: netmask is not contiguous');
    // Host bits are not cleared: what we read must re-encode to the same bytes.
    return `${formatIpAddress(bytes.subarray(0, half))}/${prefix}`;
  }
  throw parseError(`iPAddress: invalid length ${bytes.length}`);
}

/**
 * iPAddress content for a normalised value. Host bits of a network are not checked here: a network
 * read from a certificate keeps them (so that it re-encodes to the same bytes).
 */
export function encodeIpBytes(text: string): Buffer {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const address = parseIpv4(addrText) ?? parseIpv6(addrText);
  const prefixText = text.slice(slash + 1);
  if (!address || (slash >= 0 && (!/^\d+$/.test(prefixText) || Number(prefixText) > address.length * 8))) {
    throw invalid(`${text}: Could not parse IP address`);
  }
  return slash < 0 ? address : Buffer.concat([address, maskBytes(Number(prefixText), address.length)]);
}

/** Canonical text of an IP address or strict network, or null when `text` is neither. */
export function canonicalIp(text: string): string | null {
  const ip = parseIp(text);
  return ip ? formatIp(ip) : null;
}

/**
 * Whether `address` lies in `network` (CIDR text, "10.0.0.0/8"): its bits under the mask equal the
 * network's. Addresses of the other family, and text that is not an address, lie in no network.
 */
export function ipInNetwork(network: string, address: string): boolean {
  let net: Buffer;
  let addr: Buffer;
  try {
    net = encodeIpBytes(network);
    addr = encodeIpBytes(address);
  } catch {
    return false;
  }
  const length = addr.length;
  if (net.length !== 2 * length) return false;
  for (let i = 0; i < length; i++) {
    if ((addr[i] & net[length + i]) !== (net[i] & net[length + i])) return false;
  }
  return true;
}
