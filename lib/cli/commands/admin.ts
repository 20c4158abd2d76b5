/** migrate, create_api_user. */
import type { Command } from 'commander';
import { createApiUser } from '../../ca/users';
import type { CommandContext } from '../context';
import { promptPassword } from '../password-prompt';
import type { Action } from './shared';

interface UserFlags {
  password?: string;
  viewCertificateauthority: boolean;
  changeCertificateauthority: boolean;
  signCertificate: boolean;
  viewCertificate: boolean;
  revokeCertificate: boolean;
}

export function registerAdminCommands(program: Command, run: Action): void {
  program
    .command('migrate')
    .description('Create or update the database tables.')
    .action(
      run(async (ctx: CommandContext) => {
        const store = await ctx.store();
        await store.migrate();
      }),
    );

  program
    .command('create_api_user')
    .description('Create a user of the REST API (all five permissions unless withheld).')
    .argument('<username>', 'user name')
    .option('--password <password>', 'password (default: asked on the terminal, or read from piped stdin)')
    .option('--no-view-certificateauthority', 'withhold the view_certificateauthority permission')
    .option('--no-change-certificateauthority', 'withhold the change_certificateauthority permission')
    .option('--no-sign-certificate', 'withhold the sign_certificate permission')
    .option('--no-view-certificate', 'withhold the view_certificate permission')
    .option('--no-revoke-certificate', 'withhold the revoke_certificate permission')
    .action(
      run(async (ctx: CommandContext, username: string, o: UserFlags) => {
        const password = o.password ?? (await promptPassword(ctx.io.stdin, ctx.io.stderr));
        const store = await ctx.store();
        await createApiUser(
          store,
          username,
          password,
          {
            viewCertificateAuthority: o.viewCertificateauthority,
            changeCertificateAuthority: o.changeCertificateauthority,
            signCertificate: o.signCertificate,
            viewCertificate: o.viewCertificate,
            revokeCertificate: o.revokeCertificate,
          },
          { bcryptCost: ctx.io.bcryptCost },
        );
      }),
    );
}
