/**
 * rotate_kek: re-encrypt every stored CA key (and OCSP responder key) under a new key-encryption key,
 * and re-seal the secrets sealed under the old one (webhook secrets, ACME binding keys), in one
 * transaction (docs/operations/kek-rotation.md).
 *
 * The old KEK is the one the command runs with (CA_KEY_ENCRYPTION_KEY). The new one is never a
 * command-line value, which `ps` and shell histories show: it comes from an environment variable the
 * operator names, or from standard input. Only KEK identifiers are printed, never key material.
 */
import type { Command } from 'commander';
import { CaError } from '../../ca/errors';
import { keyBackendFor } from '../../ca/key-backends';
import { hasKekRotation, type KekRotation, type SealedSecretReference, type StoredKeyReference } from '../../ports';
import type { CommandContext } from '../context';
import { readAll } from '../io';
import type { Action } from './shared';

interface RotateFlags {
  newKeyEnv?: string;
  newKeyStdin?: boolean;
  keyBackend: string;
  dryRun?: boolean;
}

const HOW_TO_GIVE =
  'Give the new key-encryption key with --new-key-env NAME (the environment variable that holds it) or pipe it ' +
  'with --new-key-stdin; never as a command-line value, which other users can see in `ps`.';

async function readNewKek(ctx: CommandContext, o: RotateFlags): Promise<string> {
  if (o.newKeyEnv !== undefined && o.newKeyStdin) throw new CaError('invalid', `Use only one of --new-key-env and --new-key-stdin.`);
  if (o.newKeyEnv !== undefined) {
    const value = ctx.io.env[o.newKeyEnv];
    if (!value) throw new CaError('invalid', `The environment variable ${o.newKeyEnv} (--new-key-env) is not set or empty.`);
    return value;
  }
  if (o.newKeyStdin) {
    const stdin = ctx.io.stdin;
    if (!stdin || stdin.isTTY) throw new CaError('invalid', '--new-key-stdin reads the key from piped standard input, not a terminal.');
    const line = (await readAll(stdin)).toString('utf8').split(/\r?\n/)[0].trim();
    if (!line) throw new CaError('invalid', 'Standard input held no key-encryption key (--new-key-stdin).');
    return line;
  }
  throw new CaError('invalid', HOW_TO_GIVE);
}

const KIND_NAMES: Record<StoredKeyReference['kind'], string> = { ca: '', ocsp: ', OCSP responder key', scep_ra: ', SCEP RA key' };

function describe(key: StoredKeyReference): string {
  return `${key.caName} (${key.caSerial})${KIND_NAMES[key.kind]}`;
}

const SECRET_NAMES: Record<SealedSecretReference['kind'], string> = { webhook: 'webhook', acme_eab: 'ACME binding key' };

/**
 * The sealed secrets' part of a rotation: each one under the old KEK is sealed again under the new
 * one. One that does not open (under a third KEK, or damaged) is already of no use to any server: it
 * is left as it is and named, rather than holding up the rotation of the CA keys.
 */
function secretResealing(rotation: KekRotation, dryRun: boolean) {
  const counts = { webhook: 0, acme_eab: 0, current: 0 };
  const left: string[] = [];
  const reseal = rotation.reseal?.bind(rotation);
  return {
    reseal: reseal
      ? (secret: SealedSecretReference): unknown => {
          let next: unknown;
          try {
            next = reseal(secret.sealed);
          } catch {
            left.push(`${SECRET_NAMES[secret.kind]} ${secret.id}`);
            return null;
          }
          if (next === null) counts.current++;
          else counts[secret.kind]++;
          return dryRun ? null : next;
        }
      : undefined,
    /** The clause of the command's one line (`; re-sealed …`), or '' when the store holds no sealed secret. */
    clause(): string {
      const moved = counts.webhook + counts.acme_eab;
      if (!moved && !counts.current && !left.length) return '';
      const verb = dryRun ? 'would re-seal' : 're-sealed';
      const current = counts.current ? `, ${counts.current} under the new key already` : '';
      return `; ${verb} ${moved} secret(s) (${counts.webhook} webhook, ${counts.acme_eab} ACME binding key)${current}`;
    },
    /** What the operator has to do about the secrets left behind, or null. */
    leftBehind(): string | null {
      if (!left.length) return null;
      return (
        `Left ${left.length} secret(s) that the current key-encryption key does not open (${left.join(', ')}): ` +
        'make new ones (rotate_webhook_secret, create_acme_eab_key).'
      );
    },
  };
}

export function registerKeyCommands(program: Command, run: Action): void {
  program
    .command('rotate_kek')
    .description(
      'Re-encrypt every stored CA key, webhook secret and ACME binding key under a new key-encryption key, in one transaction (the old key is CA_KEY_ENCRYPTION_KEY).',
    )
    .option('--new-key-env <name>', 'name of the environment variable that holds the new key (32 bytes, base64)')
    .option('--new-key-stdin', 'read the new key from the first line of piped standard input')
    .option('--key-backend <alias>', 'key backend whose keys to re-encrypt', 'default')
    .option('--dry-run', 'check that every key can be re-encrypted, change nothing')
    .action(
      run(async (ctx: CommandContext, o: RotateFlags) => {
        const newKek = await readNewKek(ctx, o);
        const backend = keyBackendFor(ctx.keyBackends(), o.keyBackend);
        if (!hasKekRotation(backend)) {
          throw new CaError('invalid', `${o.keyBackend}: this key backend keeps no keys under a key-encryption key.`);
        }
        const rotation = backend.kekRotation(newKek);
        const store = await ctx.store();

        const counts = { ca: 0, ocsp: 0, scep_ra: 0, current: 0 };
        const secrets = secretResealing(rotation, o.dryRun ?? false);
        await store.rewriteStoredKeys(
          o.keyBackend,
          (key) => {
            let rewrapped: Record<string, unknown> | null;
            try {
              rewrapped = rotation.rewrap(key.options);
            } catch (e) {
              throw new CaError('key', `${describe(key)}: ${e instanceof Error ? e.message : String(e)} Nothing was changed.`);
            }
            if (rewrapped) counts[key.kind]++;
            else counts.current++;
            return o.dryRun ? null : rewrapped;
          },
          { from_kek: rotation.fromKekId, to_kek: rotation.toKekId },
          secrets.reseal,
        );

        // One line on stdout (docs/reference/cli.md); what the operator must do next goes to stderr.
        const ra = counts.scep_ra ? `, ${counts.scep_ra} SCEP RA` : '';
        const what = `${counts.ca + counts.ocsp + counts.scep_ra} key(s) (${counts.ca} CA, ${counts.ocsp} OCSP responder${ra})`;
        const from = `from key-encryption key ${rotation.fromKekId} to ${rotation.toKekId}`;
        const current = counts.current ? `; ${counts.current} key(s) were under the new key already` : '';
        const stale = secrets.leftBehind();
        if (o.dryRun) {
          ctx.write(`Dry run: would re-encrypt ${what} ${from}${current}${secrets.clause()}. Nothing was changed.\n`);
          if (stale) ctx.note(stale);
          return;
        }
        ctx.write(`Re-encrypted ${what} ${from}${current}${secrets.clause()}.\n`);
        if (stale) ctx.note(stale);
        ctx.note(
          'Now set CA_KEY_ENCRYPTION_KEY to the new key wherever the CA keys are used (servers, ca-admin) and restart the ' +
            'servers: the old key opens none of these keys any more. Keep the new key safe.',
        );
      }),
    );
}
