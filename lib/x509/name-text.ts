/**
 * Text of the dNSName, rfc822Name and uniformResourceIdentifier GeneralNames: IDNA (RFC 5890/5891)
 * for host names, the domain part of e-mail addresses and URI hosts, so that what goes into a
 * certificate is the IA5String RFC 5280 §4.2.1.6 requires; the original's validators in substance.
 */
import { invalid } from './errors';
import { parseIpv6 } from './ip-address';
import { IdnaError, encodeDomain } from './idna';

/** `encodeDomain` with the reference's error message. */
function idna(name: string): string {
  try {
    return encodeDomain(name);
  } catch (e) {
    if (e instanceof IdnaError) throw invalid(`Invalid domain: ${name}: ${e.message}`);
    throw e;
  }
}

/** IDNA-encode a DNS name; a leading `*.` or `.` is kept. */
export function normalizeDnsName(name: string): string {
  try {
    if (name.startsWith('*.')) return `*.${encodeDomain(name.slice(2))}`;
    if (name.startsWith('.')) return `.${encodeDomain(name.slice(1))}`;
    return encodeDomain(name);
  } catch (e) {
    if (e instanceof IdnaError) throw invalid(`Invalid domain: ${name}: ${e.message}`);
    throw e;
  }
}

const ASCII = /^[\x00-\x7f]*$/;

export function normalizeEmail(addr: string): string {
  const at = addr.lastIndexOf('@');
  if (at < 0) throw invalid(`Invalid email address: ${addr}`);
  const node = addr.slice(0, at);
  if (!node) throw invalid(`${addr}: node part is empty`);
  // rfc822Name is an IA5String; internationalised mailboxes need SmtpUTF8Mailbox (an otherName).
  if (!ASCII.test(node)) throw invalid(`Invalid email address: ${addr}`);
  return `${node}@${idna(addr.slice(at + 1))}`;
}

/**
 * Python's `urlsplit` + django-ca's url_validator: scheme and network location required, scheme
 * lower-cased, the host IDNA-encoded, a port validated (and then written as a number, with the host
 * lower-cased, as the reference does). Unlike the reference, user info and bracketed IPv6 hosts are
 * kept instead of failing IDNA.
 */
export function normalizeUri(input: string): string {
  // urlsplit strips leading C0 controls/space and removes tab/CR/LF anywhere.
  const url = input.replace(/^[\x00-\x20]+/, '').replace(/[\t\r\n]/g, '');
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(url);
  const rest = schemeMatch ? url.slice(schemeMatch[0].length) : url;
  const netlocMatch = rest.startsWith('//') ? /^\/\/([^/?#]*)/.exec(rest) : null;
  const netloc = netlocMatch ? netlocMatch[1] : '';
  if (!schemeMatch || !netloc) throw invalid(`URL requires scheme and network location: ${input}`);
  const scheme = schemeMatch[1].toLowerCase();
  const tail = rest.slice(2 + netloc.length);
  if (netloc.includes('[') !== netloc.includes(']')) {
    throw invalid(`Could not parse URL: ${input}: Invalid IPv6 URL`);
  }

  const at = netloc.lastIndexOf('@');
  const userinfo = at >= 0 ? netloc.slice(0, at + 1) : '';
  const hostport = netloc.slice(at + 1);
  let host: string;
  let portText: string | null;
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']');
    host = hostport.slice(0, close + 1);
    const after = hostport.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw invalid(`Could not parse URL: ${input}: Invalid IPv6 URL`);
    portText = after ? after.slice(1) : null;
    if (!parseIpv6(host.slice(1, -1))) {
      const literal = host.slice(1, -1);
      throw invalid(`Could not parse URL: ${input}: '${literal}' does not appear to be an IPv4 or IPv6 address`);
    }
  } else {
    const colon = hostport.indexOf(':');
    host = colon < 0 ? hostport : hostport.slice(0, colon);
    portText = colon < 0 ? null : hostport.slice(colon + 1);
  }

  let port: number | null = null;
  if (portText) {
    if (!/^[0-9]+$/.test(portText)) {
      throw invalid(`Invalid port: ${input}: Port could not be cast to integer value as '${portText}'`);
    }
    port = Number(portText);
    if (port > 65535) throw invalid(`Invalid port: ${input}: Port out of range 0-65535`);
  }

  let newNetloc: string;
  if (port) {
    const lower = host.toLowerCase();
    newNetloc = `${userinfo}${lower.startsWith('[') ? lower : idna(lower)}:${port}`;
  } else {
    const encodedHost = host.startsWith('[') ? host : idna(host);
    newNetloc = `${userinfo}${encodedHost}${portText !== null ? ':' + portText : ''}`;
  }

  // urlunsplit drops an empty query or fragment marker.
  let pathAndRest = tail;
  const hash = pathAndRest.indexOf('#');
  let fragment = '';
  if (hash >= 0) {
    fragment = pathAndRest.slice(hash + 1);
    pathAndRest = pathAndRest.slice(0, hash);
  }
  const q = pathAndRest.indexOf('?');
  let query = '';
  if (q >= 0) {
    query = pathAndRest.slice(q + 1);
    pathAndRest = pathAndRest.slice(0, q);
  }
  const result = `${scheme}://${newNetloc}${pathAndRest}` + (query ? `?${query}` : '') + (fragment ? `#${fragment}` : '');
  // uniformResourceIdentifier is an IA5String.
  if (!ASCII.test(result)) throw invalid(`${input}: URI must be ASCII outside of the host name`);
  return result;
}
