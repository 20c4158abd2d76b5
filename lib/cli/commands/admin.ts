/**
 * migrate and the API users: create_api_user, set_api_user_permissions, set_api_user_password,
 * view_api_user, list_api_users, delete_api_user.
 */
import { Option, type Command } from 'commander';
import { findCa } from '../../ca/lookup';
import {
  createApiUser,
  deleteApiUser,
  findApiUser,
  listApiUsers,
  setApiUserPassword,
  setApiUserPermissions,
  type ApiUserPermissions,
} from '../../accounts/users';
import { permissionSummary } from '../../accounts/user-summary';
import { ADMIN_PERMISSIONS, ALL_PERMISSIONS, type Store, type UserRecord } from '../../ports';
import { serialToColons } from '../../x509/serial-format';
import type { CommandContext } from '../context';
import { promptPassword } from '../password-prompt';
import type { Action } from './shared';

/**
 * The five permissions of the REST API: none unless granted (least privilege; django-ca's
 * `create_api_user()` grants all five) — each by its flag, or all five by `--all-permissions`, of which
 * `--no-<permission>` withholds one. Undefined: the flag was not given.
 */
interface PermissionFlags {
  allPermissions?: boolean;
  viewCertificateauthority?: boolean;
  changeCertificateauthority?: boolean;
  signCertificate?: boolean;
  viewCertificate?: boolean;
  revokeCertificate?: boolean;
  /** `--use-admin`: signing in to the admin interface at all (global). */
  useAdmin?: boolean;
  /** `--view-auditlog`: the admin interface's audit log (global). */
  viewAuditlog?: boolean;
  /** `--manage-webhooks`: webhook management in the admin interface (global). */
  manageWebhooks?: boolean;
  /** `--manage-users`: user management in the admin interface (global). */
  manageUsers?: boolean;
  /** `--ca`, repeated: the only CAs the permissions hold for (docs/reference/differences.md D23). */
  ca: string[];
}

