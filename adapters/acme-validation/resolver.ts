/**
 * Every name lookup of a validation. With configured servers (`dnsServers`, `CA_ACME_DNS_SERVERS`)
 * every query goes there. Without them the addresses of a name are found the way the host finds
 * them — the system resolver (`dns.lookup`: /etc/hosts, nsswitch), which internal networks and a CA
 * on one machine rely on (docs/guides/acme.md: the one-machine recipe) — and TXT records (dns-01) are asked
 * of the system's DNS servers, since /etc/hosts has none.
 * One `dns.promises.Resolver` per validation: its own servers, timeout and tries, and `cancel()` at
 * the deadline stops only this validation's queries (a system lookup cannot be cancelled: the
 * deadline stops waiting for it).
 *
 * Every DNS failure is retryable: a record may still be propagating, a server may be briefly down
 * (RFC 8555 §8.2 lets the server retry), and the validation runner bounds the attempts.
 */
import { promises as dns } from 'dns';
import type { Deadline } from './deadline';
import { failure, type ValidationFailure } from './outcome';
import type { ValidatorSettings } from './settings';

export interface NameLookup {
  /** The A and AAAA records of `name`: IPv6 and IPv4 alternating, IPv6 first (as Let's Encrypt tries them). */
  addresses(name: string): Promise<string[] | ValidationFailure>;
  /** The TXT records of `name`, each record's strings joined (RFC 8555 §8.4 compares whole records). */
  txt(name: string): Promise<string[] | ValidationFailure>;
  /** Stops whatever is still asked (the validation is over). */
  close(): void;
}

/** A lookup that outlives the deadline: cancelled, and reported as a timeout. */
const TIMED_OUT = Object.freeze({ code: 'ETIMEOUT' });

export function nameLookup(settings: ValidatorSettings, deadline: Deadline): NameLookup {
  // c-ares waits `timeout` per try and server; two tries fit a few servers into the validation's budget.
  const resolver = new dns.Resolver({ timeout: Math.min(5000, Math.max(200, Math.floor(settings.timeoutMs / 4))), tries: 2 });
  const configured = settings.dnsServers.length > 0;
  if (configured) resolver.setServers(settings.dnsServers);

  const ask = <T>(query: () => Promise<T>): Promise<T | { code: string }> =>
    deadline.race(
      query().catch((e: NodeJS.ErrnoException) => ({ code: e.code ?? e.message })),
      () => {
        resolver.cancel();
        return TIMED_OUT;
      },
    );

  return {
    async addresses(name) {
      const [v6, v4] = configured
        ? await Promise.all([ask(() => resolver.resolve6(name)), ask(() => resolver.resolve4(name))])
        : await systemAddresses(name, ask);
      const six = Array.isArray(v6) ? v6 : [];
      const four = Array.isArray(v4) ? v4 : [];
      if (six.length + four.length > 0) return interleave(six, four);
      const errors = [v6, v4].map((r) => (Array.isArray(r) ? 'ENODATA' : r.code));
      // A server failure says more than "no such name" from the other query: report it first.
      const serious = errors.find((code) => code !== 'ENODATA' && code !== 'ENOTFOUND');
      if (serious) return failure('dns', `DNS problem: ${dnsErrorText(serious)} looking up A/AAAA for ${name}`, true);
      if (errors.includes('ENOTFOUND')) {
        return failure('dns', `DNS problem: NXDOMAIN looking up A/AAAA for ${name} - check that a DNS record exists for this name`, true);
      }
      return failure('dns', `DNS problem: no A or AAAA record found for ${name}`, true);
    },

    async txt(name) {
      const answer = await ask(() => resolver.resolveTxt(name));
      if (Array.isArray(answer)) return answer.map((strings) => strings.join(''));
      if (answer.code === 'ENOTFOUND')
        return failure('dns', `DNS problem: NXDOMAIN looking up TXT for ${name} - no record found there`, true);
      if (answer.code === 'ENODATA') return failure('dns', `DNS problem: no TXT record found at ${name}`, true);
      return failure('dns', `DNS problem: ${dnsErrorText(answer.code)} looking up TXT for ${name}`, true);
    },

    close: () => resolver.cancel(),
  };
}

/**
 * The host's answer for `name` (getaddrinfo through `dns.lookup`, all addresses), split by family as
 * the DNS queries are, so that both paths order and report the same way.
 */
async function systemAddresses(
  name: string,
  ask: <T>(query: () => Promise<T>) => Promise<T | { code: string }>,
): Promise<[string[] | { code: string }, string[] | { code: string }]> {
  const found = await ask(() => dns.lookup(name, { all: true, verbatim: true }));
  if (!Array.isArray(found)) return [found, found];
  return [found.filter((a) => a.family === 6).map((a) => a.address), found.filter((a) => a.family === 4).map((a) => a.address)];
}

function interleave(first: string[], second: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(first.length, second.length); i++) {
    if (i < first.length) out.push(first[i]);
    if (i < second.length) out.push(second[i]);
  }
  return [...new Set(out)];
}

/** c-ares error codes (Node's `dns` module) in the words of DNS. */
function dnsErrorText(code: string): string {
  switch (code) {
    case 'ETIMEOUT':
    case 'ECANCELLED':
      return 'timeout';
    case 'EAI_AGAIN':
      return 'temporary failure of the system resolver';
    case 'ESERVFAIL':
      return 'SERVFAIL';
    case 'EREFUSED':
      return 'REFUSED';
    case 'ECONNREFUSED':
      return 'connection refused by the DNS server';
    case 'EBADRESP':
      return 'malformed answer';
    case 'EFORMERR':
      return 'FORMERR';
    default:
      return code;
  }
}
