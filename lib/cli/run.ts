/**
 * `ca-admin`: the management commands of docs/COMPATIBILITY.md §4, runnable in-process (tests) or as the
 * process entry (main.ts). Every failure ends as one line on stderr and a non-zero exit code.
 */
import { Command, CommanderError } from 'commander';
import { CommandContext } from './context';
import type { CliIo } from './io';
import { withDevelopmentKekHint } from './kek-hint';
import { registerAdminCommands } from './commands/admin';
import { registerCaCommands } from './commands/cas';
import { registerCertCommands } from './commands/certs';
import { registerRevocationCommands } from './commands/revocation';
import { registerKeyCommands } from './commands/keys';
import { registerAcmeCommands } from './commands/acme';
import { registerOrderCommands } from './commands/orders';
import { registerWebhookCommands } from './commands/webhooks';
import { registerEnrolmentCommands } from './commands/enrolment';
import { registerEnrolmentEndpointCommands } from './commands/enrolment-endpoints';

import { registerEnrolmentRequestCommands } from './commands/enrolment-requests';
import { registerAuditCommands } from './commands/audit';
import { registerIntentCommands } from './commands/intents';
import { registerJobCommands } from './commands/jobs';
import { registerBackupCommands } from './commands/backup';
import type { Action } from './commands/shared';
import { X509Error } from '../x509/errors';

export type { CliIo } from './io';

/** What `--help` says about the environment: every variable a command reads. */
const ENVIRONMENT_HELP = `
Environment:
  DATABASE_URL            postgres://… URL, or a directory for the embedded PGlite database (default ./.ca-data)
  CA_KEY_ENCRYPTION_KEY   32 random bytes, base64, that encrypt every CA private key; keep it and reuse it
                          (it also seals the ACME binding keys that create_acme_eab_key makes and the
                          webhook secrets of add_webhook and rotate_webhook_secret)
  CA_DEFAULT_HOSTNAME     host[:port] for the URLs init_ca puts into a new CA's sign_* fields
  CA_URL_PATH             path prefix of those URLs (default django_ca/)
  CA_DEFAULT_PROFILE      profile of sign_cert without a profile flag (default webserver)
  CA_DEFAULT_CA           CA of sign_cert without --ca (serial or name; default: the usable CA that expires last)
  CA_DEFAULT_EXPIRES      default validity in days (default 100)
  CA_PROFILES             JSON merged into the built-in profiles
  CA_ENABLE_ACME          true shows the --acme-* options of init_ca, import_ca and edit_ca and view_ca's
                          ACME lines; false (the default, as for the server) hides them (given anyway: an error)
  CA_DATA_DIR             the example server's data directory (default ./.ca-data): without
                          CA_KEY_ENCRYPTION_KEY, errors name the development key kept there
  CA_HSM_LIBRARY_PATH     PKCS#11 library of an HSM (e.g. /usr/lib/softhsm/libsofthsm2.so): adds the key
                          backend hsm (init_ca/import_ca --key-backend hsm --hsm-key-label LABEL)
  CA_HSM_TOKEN            label of the HSM's token
  CA_HSM_USER_PIN         user PIN of the token (never printed or stored)
  CA_HSM_ALIAS            alias of that key backend (default hsm)`;

/** The same, short, after every command's own `--help`. */
const COMMAND_ENVIRONMENT_HELP = `
Environment:
  DATABASE_URL            postgres://… URL, or a directory for the embedded PGlite database (default ./.ca-data)
  CA_KEY_ENCRYPTION_KEY   base64 key that encrypts every CA private key (the same one every time)
  (\`ca-admin --help\` lists every variable the commands read.)`;

/** The package's version, from its package.json (two levels above lib/cli, in the sources and in dist/). */
function packageVersion(): string {
  for (const candidate of ['../../package.json', '../../../package.json']) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === 'express-ca-api' && pkg.version) return pkg.version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}

/** One line for the operator: the message, validation issues with where they are. */
export function errorLine(e: unknown): string {
  if (e instanceof X509Error && e.code === 'validation' && e.issues.length) {
    return e.issues.map((i) => (i.loc.length ? `${i.loc.join('.')}: ${i.msg}` : i.msg)).join('; ');
  }
  const message = e instanceof Error ? e.message : String(e);
  return message.replace(/\s*\n\s*/g, ' ');
}

/**
 * The `ca-admin` program: every command registered, each running through `run` with `ctx`'s settings,
 * writing to `ctx.io`. (Tests enumerate its commands: test/cli/command-table.test.ts.)
 */
export function caAdminProgram(ctx: CommandContext, run: Action): Command {
  const io = ctx.io;
  const program = new Command('ca-admin')
    .description('Manage the certificate authorities of express-ca-api.')
    .version(packageVersion(), '-V, --version', 'print the version of express-ca-api')
    .addHelpText('after', ENVIRONMENT_HELP)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showSuggestionAfterError();
  registerAdminCommands(program, run);
  registerCaCommands(program, run, ctx.settings.enableAcme);
  registerCertCommands(program, run, ctx.profiles());
  registerOrderCommands(program, run);
  registerRevocationCommands(program, run);
  registerKeyCommands(program, run);
  registerAcmeCommands(program, run);
  registerWebhookCommands(program, run);
  registerEnrolmentCommands(program, run);
  registerEnrolmentEndpointCommands(program, run);

  registerEnrolmentRequestCommands(program, run);
  registerAuditCommands(program, run);
  registerIntentCommands(program, run);
  registerJobCommands(program, run);
  registerBackupCommands(program, run);
  for (const cmd of program.commands)
    cmd
      .addHelpText('after', COMMAND_ENVIRONMENT_HELP)
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  return program;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let ctx: CommandContext;
  try {
    ctx = new CommandContext(io);
  } catch (e) {
    io.stderr.write(`Error: ${errorLine(e)}\n`);
    return 1;
  }
  let failure: unknown = null;
  const run: Action =
    (fn) =>
    async (...args) => {
      try {
        await fn(ctx, ...args);
      } catch (e) {
        failure = e;
      }
    };

  try {
    const program = caAdminProgram(ctx, run);
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : e.exitCode || 2;
    failure = e;
  } finally {
    await ctx.close().catch(() => undefined);
  }
  if (failure !== null) {
    io.stderr.write(`Error: ${errorLine(withDevelopmentKekHint(failure, io.env))}\n`);
    return 1;
  }
  return 0;
}
