/**
 * Without `dnsServers` (CA_ACME_DNS_SERVERS) the validator finds addresses the way the host does:
 * the system resolver, /etc/hosts included (docs/guides/acme.md; the one-machine recipe depends on it).
 * The name here is one that only /etc/hosts knows — a DNS server answers NXDOMAIN for it — added for
 * the test and removed after it.
 */
import { randomBytes } from 'crypto';
import * as http from 'http';
import { challengeValidator } from '../../adapters/acme-validation';
import type { ChallengeToValidate } from '../../lib/ports/acme';
import { addHostsLine, describeWithHostsFile, removeHostsLine } from '../helpers/etc-hosts';
import { closeServer, listen } from '../helpers/sockets';

const TOKEN = 'evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA';
const KEY_AUTHORIZATION = `${TOKEN}.9jg46WB3rR_AHD-EBXdN7cBkH1WOu0tA3M9fm21mqTI`;
// RFC 2606 `.test`: no DNS server anywhere has this name.
const NAME = `hosts-only-${randomBytes(6).toString('hex')}.test`;

let server: http.Server;
let port: number;
let hostsLine: string | null = null;
const hosts: string[] = [];

describeWithHostsFile('the challenge validator without DNS servers', () => {
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      if (req.url === `/.well-known/acme-challenge/${TOKEN}`) res.writeHead(200, { 'Content-Type': 'text/plain' }).end(KEY_AUTHORIZATION);
      else res.writeHead(404).end();
    });
    port = await listen(server);
    hostsLine = addHostsLine('127.0.0.1', NAME);
  });
  afterAll(async () => {
    if (hostsLine) removeHostsLine(hostsLine);
    await closeServer(server);
  });

  const challenge = (value: string): ChallengeToValidate => ({
    type: 'http-01',
    identifier: { type: 'dns', value },
    token: TOKEN,
    keyAuthorization: KEY_AUTHORIZATION,
  });

  test('http-01 for a name only /etc/hosts knows: valid, fetched from the address /etc/hosts gives', async () => {
    const outcome = await challengeValidator({ http01Port: port, timeoutMs: 5000 }).validate(challenge(NAME));
    expect(outcome).toEqual({ valid: true });
    expect(hosts).toContain(NAME);
  });

  test('http-01 for localhost (in /etc/hosts on every machine): valid', async () => {
    const outcome = await challengeValidator({ http01Port: port, timeoutMs: 5000 }).validate(challenge('localhost'));
    expect(outcome).toEqual({ valid: true });
  });
});
