/**
 * The API user commands an operator runs against a live deployment — list_api_users, delete_api_user,
 * set_api_user_password — and what a running server makes of them: the REST API of the API fixture
 * (test/api/fixture.ts) on the same store, so that its user cache is the one a deployment has. In the
 * same process a change is seen on the very next request (the store's `onUserChanged`); from a
 * `ca-admin` process on PostgreSQL within the user cache's TTL (docs/DESIGN.md "Caches on the request
 * path").
 */
import { EventEmitter } from 'events';
import { Readable } from 'stream';
import * as bcrypt from 'bcryptjs';
import request from 'supertest';
import { DEFAULT_USER_CACHE_TTL_MS } from '../../adapters/auth/user-cache';
import { TABLES } from '../../adapters/store/knex/tables';
import type { CliInput } from '../../lib/cli';
import { createApiUser } from '../../lib/accounts/users';
import { describeOnPostgres, testDatabaseTargets } from '../helpers/database';
import { API, opensslCsr, PASSWORD, setupApi, waitForOrder, type ApiFixture } from '../api/fixture';
import { caAdmin } from './child';
import { childDatabaseUrl } from './database-url';
import { cliRunner } from './helpers';

/** A terminal that types `answers`, one per prompt (each ended by Enter), into the raw-mode reader. */
function terminal(answers: string[]): CliInput {
  const tty = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode: () => undefined,
    pause: () => undefined,
    resume: () => {
      const next = answers.shift();
      if (next !== undefined) setImmediate(() => tty.emit('data', Buffer.from(`${next}\r`)));
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {},
  });
  return tty;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const as = (username: string, password = PASSWORD) => ({
  Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

describe.each(testDatabaseTargets())('API user commands on $name', (target) => {
  let f: ApiFixture;
  let cli: ReturnType<typeof cliRunner>;
  beforeAll(async () => {
    f = await setupApi(target);
    cli = cliRunner(f.store);
  });
  afterAll(() => f?.close());

  const listCas = (username: string, password = PASSWORD) => request(f.app).get(`${API}/ca/`).set(as(username, password));

  test('list_api_users: one line per user, by name, its permissions grouped by the CAs they hold for', async () => {
    const created = await cli([
      'create_api_user',
      'web-signer',
      '--all-permissions',
      '--ca',
      'child',
      '--no-change-certificateauthority',
      '--password',
      'pw',
    ]);
    expect(created).toMatchObject({ code: 0, stdout: 'Created API user web-signer.\n', stderr: '' });
    const none = ['--no-view-certificateauthority', '--no-change-certificateauthority', '--no-sign-certificate'];
    expect(
      (await cli(['create_api_user', 'powerless', ...none, '--no-view-certificate', '--no-revoke-certificate', '--password', 'pw'])).code,
    ).toBe(0);
    await createApiUser(
      f.store,
      'mixed',
      'pw',
      { signCertificate: [f.ca.serial, f.root.serial], revokeCertificate: false },
      { bcryptCost: 4 },
    );

    const r = await cli(['list_api_users']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const others = 'on all CAs';
    expect(r.stdout).toBe(
      [
        'alice - every permission on all CAs',
        'bob - every permission on all CAs',
        'mixed - view_certificateauthority, change_certificateauthority, view_certificate on all CAs; sign_certificate on child, root',
        `no_change_certificateauthority - view_certificateauthority, sign_certificate, view_certificate, revoke_certificate ${others}`,
        `no_revoke_certificate - view_certificateauthority, change_certificateauthority, sign_certificate, view_certificate ${others}`,
        `no_sign_certificate - view_certificateauthority, change_certificateauthority, view_certificate, revoke_certificate ${others}`,
        `no_view_certificate - view_certificateauthority, change_certificateauthority, sign_certificate, revoke_certificate ${others}`,
        `no_view_certificateauthority - change_certificateauthority, sign_certificate, view_certificate, revoke_certificate ${others}`,
        'powerless - no permissions',
        'web-signer - view_certificateauthority, sign_certificate, view_certificate, revoke_certificate on child',
        '',
      ].join('\n'),
    );
  });

  test('delete_api_user: the user, its grants and its orders go, its certificates stay; the server refuses it at once', async () => {
    const csr = opensslCsr('EC', 'bob.example.com').csr;
    const signed = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/sign/`)
      .set(as('bob'))
      .send({ csr, subject: [{ oid: 'CN', value: 'bob.example.com' }] });
    expect(signed.status).toBe(200);
    const order = await waitForOrder(f.app, f.ca.serial, signed.body.slug, as('bob'));
    expect(order.status).toBe('issued');
    // Bob's credentials are now in the server's caches (valid for DEFAULT_USER_CACHE_TTL_MS).
    expect((await listCas('bob')).status).toBe(200);
    const bob = (await f.store.findUser('bob'))!;

    const r = await cli(['delete_api_user', 'bob']);
    expect(r).toMatchObject({ code: 0, stdout: 'Deleted API user bob (and its 1 sign order).\n', stderr: '' });
    expect((await listCas('bob')).status).toBe(401);
    expect(await f.store.findUser('bob')).toBeNull();
    expect(await f.db.knex(TABLES.permissions).where({ user_id: bob.id })).toEqual([]);
    expect(await f.db.knex(TABLES.orders).where({ user_id: bob.id })).toEqual([]);
    expect(await f.store.findCertificate(f.ca.id, order.serial!)).not.toBeNull();
    expect((await cli(['list_api_users'])).stdout).not.toMatch(/^bob /m);
    // Everyone else is untouched.
    expect((await listCas('alice')).status).toBe(200);

    expect(await cli(['delete_api_user', 'web-signer'])).toMatchObject({ code: 0, stdout: 'Deleted API user web-signer.\n' });
  });

  test('delete_api_user: an unknown user is an error that changes nothing', async () => {
    const before = (await cli(['list_api_users'])).stdout;
    expect(await cli(['delete_api_user', 'nobody'])).toEqual(
      expect.objectContaining({ code: 1, stdout: '', stderr: 'Error: nobody: User not found.\n' }),
    );
    expect((await cli(['list_api_users'])).stdout).toBe(before);
  });

  test('set_api_user_password: piped stdin, hashed as create_api_user hashes, never printed; the old password stops at once', async () => {
    const user = 'no_revoke_certificate';
    expect((await listCas(user)).status).toBe(200); // cached by the server
    const r = await cli(['set_api_user_password', user], { stdin: Readable.from(['n3w-s3cret\nignored second line\n']) });
    expect(r).toMatchObject({ code: 0, stdout: `Changed the password of API user ${user}.\n`, stderr: '' });
    expect(r.stdout + r.stderr).not.toContain('n3w-s3cret');

    expect((await listCas(user)).status).toBe(401);
    expect((await listCas(user, 'n3w-s3cret')).status).toBe(200);
    const hash = (await f.store.findUser(user))!.passwordHash;
    // The same bcrypt as create_api_user, at the cost the runner gives both (4 in tests, 10 by default).
    expect(await bcrypt.compare('n3w-s3cret', hash)).toBe(true);
    expect(bcrypt.getRounds(hash)).toBe(bcrypt.getRounds((await f.store.findUser('powerless'))!.passwordHash));
  });

  test('set_api_user_password: on a terminal, asked twice and not echoed; a mismatch or an unknown user changes nothing', async () => {
    const user = 'no_sign_certificate';
    const before = (await f.store.findUser(user))!.passwordHash;
    const mismatch = await cli(['set_api_user_password', user], { stdin: terminal(['first-try', 'second-try']) });
    expect(mismatch).toMatchObject({ code: 1, stdout: '', stderr: 'Password: \nPassword (again): \nError: The passwords do not match.\n' });
    expect((await f.store.findUser(user))!.passwordHash).toBe(before);

    const ok = await cli(['set_api_user_password', user], { stdin: terminal(['typed-pass', 'typed-pass']) });
    expect(ok).toMatchObject({
      code: 0,
      stdout: `Changed the password of API user ${user}.\n`,
      stderr: 'Password: \nPassword (again): \n',
    });
    expect((await listCas(user, 'typed-pass')).status).toBe(200);

    // The user is looked up before anything is asked.
    const unknown = await cli(['set_api_user_password', 'nobody'], { stdin: terminal(['never-asked', 'never-asked']) });
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'Error: nobody: User not found.\n' });
    const empty = await cli(['set_api_user_password', user], { stdin: Readable.from([]) });
    expect(empty).toMatchObject({ code: 1, stderr: 'Error: No password given: type it on a terminal or pipe it on standard input.\n' });
    expect((await listCas(user, 'typed-pass')).status).toBe(200);
  });

  test("--use-admin, --view-auditlog and --manage-users grant the admin interface's own permissions (global, never by default); view and list show them", async () => {
    expect((await cli(['create_api_user', 'auditor', '--use-admin', '--view-auditlog', '--manage-users', '--password', 'pw'])).code).toBe(
      0,
    );
    expect((await cli(['create_api_user', 'plain', '--password', 'pw'])).code).toBe(0);
    const viewed = await cli(['view_api_user', 'auditor']);
    expect(viewed.stdout).toContain('\nuse_admin: yes\nview_auditlog: yes\nmanage_webhooks: -\nmanage_users: yes\n');
    expect((await cli(['view_api_user', 'plain'])).stdout).toContain('\nuse_admin: -\nview_auditlog: -\n');
    const listed = (await cli(['list_api_users'])).stdout;
    expect(listed).toContain('auditor - use_admin; view_auditlog; manage_users\n');
    expect(listed).toContain('plain - no permissions\n');
    // Replacing the permissions without the flag takes it away, as for the other permissions.
    expect((await cli(['set_api_user_permissions', 'auditor'])).code).toBe(0);
    expect((await cli(['view_api_user', 'auditor'])).stdout).toContain('\nuse_admin: -\nview_auditlog: -\n');
    // set_api_user_permissions grants it as create_api_user does.
    expect((await cli(['set_api_user_permissions', 'plain', '--use-admin'])).code).toBe(0);
    expect((await cli(['view_api_user', 'plain'])).stdout).toContain('\nuse_admin: yes\nview_auditlog: -\n');
    for (const name of ['auditor', 'plain']) expect((await cli(['delete_api_user', name])).code).toBe(0);
  });

  test('create_api_user grants nothing unless told (least privilege): --all-permissions grants the five of the REST API, each flag its own', async () => {
    const bare = await cli(['create_api_user', 'bare', '--password', 'pw']);
    expect(bare).toMatchObject({ code: 0, stdout: 'Created API user bare.\n' });
    expect(bare.stderr).toContain('API user bare holds no permission: grant them with set_api_user_permissions bare (--all-permissions');
    const view = (await cli(['view_api_user', 'bare'])).stdout;
    for (const p of [
      'view_certificateauthority',
      'change_certificateauthority',
      'sign_certificate',
      'view_certificate',
      'revoke_certificate',
    ]) {
      expect(view).toContain(`\n${p}: -\n`);
    }
    // The server agrees: no CA is listed to it.
    expect((await listCas('bare', 'pw')).status).toBe(403);

    expect(await cli(['create_api_user', 'full', '--all-permissions', '--password', 'pw'])).toMatchObject({ code: 0, stderr: '' });
    expect(await cli(['create_api_user', 'most', '--all-permissions', '--no-revoke-certificate', '--password', 'pw'])).toMatchObject({
      code: 0,
      stderr: '',
    });
    expect(
      await cli(['create_api_user', 'signer', '--sign-certificate', '--view-certificate', '--ca', 'child', '--password', 'pw']),
    ).toMatchObject({ code: 0, stderr: '' });
    const listed = (await cli(['list_api_users'])).stdout;
    expect(listed).toContain('bare - no permissions\n');
    expect(listed).toContain('full - every permission on all CAs\n');
    expect(listed).toContain(
      'most - view_certificateauthority, change_certificateauthority, sign_certificate, view_certificate on all CAs\n',
    );
    expect(listed).toContain('signer - sign_certificate, view_certificate on child\n');
    expect((await listCas('full', 'pw')).status).toBe(200);

    // set_api_user_permissions replaces them the same way: without a flag, nothing is left.
    expect((await cli(['set_api_user_permissions', 'full', '--view-certificate'])).code).toBe(0);
    expect((await cli(['list_api_users'])).stdout).toContain('full - view_certificate on all CAs\n');
    const emptied = await cli(['set_api_user_permissions', 'full']);
    expect(emptied.code).toBe(0);
    expect(emptied.stderr).toContain('API user full holds no permission');
    expect((await cli(['list_api_users'])).stdout).toContain('full - no permissions\n');
    for (const name of ['bare', 'full', 'most', 'signer']) expect((await cli(['delete_api_user', name])).code).toBe(0);
  });

  test('list_api_users: no users left, says so', async () => {
    for (const line of (await cli(['list_api_users'])).stdout.trim().split('\n')) {
      expect((await cli(['delete_api_user', line.split(' - ')[0]])).code).toBe(0);
    }
    expect(await cli(['list_api_users'])).toMatchObject({ code: 0, stdout: 'No API users.\n', stderr: '' });
  });
});

describeOnPostgres('API user commands from another process, on postgresql', (target) => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await setupApi(target);
  });
  afterAll(() => f?.close());

  const listCas = (username: string, password = PASSWORD) => request(f.app).get(`${API}/ca/`).set(as(username, password));

  // A `ca-admin` process has a store of its own: the server hears nothing from it and re-reads the
  // user once its cache entry is older than the TTL. An in-memory PGlite cannot be shared with
  // another process (and a PGlite directory is locked by the server that holds it), so PostgreSQL only.
  test('set_api_user_password and delete_api_user from another process: seen by the server within the user cache TTL', async () => {
    const user = 'no_view_certificate';
    const url = childDatabaseUrl(target, f.db);
    expect((await listCas(user)).status).toBe(200);
    let cachedAt = Date.now();
    const changed = caAdmin(url, ['set_api_user_password', user], 'from-a-process\n');
    expect(changed).toEqual({ code: 0, stdout: `Changed the password of API user ${user}.\n`, stderr: '' });
    await pause(Math.max(0, cachedAt + DEFAULT_USER_CACHE_TTL_MS + 100 - Date.now()));
    expect((await listCas(user, 'from-a-process')).status).toBe(200);
    expect((await listCas(user)).status).toBe(401);

    cachedAt = Date.now();
    const deleted = caAdmin(url, ['delete_api_user', user]);
    expect(deleted).toEqual({ code: 0, stdout: `Deleted API user ${user}.\n`, stderr: '' });
    await pause(Math.max(0, cachedAt + DEFAULT_USER_CACHE_TTL_MS + 100 - Date.now()));
    expect((await listCas(user, 'from-a-process')).status).toBe(401);
  }, 120_000);
});
