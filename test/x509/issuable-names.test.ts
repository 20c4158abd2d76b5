/**
 * The names no certificate should carry (lib/x509/issuable-names.ts), the one rule ACME new-order and
 * REST sign share.
 */
import { dnsNameProblem, ipAddressProblem } from '../../lib/x509/issuable-names';

describe('ipAddressProblem', () => {
  test.each([
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['255.255.255.255', /broadcast/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['::', /unspecified/],
    ['0:0:0:0:0:0:0:0', /unspecified/],
    ['ff02::1', /multicast/],
    ['::ffff:192.0.2.1', /IPv4-mapped/],
    ['::FFFF:c000:201', /IPv4-mapped/],
    ['::ffff:127.0.0.1', /IPv4-mapped/],
  ])('%s is refused', (address, why) => {
    expect(ipAddressProblem(address)).toMatch(why);
  });

  test.each([
    '127.0.0.1',
    '10.0.0.1',
    '192.168.1.1',
    '192.0.2.1',
    '223.255.255.255',
    '240.0.0.1',
    '::1',
    '2001:db8::1',
    'fe80::1',
    '::192.0.2.1',
  ])('%s names a host', (address) => {
    expect(ipAddressProblem(address)).toBeNull();
  });
});

describe('dnsNameProblem', () => {
  test.each([
    ['trailing.example.test.', /trailing dot/],
    ['xn--zz.example.test', /not a valid A-label/],
    ['a.xn--99.test', /not a valid A-label/],
    ['xn--.example', /not a valid A-label/],
    ['xn--ls8h.example', /not a valid A-label/], // an emoji: no IDNA 2008 label
    ['XN--A.example', /not a valid A-label/],
  ])('%s is refused', (name, why) => {
    expect(dnsNameProblem(name)).toMatch(why);
  });

  test.each(['example.test', '*.example.test', 'xn--bcher-kva.example', 'a.xn--nxasmq6b.example', 'localhost'])(
    '%s may be certified',
    (name) => {
      expect(dnsNameProblem(name)).toBeNull();
    },
  );
});
