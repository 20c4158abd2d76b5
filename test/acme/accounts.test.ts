/**
 * ACME accounts (RFC 8555 §7.3): registration rules of the CA (registration off, contact required,
 * terms of service), contact checks, `onlyReturnExisting`, updates, deactivation (its pending orders
 * go invalid, later requests are refused), key rollover (§7.3.5) with acme-client and by hand, and
 * the account's order list, paged.
 */
import * as acme from 'acme-client';
import type { EventLog } from '../../lib/ports';
import { WireClient, newKey, problemType, signJws } from '../helpers/acme-wire';
import { testDatabaseTargets } from '../helpers/database';
import { startAcmeServer, type AcmeFixture } from './fixture';

jest.setTimeout(60_000);

describe.each(testDatabaseTargets())('ACME accounts ($name)', (target) => {
  let server: AcmeFixture;
  const setCa = async (patch: Parameters<AcmeFixture['store']['updateCa']>[1]) => {
    server.ca = await server.store.updateCa(server.ca.id, patch);
  };

  beforeAll(async () => {
    server = await startAcmeServer(target);
  });
  afterAll(() => server?.close());
  afterEach(() => setCa({ acmeRegistration: true, acmeRequiresContact: false, termsOfService: '' }));

  const client = () => new WireClient(server.directory).init();

  test('201 with Location for a new key, 200 with the same Location for a known one; onlyReturnExisting finds or refuses', async () => {
    const c = await client();
    const created = await c.register({ contact: ['mailto:a@example.com'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'valid', contact: ['mailto:a@example.com'], orders: `${c.kid}orders/` });
    const again = await c.post(c.directory.newAccount, { onlyReturnExisting: true }, { useJwk: true });
    expect([again.status, again.headers.get('location')]).toEqual([200, c.kid]);
    const stranger = await client();
    const missing = await stranger.post(stranger.directory.newAccount, { onlyReturnExisting: true }, { useJwk: true });
    expect([missing.status, problemType(missing)]).toEqual([400, 'urn:ietf:params:acme:error:accountDoesNotExist']);
  });

  test('the CA decides: registration off, a contact required, terms of service to agree to', async () => {
    await setCa({ acmeRegistration: false });
    const off = await (await client()).register();
    expect([off.status, (off.body as { detail: string }).detail]).toEqual([403, 'Account registration is disabled.']);
    await setCa({ acmeRegistration: true, acmeRequiresContact: true });
    const noContact = await (await client()).register({});
    expect((noContact.body as { detail: string }).detail).toBe('Must provide at least one contact address.');
    await setCa({ acmeRequiresContact: false, termsOfService: 'https://ca.example.com/tos' });
    const meta = ((await client()).directory as unknown as { meta: Record<string, string> }).meta;
    expect(meta.termsOfService).toBe('https://ca.example.com/tos');
    const refused = await client();
    expect((await refused.register({})).status).toBe(201);
    const order = await refused.post(refused.directory.newOrder, { identifiers: [{ type: 'dns', value: 'tos.example.com' }] });
    expect((order.body as { detail: string }).detail).toBe('Account did not agree to the terms of service.');
  });

  test('contacts: mailto only, one address each, no header fields', async () => {
    const cases: [string, string][] = [
      ['tel:+1555', 'unsupportedContact'],
      ['mailto:a@example.com?subject=x', 'invalidContact'],
      ['mailto:a@example.com,b@example.com', 'invalidContact'],
      ['mailto:not-an-address', 'invalidContact'],
    ];
    for (const [contact, type] of cases) {
      const answer = await (await client()).register({ contact: [contact] });
      expect([contact, problemType(answer)]).toEqual([contact, `urn:ietf:params:acme:error:${type}`]);
    }
  });

  test('update the contacts; deactivate: pending orders become invalid and the account is refused from then on', async () => {
    const c = await client();
    await c.register();
    const updated = await c.post(c.kid as string, { contact: ['mailto:new@example.com'] });
    expect((updated.body as { contact: string[] }).contact).toEqual(['mailto:new@example.com']);
    const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'deactivate.example.com' }] });
    const orderUrl = order.headers.get('location') as string;
    const log = server.store as unknown as EventLog;
    const before = await log.latestEventId();
    const deactivated = await c.post(c.kid as string, { status: 'deactivated' });
    expect((deactivated.body as { status: string }).status).toBe('deactivated');
    // Its event names the account itself over ACME (docs/operations/audit-and-events.md "Domain events").
    const events = (await log.eventsSince(before)).filter((e) => e.type === 'acme.account.deactivated');
    const slug = (c.kid as string).split('/').at(-2);
    expect(events.map((e) => [e.actor, e.data.account])).toEqual([
      [expect.objectContaining({ type: 'acme_account', protocol: 'acme' }), slug],
    ]);
    const afterwards = await c.post(orderUrl, undefined);
    expect([afterwards.status, problemType(afterwards)]).toEqual([401, 'urn:ietf:params:acme:error:unauthorized']);
    const stored = await server.store.acme.findOrder(server.ca.id, orderUrl.split('/').at(-2) as string);
    expect(stored?.status).toBe('invalid');
  });

  test('key rollover with acme-client: the new key acts for the account, the old one no longer does', async () => {
    const oldKey = await acme.crypto.createPrivateEcdsaKey();
    const c = new acme.Client({ directoryUrl: server.directory, accountKey: oldKey });
    await c.createAccount({ termsOfServiceAgreed: true });
    const url = c.getAccountUrl();
    await c.updateAccountKey(await acme.crypto.createPrivateEcdsaKey());
    expect(c.getAccountUrl()).toBe(url);
    await expect(c.createOrder({ identifiers: [{ type: 'dns', value: 'rolled.example.com' }] })).resolves.toMatchObject({
      status: 'pending',
    });
    const old = new acme.Client({ directoryUrl: server.directory, accountKey: oldKey });
    await expect(old.createAccount({ onlyReturnExisting: true })).rejects.toThrow(/Account does not exist/);
  });

  test('key rollover to a key another account holds is a 409 naming that account', async () => {
    const a = await client();
    await a.register();
    const b = await client();
    await b.register();
    const inner = signJws(b.key, { url: a.directory.keyChange, jwk: b.key.jwk }, { account: a.kid, oldKey: a.key.jwk });
    const answer = await a.post(a.directory.keyChange, inner);
    expect([answer.status, answer.headers.get('location')]).toEqual([409, b.kid]);
    const wrongOld = signJws(newKey(), { url: a.directory.keyChange, jwk: newKey().jwk }, { account: a.kid, oldKey: b.key.jwk });
    expect((await a.post(a.directory.keyChange, wrongOld)).status).toBeGreaterThanOrEqual(400);
  });

  test('the order list: newest first, 100 per page, rel="next" to the rest; only the account itself may read it', async () => {
    const c = await client();
    await c.register();
    const made: string[] = [];
    for (let i = 0; i < 101; i++) {
      const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: `n${i}.list.example.com` }] });
      made.push(order.headers.get('location') as string);
    }
    const first = await c.post(`${c.kid}orders/`, undefined);
    const orders = (first.body as { orders: string[] }).orders;
    expect(orders).toHaveLength(100);
    expect(orders[0]).toBe(made[100]);
    const next = /<([^>]+)>;rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await c.post(next as string, undefined);
    expect((second.body as { orders: string[] }).orders).toEqual([made[0]]);
    const other = await client();
    await other.register();
    expect((await other.post(`${c.kid}orders/`, undefined)).status).toBe(403);
  });
});