interface UserFlags extends PermissionFlags {
  password?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

const API_PERMISSION_FLAGS = [
  'view-certificateauthority',
  'change-certificateauthority',
  'sign-certificate',
  'view-certificate',
  'revoke-certificate',
] as const;

/** The grant options shared by the commands that set permissions. */
function permissionOptions(cmd: Command): Command {
  cmd.option(
    '--all-permissions',
    'grant the five permissions of the REST API (view_certificateauthority, change_certificateauthority, sign_certificate, ' +
      "view_certificate, revoke_certificate; not the admin interface's)",
  );
  for (const flag of API_PERMISSION_FLAGS) {
    const permission = flag.replace(/-/g, '_');
    cmd.option(`--${flag}`, `grant ${permission}`);
    cmd.option(`--no-${flag}`, `withhold ${permission} (with --all-permissions)`);
  }
  return cmd
    .option('--use-admin', 'grant use_admin: signing in to the admin interface at all (not granted otherwise: a machine user stays out)')
    .option('--view-auditlog', 'grant view_auditlog: the audit log in the admin interface (on every CA; not granted otherwise)')
    .option('--manage-webhooks', 'grant manage_webhooks: webhook endpoints in the admin interface (not granted otherwise)')
    .option('--manage-users', 'grant manage_users: managing users in the admin interface, which can grant anything (not granted otherwise)')
    .addOption(
      new Option('--ca <serial>', 'grant the permissions for this CA only (serial or name); repeat for several')
        .argParser(collect)
        .default([], 'every CA'),
    );
}

/** Flags → `ApiUserPermissions`; each `--ca` is found as the other commands find CAs (disabled ones too). */
async function permissionsOf(store: Store, o: PermissionFlags): Promise<ApiUserPermissions> {
  const cas = o.ca.length
    ? await Promise.all(o.ca.map(async (value) => (await findCa(store, value, { allowDisabled: true })).serial))
    : undefined;
  const granted = (flag: boolean | undefined): boolean => flag ?? o.allPermissions === true;
  return {
    viewCertificateAuthority: granted(o.viewCertificateauthority),
    changeCertificateAuthority: granted(o.changeCertificateauthority),
    signCertificate: granted(o.signCertificate),
    viewCertificate: granted(o.viewCertificate),
    revokeCertificate: granted(o.revokeCertificate),
    useAdmin: o.useAdmin === true,
    viewAuditLog: o.viewAuditlog === true,
    manageWebhooks: o.manageWebhooks === true,
    manageUsers: o.manageUsers === true,
    ...(cas ? { cas } : {}),
  };
}

/** A user left with no permission at all is allowed (it can be granted later), but said, on stderr. */
function warnIfPowerless(ctx: CommandContext, username: string, p: ApiUserPermissions): void {
  if (Object.entries(p).some(([key, value]) => key !== 'cas' && value === true)) return;
  ctx.note(
    `API user ${username} holds no permission: grant them with set_api_user_permissions ${username} ` +
      '(--all-permissions for the five of the REST API, or one flag each; ca-admin set_api_user_permissions --help).',
  );
}

export function registerAdminCommands(program: Command, run: Action): void {
  program
    .command('migrate')
    .description('Create or update the database tables.')
    .action(
      run(async (ctx: CommandContext) => {
        const store = await ctx.unmigratedStore();
        const applied = await store.migrate();
        ctx.write(typeof applied === 'number' ? `Migrations applied (${applied} new).\n` : 'Migrations applied.\n');
      }),
    );

  permissionOptions(
    program
      .command('create_api_user')
      .description(
        'Create a user of the REST API, with no permission unless granted: --all-permissions (the five of the REST API) ' +
          'or one flag each, on every CA unless limited with --ca.',
      )
      .argument('<username>', 'user name')
      .option('--password <password>', 'password (default: asked on the terminal, or read from piped stdin)'),
  ).action(
    run(async (ctx: CommandContext, username: string, o: UserFlags) => {
      const store = await ctx.store();
      // CAs first: a mistyped --ca fails before the password prompt.
      const permissions = await permissionsOf(store, o);
      const password = o.password ?? (await promptPassword(ctx.io.stdin, ctx.io.stderr));
      await createApiUser(store, username, password, permissions, { bcryptCost: ctx.io.bcryptCost });
      ctx.write(`Created API user ${username}.\n`);
      warnIfPowerless(ctx, username, permissions);
    }),
  );

  permissionOptions(
    program
      .command('set_api_user_permissions')
      .description(
        "Replace a REST API user's permissions with those granted (none unless granted: --all-permissions or one flag each), " +
          'on every CA unless limited with --ca (takes effect at once).',
      )
      .argument('<username>', 'user name'),
  ).action(
    run(async (ctx: CommandContext, username: string, o: PermissionFlags) => {
      const store = await ctx.store();
      const permissions = await permissionsOf(store, o);
      await setApiUserPermissions(store, username, permissions);
      ctx.write(`Changed the permissions of API user ${username}.\n`);
      warnIfPowerless(ctx, username, permissions);
    }),
  );

  program
    .command('view_api_user')
    .description("Show a REST API user's permissions and the CAs each holds for.")
    .argument('<username>', 'user name')
    .action(
      run(async (ctx: CommandContext, username: string) => {
        const store = await ctx.store();
        const user = await findApiUser(store, username);
        const names = new Map((await store.listCas()).map((ca) => [ca.serial, ca.name]));
        const lines = [`Username: ${user.username}`];
        for (const permission of ALL_PERMISSIONS) {
          const serials = (user.caGrants ?? []).filter((g) => g.permission === permission).map((g) => g.caSerial);
          const scope = user.permissions.includes(permission)
            ? 'all CAs'
            : serials.map((s) => `${serialToColons(s)} - ${names.get(s) ?? '?'}`).join(', ');
          lines.push(`${permission}: ${scope || '-'}`);
        }
        for (const permission of ADMIN_PERMISSIONS) lines.push(`${permission}: ${user.permissions.includes(permission) ? 'yes' : '-'}`);
        ctx.write(lines.join('\n') + '\n');
      }),
    );

  program
    .command('set_api_user_password')
    .description(
      "Set a REST API user's password: typed twice on a terminal (not shown), or the first line of piped stdin " +
        '(never a command-line value; takes effect at once).',
    )
    .argument('<username>', 'user name')
    .action(
      run(async (ctx: CommandContext, username: string) => {
        const store = await ctx.store();
        // The user first: a mistyped name fails before the prompt.
        await findApiUser(store, username);
        const password = await promptPassword(ctx.io.stdin, ctx.io.stderr, { option: null });
        await setApiUserPassword(store, username, password, { bcryptCost: ctx.io.bcryptCost });
        ctx.write(`Changed the password of API user ${username}.\n`);
      }),
    );

  program
    .command('list_api_users')
    .description('List the REST API users, each with its permissions and the CAs they hold for.')
    .action(
      run(async (ctx: CommandContext) => {
        const store = await ctx.store();
        const users = await listApiUsers(store);
        const names = new Map((await store.listCas()).map((ca) => [ca.serial, ca.name]));
        ctx.write(users.length ? users.map((u) => userLine(u, names) + '\n').join('') : 'No API users.\n');
      }),
    );

  program
    .command('delete_api_user')
    .description('Delete a REST API user with its permissions and the sign orders it placed (takes effect at once).')
    .argument('<username>', 'user name')
    .action(
      run(async (ctx: CommandContext, username: string) => {
        const { orders } = await deleteApiUser(await ctx.store(), username);
        const gone = orders ? ` (and its ${orders} sign order${orders === 1 ? '' : 's'})` : '';
        ctx.write(`Deleted API user ${username}${gone}.\n`);
      }),
    );
}

/** `<username> - <permissions> on <CAs>; …` for list_api_users (lib/accounts/user-summary.ts words the permissions). */
export function userLine(user: UserRecord, caNames: ReadonlyMap<string, string>): string {
  return `${user.username} - ${permissionSummary(user, caNames)}`;
}
