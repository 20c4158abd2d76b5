/**
 * The users pages' permission fields (docs/guides/admin-interface.md): one checkbox per permission of the
 * REST API (checked: granted), "only these CAs" as CA checkboxes (none checked: every CA), and the
 * interface's own global permissions — the same choices as `ca-admin create_api_user`'s flags.
 */
import type { ApiUserPermissions } from '../accounts/users';
import { ADMIN_PERMISSIONS, ALL_PERMISSIONS, type CaRecord, type UserRecord } from '../ports';
import { html, type Html } from './html';

const FLAG = {
  view_certificateauthority: 'viewCertificateAuthority',
  change_certificateauthority: 'changeCertificateAuthority',
  sign_certificate: 'signCertificate',
  view_certificate: 'viewCertificate',
  revoke_certificate: 'revokeCertificate',
} as const;

/** The form's choices as `createApiUser` / `setApiUserPermissions` take them. */
export function permissionsFromForm(form: URLSearchParams): ApiUserPermissions {
  const cas = form.getAll('cas').filter(Boolean);
  const out: ApiUserPermissions = {
    useAdmin: form.get('use_admin') === 'on',
    viewAuditLog: form.get('view_auditlog') === 'on',
    manageWebhooks: form.get('manage_webhooks') === 'on',
    manageUsers: form.get('manage_users') === 'on',
    ...(cas.length ? { cas } : {}),
  };
  for (const p of ALL_PERMISSIONS) out[FLAG[p]] = form.get(p) === 'on';
  return out;
}

const box = (name: string, value: string, label: string, checked: boolean): Html =>
  html`<div>
    <input type="checkbox" id="${name}-${value}" name="${name}" value="${value}" ${checked ? html` checked` : null} />
    <label class="inline" for="${name}-${value}">${label}</label>
  </div>`;

/**
 * The permission fieldsets, showing `user`'s current choices; a new user's: none (least privilege, as
 * `ca-admin create_api_user` without flags) — what the user may do is ticked, never left unticked.
 */
export function permissionFields(cas: readonly CaRecord[], user: UserRecord | null): Html {
  const held = (p: string) =>
    user ? user.permissions.includes(p as never) || (user.caGrants ?? []).some((g) => g.permission === p) : false;
  const limited = new Set((user?.caGrants ?? []).map((g) => g.caSerial));
  return html`<fieldset>
      <legend>Permissions of the REST API</legend>
      ${ALL_PERMISSIONS.map((p) => box(p, 'on', p, held(p)))}
    </fieldset>
    <fieldset>
      <legend>Only on these CAs (none checked: every CA)</legend>
      ${cas.map((ca) => box('cas', ca.serial, ca.name, limited.has(ca.serial)))}
    </fieldset>
    <fieldset>
      <legend>Admin interface (on everything)</legend>
      ${ADMIN_PERMISSIONS.map((p) => box(p, 'on', p, held(p)))}
    </fieldset>`;
}
