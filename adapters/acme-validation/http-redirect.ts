/**
 * Which redirects http-01 follows (RFC 8555 §8.3: the server SHOULD follow them, so that a client
 * may serve its responses from a central place) and where a URL connects. Like Let's Encrypt: http
 * or https only, and an explicit port only when it is 80, 443 or one of the validator's own ports —
 * a redirect must not turn the validator into a scanner of a network's other services.
 */
import type { ValidatorSettings } from './settings';

/** The next URL, or the reason it is refused. */
export function redirectTarget(from: URL, location: string | undefined, settings: ValidatorSettings): URL | string {
  if (!location) return `a redirect from ${from.href} without a Location header`;
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    return `a redirect from ${from.href} to an invalid URL ${JSON.stringify(location.slice(0, 200))}`;
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    return `a redirect from ${from.href} to ${next.href}: only http and https are followed`;
  if (next.username || next.password) return `a redirect from ${from.href} to a URL with credentials`;
  if (next.port !== '') {
    const allowed = [80, 443, settings.http01Port, settings.tlsAlpn01Port];
    if (!allowed.includes(Number(next.port))) {
      return `a redirect from ${from.href} to ${next.href}: only ports ${[...new Set(allowed)].join(', ')} are followed`;
    }
  }
  next.hash = '';
  return next;
}

/**
 * The port a URL connects to: its explicit port, else `http01Port` for http (the challenge URL is
 * `http://{host}/…`, port 80 unless the validator is configured otherwise) and 443 for https.
 */
export function connectPort(url: URL, settings: ValidatorSettings): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : settings.http01Port;
}
