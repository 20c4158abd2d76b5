/**
 * The admin interface on the API fixture's store (PGlite, or PostgreSQL with TEST_DATABASE_URL): a
 * host app with `createCaAdminRouter` at `/admin/`, and a signed-in supertest agent per user (it
 * keeps cookies as a browser does).
 */
import express from 'express';
import request from 'supertest';
import { createApiUser, createCaAdminRouter, listApiUsers, type CaAdminRouter, type CaAdminRouterOptions, type Logger } from '../../lib';
import type { CertificateRecord, NewCertificate } from '../../lib/ports';
import { PASSWORD, setupApi, type ApiFixture } from '../api/fixture';

export const ADMIN = '/admin/';

/** `createApiUser` flags granting nothing (it grants the five of the REST API unless each is `false`). */
export const NO_PERMISSIONS = {
  viewCertificateAuthority: false,
  changeCertificateAuthority: false,
  signCertificate: false,
  viewCertificate: false,
  revokeCertificate: false,
} as const;

export interface AdminFixture {
  api: ApiFixture;
  app: express.Express;
  router: CaAdminRouter;
  /** What the router logged as errors (an unexpected failure is one). */
  errors: string[];
  /** A supertest agent signed in as `username` (cookies kept). */
  signIn(username: string, password?: string): Promise<ReturnType<typeof request.agent>>;
  close(): Promise<void>;
}

/**
 * A user (password `PASSWORD`) who may sign in to the interface (`use_admin`) and view the
 * certificates of these CAs only, or of none (`false`), and nothing else (createApiUser grants the
 * permissions not set to false).
 */
export function createCertificateViewer(api: ApiFixture, username: string, caSerials: string[] | false): ReturnType<typeof createApiUser> {
  return createApiUser(api.store, username, PASSWORD, { ...NO_PERMISSIONS, useAdmin: true, viewCertificate: caSerials }, { bcryptCost: 4 });
}

/** `use_admin` for every user the API fixture made (alice, bob, no_<permission>): the admin tests sign in as them. */
async function letSignIn(api: ApiFixture): Promise<void> {
  for (const user of await listApiUsers(api.store)) {
    await api.store.updateUser(user.id, { permissions: [...user.permissions, 'use_admin'] });
  }
}

/** The hidden CSRF token of a page's form (the one posting to `action`, default the last on the page: not the header's sign-out form). */
export function formToken(page: string, action?: string): string {
  const from = action ? page.indexOf(`action="${action}"`) : page.lastIndexOf('<form');
  const m = /name="_csrf" value="([^"]+)"/.exec(page.slice(Math.max(from, 0)));
  if (!m) throw new Error('no _csrf field on the page');
  return m[1];
}

export async function setupAdmin(
  options: Partial<CaAdminRouterOptions> = {},
  configure?: (app: express.Express) => void,
  /** The API fixture's database and REST router options (default: PGlite, the fixture's own). */
  ...apiSetup: Parameters<typeof setupApi>
): Promise<AdminFixture> {
  const api = await setupApi(...apiSetup);
  await letSignIn(api);
  const admin = adminOn(api, options, configure);
  return { ...admin, close: async () => (await admin.close(), await api.close()) };
}

/** Another admin router, with other options, on the same API fixture (its `close` leaves the fixture open). */
export function adminOn(
  api: ApiFixture,
  options: Partial<CaAdminRouterOptions> = {},
  configure?: (app: express.Express) => void,
): AdminFixture {
  const app = express();
  configure?.(app);
  const errors: string[] = [];
  const logger: Logger = { info: () => undefined, warn: () => undefined, error: (m) => void errors.push(m), child: () => logger };
  const router = createCaAdminRouter({ store: api.store, keyBackends: { default: api.keyBackend }, logger, ...options });
  app.use(router);
  return {
    api,
    app,
    router,
    errors,
    async signIn(username, password = PASSWORD) {
      const agent = request.agent(app);
      const form = await agent.get(`${ADMIN}login`).expect(200);
      const res = await agent
        .post(`${ADMIN}login`)
        .type('form')
        .send({ _csrf: formToken(form.text), username, password, next: '' });
      if (res.status !== 303) throw new Error(`sign-in of ${username}: ${res.status} ${res.text.slice(0, 300)}`);
      return agent;
    },
    close: () => router.close(),
  };
}

export type AdminAgent = ReturnType<typeof request.agent>;

/** A copy of `cert` under another serial with `fields` changed (no signing: the pages read records). */
export function certificateCopy(cert: CertificateRecord, serial: string, fields: Partial<NewCertificate> = {}): NewCertificate {
  const { id: _id, created: _c, updated: _u, watchers: _w, certificateText: _t, ...rest } = cert;
  return { ...rest, serial, certificate: { ...rest.certificate, serial }, ...fields };
}

/** The serials of the HTML certificate list at `url`, every page of it (following "Next page"). */
export async function listedSerials(agent: AdminAgent, url: string): Promise<string[]> {
  const out: string[] = [];
  let next: string | null = url;
  while (next) {
    const page = await agent.get(next).expect(200);
    for (const m of page.text.matchAll(/<a href="\/admin\/certs\/[0-9A-F]+\/([0-9A-F]+)\/">/g)) out.push(m[1]);
    const more = /<a href="([^"]+)" rel="next">/.exec(page.text);
    next = more ? more[1].replace(/&amp;/g, '&') : null;
  }
  return out;
}
