/**
 * A CA's own issuance policy in the admin interface (docs/guides/issuance-policy.md, docs/guides/admin-interface.md): the
 * CA page shows it ("defaults" where it narrows nothing), the CA form changes it — checked and
 * canonical as `ca-admin edit_ca --issuance-*` makes it, a bad entry refused with a 400 and nothing
 * written —, the change is audited as the signed-in user with the policy before and after
 * (`ca.issuance_policy.updated`), every door then applies it (the REST API's sign here; all of them in
 * test/issuance/parity.test.ts), and the REST API's CA JSON keeps its shape: no new key, GET and PUT alike.
 */
import request from 'supertest';
import type { EventLog } from '../../lib/ports';
import { API, opensslCsr } from '../api/fixture';
import { testDatabaseTargets } from '../helpers/database';
import { ADMIN, formToken, setupAdmin, type AdminAgent, type AdminFixture } from './admin-fixture';

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;|&#x27;/g, "'")
    .replace(/&amp;/g, '&');

/** The CA form's fields as the page fills them in (what a browser would send back unchanged). */
function formValues(page: string, action: string): Record<string, string> {
  const start = page.indexOf(`<form method="post" action="${action}">`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const values: Record<string, string> = {};
  for (const m of form.matchAll(/<input([^>]*)\/?>/g)) {
    const name = /name="([^"]*)"/.exec(m[1])?.[1];
    if (!name) continue;
    if (/type="checkbox"/.test(m[1])) {
      if (/\schecked/.test(m[1])) values[name] = 'on';
    } else values[name] = unescape(/value="([^"]*)"/.exec(m[1])?.[1] ?? '');
  }
  for (const m of form.matchAll(/<textarea[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g)) values[m[1]] = unescape(m[2]);
  for (const m of form.matchAll(/<select[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    values[m[1]] = /<option value="([^"]*)"\s+selected/.exec(m[2])?.[1] ?? '';
  }
  return values;
}

