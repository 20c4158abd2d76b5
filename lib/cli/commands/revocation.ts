/**
 * dump_crl, generate_crls, generate_ocsp_keys (docs/COMPATIBILITY.md "The ca-admin command").
 *
 * CRLs are built on demand by the server and kept only while nothing changed (lib/ca/crls.ts), so
 * `generate_crls` is not needed for freshness as it is upstream; it builds and reports the CRLs of
 * the usable CAs (a check that every CA key can sign) and, with `--out DIR`, writes them for static
 * hosting. `generate_ocsp_keys` makes or renews the delegated OCSP responder of each CA ahead of time.
 */
import { join } from 'path';
import type { Command } from 'commander';
import { CrlPublisher } from '../../ca/crls';
import { CaError } from '../../ca/errors';
import { findCa, isUsable } from '../../ca/lookup';
import { OcspDelegates } from '../../ca/ocsp-delegate';
import type { CaRecord, CrlScope, Store } from '../../ports';
import { serialToColons } from '../../x509/serial-format';
import type { CommandContext } from '../context';
import { ensureDirectory, outputFile, type OutputFile } from '../files';
import { intOption, type Action } from './shared';

/** The named CAs, or every usable one; `--exclude` only without names. */
async function chosenCas(store: Store, serials: string[], exclude: string[] | undefined, now: Date): Promise<CaRecord[]> {
  if (serials.length && exclude?.length) throw new CaError('invalid', 'Give CA serials or --exclude, not both.');
  if (serials.length) return Promise.all(serials.map((s) => findCa(store, s)));
  const excluded = new Set(await Promise.all((exclude ?? []).map(async (s) => (await findCa(store, s, { allowDisabled: true })).id)));
  return (await store.listCas()).filter((ca) => isUsable(ca, now) && !excluded.has(ca.id));
}

export function registerRevocationCommands(program: Command, run: Action): void {
  program
    .command('dump_crl')
    .description('Write a new CRL of a CA to PATH (- for stdout).')
    .argument('<path>', 'output file, or - for stdout')
    .option('--ca <serial>', 'the CA (serial or name); default: the usable CA that expires last')
    .option('-f, --format <format>', 'PEM or DER', 'PEM')
    .option('-e, --expires <seconds>', 'seconds until nextUpdate', '86400')
    .option('--only-contains-ca-certs', 'only child CAs (Issuing Distribution Point onlyContainsCACerts)')
    .option('--only-contains-user-certs', 'only end-entity certificates (onlyContainsUserCerts)')
    .action(
      run(
        async (
          ctx: CommandContext,
          path: string,
          o: { ca?: string; format: string; expires: string; onlyContainsCaCerts?: boolean; onlyContainsUserCerts?: boolean },
        ) => {
          // Before the CRL is built (which publishes it: crl.published): docs/reference/cli.md.
          const out = path === '-' ? null : await outputFile(path);
          const store = await ctx.store();
          const format = o.format.toUpperCase();
          if (format !== 'PEM' && format !== 'DER') throw new CaError('invalid', `${o.format}: Unknown format (use PEM or DER).`);
          if (o.onlyContainsCaCerts && o.onlyContainsUserCerts) {
            throw new CaError('invalid', '--only-contains-ca-certs and --only-contains-user-certs are mutually exclusive.');
          }
          const seconds = intOption(o.expires, '--expires');
          if (seconds < 1) throw new CaError('invalid', `${seconds}: --expires must be at least one second.`);
          const now = new Date();
          const ca = o.ca
            ? await findCa(store, o.ca)
            : (await chosenCas(store, [], undefined, now)).sort((a, b) => b.notAfter.getTime() - a.notAfter.getTime())[0];
          if (!ca) throw new CaError('not-found', 'No usable certificate authority found.');
          const scope: CrlScope | 'all' = o.onlyContainsCaCerts ? 'ca' : o.onlyContainsUserCerts ? 'user' : 'all';
          const crl = await new CrlPublisher(store, ctx.keyBackends(), { validityMs: seconds * 1000 }).build(ca, scope);
          const data = format === 'PEM' ? crl.pem : crl.der;
          if (!out) ctx.write(data);
          else {
            await out.write(data);
            ctx.write(`Wrote CRL #${crl.crlNumber} of ${ca.name} (${serialToColons(ca.serial)}) to ${out.path}.\n`);
          }
        },
      ),
    );

  program
    .command('generate_crls')
    .description('Build the CRLs (end-entity and CA scope) of the named or all usable CAs.')
    .argument('[serials...]', 'CAs (serial or name); default: all usable CAs')
    .option('--exclude <serial...>', 'leave these CAs out')
    .option('--out <dir>', 'also write <SERIAL>.crl and <SERIAL>-ca.crl (DER) into this directory (made if missing)')
    .action(
      run(async (ctx: CommandContext, serials: string[], o: { exclude?: string[]; out?: string }) => {
        const store = await ctx.store();
        const publisher = new CrlPublisher(store, ctx.keyBackends());
        const cas = await chosenCas(store, serials, o.exclude, new Date());
        // Every file checked before the first CRL is built (and published).
        const files = new Map<number, [OutputFile, OutputFile]>();
        const dir = o.out;
        if (dir !== undefined) {
          await ensureDirectory(dir);
          for (const ca of cas) {
            files.set(ca.id, [await outputFile(join(dir, `${ca.serial}.crl`)), await outputFile(join(dir, `${ca.serial}-ca.crl`))]);
          }
        }
        for (const ca of cas) {
          const user = await publisher.build(ca, 'user');
          const child = await publisher.build(ca, 'ca');
          const written = files.get(ca.id);
          if (written) {
            await written[0].write(user.der);
            await written[1].write(child.der);
          }
          ctx.write(`${serialToColons(ca.serial)} - ${ca.name}: CRL #${user.crlNumber}, CA CRL #${child.crlNumber}\n`);
        }
      }),
    );

  program
    .command('generate_ocsp_keys')
    .description('Make or renew the delegated OCSP responder certificate of the named or all usable CAs.')
    .argument('[serials...]', 'CAs (serial or name); default: all usable CAs')
    .option('--exclude <serial...>', 'leave these CAs out')
    .option('--force', 'make a new responder even if the current one is not due for renewal')
    .action(
      run(async (ctx: CommandContext, serials: string[], o: { exclude?: string[]; force?: boolean }) => {
        const store = await ctx.store();
        const delegates = new OcspDelegates(store, ctx.keyBackends(), ctx.profiles());
        const now = new Date();
        for (const ca of await chosenCas(store, serials, o.exclude, now)) {
          const key = o.force ? await delegates.renew(ca, now) : await delegates.forCa(ca, now);
          ctx.write(`${serialToColons(ca.serial)} - ${ca.name}: OCSP responder valid until ${key.notAfter.toISOString()}\n`);
        }
      }),
    );
}
