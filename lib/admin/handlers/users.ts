/**
 * Users (docs/guides/admin-interface.md), for a holder of the global `manage_users` permission: the list
 * with their permissions in words, a new user (password twice, the permissions), and per user the
 * permissions (replaced as `set_api_user_permissions` does), a new password, deletion (with the sign
 * orders the user placed). Every change is audited as the signed-in user over `admin` and ends the
 * changed user's sessions (its `updated` stamp moves). You cannot delete yourself or take away your
 * own `manage_users` or `use_admin`, so the interface never locks its last administrator out by accident.
 */
import { CaError } from '../../ca/errors';
import { permissionSummary } from '../../accounts/user-summary';
import { createApiUser, deleteApiUser, listApiUsers, setApiUserPassword, setApiUserPermissions } from '../../accounts/users';
import { actingAs, type Store, type UserRecord } from '../../ports';
import { adminActor, notFoundPage, requireGlobal } from '../access';
import type { SignedInContext } from '../context';
import { html, type Html } from '../html';
import { redirect, sendPage } from '../page';
import { dataTable } from '../table';
import { permissionFields, permissionsFromForm } from '../users-form';

/** The signed-in user's store for writes (events name them), after checking `manage_users`. */
async function managing(ctx: SignedInContext): Promise<Store> {
  await requireGlobal(ctx, 'manage_users');
  return actingAs(ctx.services.store, adminActor(ctx));
}

const csrf = (ctx: SignedInContext): Html => html`<input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />`;
const passwordFields = html`<div class="field">
    <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" />
  </div>
  <div class="field">
    <label for="password2">Password again</label><input id="password2" name="password2" type="password" autocomplete="new-password" />
  </div>`;

function passwordFrom(form: URLSearchParams): string {
  const password = form.get('password') ?? '';
  if (password.length < 8) throw new CaError('invalid', 'The password must have at least 8 characters.');
  if (password !== form.get('password2')) throw new CaError('invalid', 'The two passwords differ.');
  return password;
}

/** The users page; `store` is the signed-in user's (`managing`: the permission is checked once per request). */
async function usersPage(ctx: SignedInContext, store: Store, status = 200, message: string | null = null): Promise<void> {
  const [users, cas] = await Promise.all([listApiUsers(store), store.listCas()]);
  const names = new Map(cas.map((ca) => [ca.serial, ca.name]));
  sendPage(ctx, {
    status,
    title: 'Users',
    body: html`<h1>Users</h1>
      ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
      ${dataTable(
        'Users',
        ['User', 'Permissions'],
        users.map(
          (u) =>
            html`<td><a href="${ctx.base}users/${u.username}/">${u.username}</a></td>
              <td>${permissionSummary(u, names)}</td>`,
        ),
      )}
      <h2>New user</h2>
      <form method="post" action="${ctx.base}users/">
        ${csrf(ctx)}
        <div class="field"><label for="username">Username</label><input id="username" name="username" autocomplete="off" /></div>
        ${passwordFields} ${permissionFields(cas, null)}
        <button type="submit">Create</button>
      </form>`,
  });
}

async function userPage(ctx: SignedInContext, { store, user }: ManagedUser, status = 200, message: string | null = null): Promise<void> {
  const cas = await store.listCas();
  const self = user.id === ctx.session.user.id;
  const base = `${ctx.base}users/${user.username}/`;
  sendPage(ctx, {
    status,
    title: user.username,
    body: html`<h1>${user.username}</h1>
      ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
      ${ctx.req.query.saved === '1' && !message ? html`<p class="message ok" role="status">Saved.</p>` : null}
      <p>${permissionSummary(user, new Map(cas.map((ca) => [ca.serial, ca.name])))}</p>
      <h2>Permissions</h2>
      <form method="post" action="${base}permissions">
        ${csrf(ctx)}${permissionFields(cas, user)}<button type="submit">Save permissions</button>
      </form>
      <h2>Password</h2>
      <form method="post" action="${base}password">${csrf(ctx)}${passwordFields}<button type="submit">Set password</button></form>
      ${
        self
          ? null
          : html`<h2>Delete</h2>
              <form method="post" action="${base}delete">
                ${csrf(ctx)}
                <p>Deletes the user with its permissions and the sign orders it placed; its certificates stay.</p>
                <button class="danger" type="submit">Delete ${user.username}</button>
              </form>`
      }`,
  });
}

export const showUsers = async (ctx: SignedInContext): Promise<void> => usersPage(ctx, await managing(ctx));

export async function createUser(ctx: SignedInContext): Promise<void> {
  const store = await managing(ctx);
  const form = ctx.form as URLSearchParams;
  const username = (form.get('username') ?? '').trim();
  try {
    if (!/^[\w.@+-]{1,150}$/.test(username)) throw new CaError('invalid', 'A username has 1 to 150 letters, digits and @ . + - _.');
    await createApiUser(store, username, passwordFrom(form), permissionsFromForm(form));
  } catch (e) {
    if (e instanceof CaError) return usersPage(ctx, store, 400, e.message);
    throw e;
  }
  redirect(ctx.res, `${ctx.base}users/${username}/?saved=1`);
}

/** The user a `users/{username}/` path names, with the signed-in user's store for the writes. */
interface ManagedUser {
  store: Store;
  user: UserRecord;
}

async function userOf(ctx: SignedInContext): Promise<ManagedUser> {
  const store = await managing(ctx);
  const user = await ctx.services.store.findUser(ctx.params.username);
  if (!user) throw notFoundPage('The user');
  return { store, user };
}

export async function showUser(ctx: SignedInContext): Promise<void> {
  await userPage(ctx, await userOf(ctx));
}

/** Run a change of `user`; its refusals are messages on the user's page. */
async function changing(
  ctx: SignedInContext,
  managed: ManagedUser,
  change: (store: Store, form: URLSearchParams) => Promise<unknown>,
): Promise<void> {
  try {
    await change(managed.store, ctx.form as URLSearchParams);
  } catch (e) {
    if (e instanceof CaError) return userPage(ctx, managed, 400, e.message);
    throw e;
  }
  redirect(ctx.res, `${ctx.base}users/${managed.user.username}/?saved=1`);
}

export async function updatePermissions(ctx: SignedInContext): Promise<void> {
  const managed = await userOf(ctx);
  const { user } = managed;
  await changing(ctx, managed, async (store, form) => {
    const permissions = permissionsFromForm(form);
    if (user.id === ctx.session.user.id && !permissions.manageUsers)
      throw new CaError('invalid', 'You cannot take manage_users away from yourself.');
    if (user.id === ctx.session.user.id && !permissions.useAdmin)
      throw new CaError('invalid', 'You cannot take use_admin away from yourself.');
    await setApiUserPermissions(store, user.username, permissions);
  });
}

export async function updatePassword(ctx: SignedInContext): Promise<void> {
  const managed = await userOf(ctx);
  await changing(ctx, managed, (store, form) => setApiUserPassword(store, managed.user.username, passwordFrom(form)));
}

export async function deleteUser(ctx: SignedInContext): Promise<void> {
  const managed = await userOf(ctx);
  if (managed.user.id === ctx.session.user.id) return userPage(ctx, managed, 400, 'You cannot delete yourself.');
  await deleteApiUser(managed.store, managed.user.username);
  redirect(ctx.res, `${ctx.base}users/`);
}