describe.each(testDatabaseTargets())("a CA's issuance policy in the admin interface, on $name", (target) => {
  let f: AdminFixture;
  let agent: AdminAgent;
  let url: string;
  const events = () => f.api.store as unknown as EventLog;

  beforeAll(async () => {
    f = await setupAdmin({}, undefined, target);
    agent = await f.signIn('alice');
    url = `${ADMIN}cas/${f.api.ca.serial}/`;
  }, 120_000);
  afterAll(() => f?.close());

  const post = async (changes: Record<string, string>) => {
    const page = await agent.get(url).expect(200);
    return agent
      .post(url)
      .type('form')
      .send({ ...formValues(page.text, url), ...changes, _csrf: formToken(page.text, url) });
  };
  const section = (page: string) =>
    /<h2>Issuance policy<\/h2>\s*<dl class="fields">([\s\S]*?)<\/dl>/.exec(page)?.[1].replace(/\s+/g, ' ') ?? '';
  const restCa = async () =>
    (await request(f.api.app).get(`${API}/ca/${f.api.ca.serial}/`).set(f.api.auth('alice')).expect(200)).body as Record<string, unknown>;

  test('the page shows the defaults; the form sets the policy, canonical, audited as the user with old and new', async () => {
    const shownBefore = (await agent.get(url).expect(200)).text;
    expect(section(shownBefore)).toContain(
      '<dt>Keys accepted</dt> <dd>RSA ≥ 2048 bits, EC P-256/P-384/P-521, Ed25519 or Ed448 (defaults)</dd>',
    );
    expect(section(shownBefore)).toContain('<dd>any name (defaults)</dd>');
    const jsonBefore = await restCa();
    const since = await events().latestEventId();

    const saved = await post({
      issuance_keys: 'p-384, RSA-3072',
      issuance_allow: 'Corp.Example.\r\n10.0.0.0/8\r\n',
      issuance_deny: 'blocked.corp.example',
    });
    expect(saved.status).toBe(303);
    const policy = { keys: ['RSA-3072', 'P-384'], allow: ['corp.example', '10.0.0.0/8'], deny: ['blocked.corp.example'] };
    expect((await f.api.store.getCa(f.api.ca.id))?.issuancePolicy).toEqual(policy);
    const changed = (await events().eventsSince(since)).filter((e) => e.type === 'ca.issuance_policy.updated');
    expect(changed.map((e) => [e.actor, e.caSerial, e.data])).toEqual([
      [
        expect.objectContaining({ type: 'api_user', name: 'alice', protocol: 'admin' }),
        f.api.ca.serial,
        { name: 'child', old: null, new: policy },
      ],
    ]);

    const shown = (await agent.get(url).expect(200)).text;
    expect(section(shown)).toContain('<dt>Keys accepted</dt> <dd>RSA ≥ 3072 bits, EC P-384</dd>');
    expect(section(shown)).toContain(
      '<dt>Names allowed</dt> <dd>corp.example, 10.0.0.0/8</dd> <dt>Names denied</dt> <dd>blocked.corp.example</dd>',
    );
    expect(shown).toContain('value="RSA-3072, P-384"');
    expect(shown).toContain('corp.example\n10.0.0.0/8</textarea>');

    // The REST API's CA JSON is django-ca's: the same keys before and after, none for the policy.
    const jsonAfter = await restCa();
    expect(Object.keys(jsonAfter)).toEqual(Object.keys(jsonBefore));
    expect(JSON.stringify(jsonAfter)).not.toMatch(/issuance|corp\.example/);
    const put = await request(f.api.app)
      .put(`${API}/ca/${f.api.ca.serial}/`)
      .set(f.api.auth('alice'))
      .send({ website: 'https://ca.example.com/' })
      .expect(200);
    expect(Object.keys(put.body as object)).toEqual(Object.keys(jsonBefore));
    expect((await f.api.store.getCa(f.api.ca.id))?.issuancePolicy).toEqual(policy);
  });

  test('the REST API signs under the policy: a P-256 key or a name outside it is refused with 422 naming the rule', async () => {
    const sign = (cn: string, keyType: 'EC' | 'RSA') =>
      request(f.api.app)
        .post(`${API}/ca/${f.api.ca.serial}/sign/`)
        .set(f.api.auth('alice'))
        .send({
          csr: opensslCsr(keyType, cn).csr,
          subject: [{ oid: 'CN', value: cn }],
          extensions: [{ type: 'subject_alternative_name', value: [{ type: 'DNS', value: cn }] }],
        });
    const key = await sign('www.corp.example', 'EC');
    expect(key.status).toBe(422);
    expect(JSON.stringify(key.body)).toContain('not accepted by the issuance policy of certificate authority child');
    const name = await sign('www.example.org', 'RSA');
    expect(name.status).toBe(422);
    expect(JSON.stringify(name.body)).toContain('not among the names the issuance policy of certificate authority child allows');
  });

  test('a bad entry is refused with a 400 naming it, and nothing of the form is written', async () => {
    const before = await f.api.store.getCa(f.api.ca.id);
    const since = await events().latestEventId();
    for (const [changes, message] of [
      [{ issuance_keys: 'P-192' }, 'Issuance policy, keys accepted: &quot;P-192&quot;: not a key kind'],
      [{ issuance_keys: 'RSA-1024' }, 'RSA keys of fewer than 2048 bits are never accepted'],
      [{ issuance_allow: '*.corp.example' }, 'Issuance policy, names allowed: &quot;*.corp.example&quot;: not a DNS suffix'],
      [{ issuance_deny: '10.0.0.1/8' }, 'Issuance policy, names denied: &quot;10.0.0.1/8&quot;: not an IP address or network'],
    ] as const) {
      const res = await post({ ...changes, website: 'https://changed.example.com/' });
      expect(res.status).toBe(400);
      expect(res.text).toContain(message);
    }
    expect(await f.api.store.getCa(f.api.ca.id)).toEqual(before);
    expect(await events().eventsSince(since)).toEqual([]);
  });

  test('emptied, the policy is the built-in one again (null), audited with the old one', async () => {
    const old = (await f.api.store.getCa(f.api.ca.id))?.issuancePolicy;
    const since = await events().latestEventId();
    expect((await post({ issuance_keys: '', issuance_allow: '', issuance_deny: '' })).status).toBe(303);
    expect((await f.api.store.getCa(f.api.ca.id))?.issuancePolicy).toBeNull();
    const changed = (await events().eventsSince(since)).filter((e) => e.type === 'ca.issuance_policy.updated');
    expect(changed.map((e) => e.data)).toEqual([{ name: 'child', old, new: null }]);
    expect(section((await agent.get(url).expect(200)).text)).toContain('(defaults)');
  });
});
