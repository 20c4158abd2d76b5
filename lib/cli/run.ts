/**
 * `ca-admin`: the management commands of reference/cli.md, runnable in-process (tests) or as the
 * process entry (main.ts). Every failure ends as one line on stderr and a non-zero exit code.
 */
import { Command, CommanderError } from 'commander';
import { CommandContext } from './context';
import type { CliIo } from './io';
import { registerAdminCommands } from './commands/admin';
import { registerCaCommands } from './commands/cas';
import { registerCertCommands } from './commands/certs';
import { registerRevocationCommands } from './commands/revocation';
import type { Action } from './commands/shared';
import { X509Error } from '../x509/errors';

export type { CliIo } from './io';

/** One line for the operator: the message, validation issues with where they are. */
export function errorLine(e: unknown): string {
  if (e instanceof X509Error && e.code === 'validation' && e.issues.length) {
    return e.issues.map((i) => (i.loc.length ? `${i.loc.join('.')}: ${i.msg}` : i.msg)).join('; ');
  }
  const message = e instanceof Error ? e.message : String(e);
  return message.replace(/\s*\n\s*/g, ' ');
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
    const program = new Command('ca-admin')
      .description('Manage the certificate authorities of express-ca-api.')
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
      .showSuggestionAfterError();
    registerAdminCommands(program, run);
    registerCaCommands(program, run);
    registerCertCommands(program, run, ctx.profiles());
    registerRevocationCommands(program, run);
    for (const cmd of program.commands) cmd.exitOverride().configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : e.exitCode || 2;
    failure = e;
  } finally {
    await ctx.close().catch(() => undefined);
  }
  if (failure !== null) {
    io.stderr.write(`Error: ${errorLine(failure)}\n`);
    return 1;
  }
  return 0;
}
