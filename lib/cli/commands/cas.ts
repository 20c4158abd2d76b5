/** init_ca, import_ca, edit_ca, revoke_ca, list_cas, view_ca (docs/COMPATIBILITY.md §4). */
import { Command, Option } from 'commander';
import { acmeStoreOf } from '../../acme/store-capability';
import { CA_DEFAULTS, caNotAfter, caTree, importCa, initCa, listCas, type CaTreeNode } from '../../ca/authorities';
import { editCa } from '../../ca/ca-update';
import { OFFERED_CURVE_NAMES } from '../../x509/curves';
import { CaError } from '../../ca/errors';
import { findCa } from '../../ca/lookup';
import { signUrlsFor } from '../../ca/sign-urls';
import { HASH_ALGORITHMS } from '../../ca/profiles';
import { REVOCATION_REASONS } from '../../ca/reasons';
import { revokeCa } from '../../ca/revocation';
import type { AcmeCaPolicy, AcmeStore, CaPatch, CaRecord, Store } from '../../ports';
import { parseRfc4514 } from '../../x509/rfc4514';
import { formatUtc } from '../../x509/datetime';
import { serialToColons } from '../../x509/serial-format';
import type { EllipticCurveName, HashAlgorithmName, KeyType } from '../../x509/types';
import { acmeOptions, acmePolicyPatch, acmeSettings, type AcmeFlags } from '../acme-options';
import { issuancePolicyFromFlags, issuancePolicyOptions, type IssuancePolicyFlags } from '../issuance-policy-options';
import type { CommandContext } from '../context';
import { signFlagOptions, signPatch, type SignFlags } from '../extension-options';
import { readCertificateFile, readPrivateKeyFile } from '../input-files';
import { missingSignUrlsWarning } from '../missing-sign-urls';
import { outputOptions, show, type OutputOptions } from '../output';
import { flagPair, intOption, type Action } from './shared';

function addOptions(cmd: Command, options: Option[]): Command {
  for (const o of options) cmd.addOption(o);
  return cmd;
}

interface InitCaFlags extends SignFlags, OutputOptions, AcmeFlags {
  keyType: KeyType;
  keySize?: string;
  ellipticCurve?: EllipticCurveName;
  algorithm?: HashAlgorithmName;
  expires?: string;
  pathLength?: string | false;
  parent?: string;
  keyBackend: string;
  hsmKeyLabel?: string;
  ocspKeyBackend: string;
  defaultHostname?: string | false;
  caa?: string;
  website?: string;
  tos?: string;
  apiEnable?: boolean;
  apiDisable?: boolean;
}

/**
 * Where a policy change goes: the store's ACME capability, looked up before the CA is created or
 * changed, so that a store without one refuses the flags with nothing written.
 */
function policyTarget(store: Store, policy: Partial<AcmeCaPolicy> | null): { acme: AcmeStore; policy: Partial<AcmeCaPolicy> } | null {
  return policy && { acme: acmeStoreOf(store), policy };
}

/**
 * Write the policy in a transaction of the operator's store, so that its `acme.policy.updated` event
 * names the operator (the ACME store's own writes carry no actor).
 */
function setPolicyAs(store: Store, caId: number, policy: Partial<AcmeCaPolicy>): Promise<unknown> {
  return store.transaction((tx) => acmeStoreOf(tx).setPolicy(caId, policy));
}

/** `enableAcme`: `CA_ENABLE_ACME` (lib/cli/acme-options.ts hides the ACME options when it is false). */
export function registerCaCommands(program: Command, run: Action, enableAcme: boolean): void {
  addOptions(
    program
      .command('init_ca')
      .description('Create a new certificate authority (root, or intermediate with --parent).')
      .argument('<name>', 'name of the CA')
      .argument('<subject>', 'subject as RFC 4514 string, e.g. "C=AT,O=Example,CN=ca.example.com"')
      .addOption(new Option('--key-type <type>', 'key type').choices(['RSA', 'DSA', 'EC', 'Ed25519', 'Ed448']).default('RSA'))
      .option('--key-size <bits>', 'key size for RSA/DSA keys (default 4096, min 2048)')
      .addOption(new Option('--elliptic-curve <curve>', 'curve for EC keys').choices(OFFERED_CURVE_NAMES))
      .addOption(new Option('--algorithm <hash>', 'hash algorithm of the signature').choices([...HASH_ALGORITHMS]))
      .option('--expires <days>', "validity in days (default: 3650, for an intermediate at most until its parent's expiry)")
      .option('--path-length <n>', 'path length of the Basic Constraints (default 0)')
      .option('--no-path-length', 'no path length restriction')
      .option('--parent <ca>', 'sign the new CA with this CA, named by name or serial (makes an intermediate)')
      .option('--key-backend <alias>', 'key backend to store the key in', 'default')
      .option('--hsm-key-label <label>', 'label of the key in the HSM (--key-backend hsm; default: the CA name)')
      .option('--ocsp-key-backend <alias>', 'key backend for the keys of the OCSP responder', 'default')
      .option('--default-hostname <host>', 'host[:port] for the URLs of signed certificates (CA_DEFAULT_HOSTNAME)')
      .option('--no-default-hostname', 'do not add URLs based on a hostname')
      .option('--caa <identity>', 'CAA identity')
      .option('--website <url>', 'website of the CA')
      .option('--tos <url>', 'terms of service of the CA')
      .option('--api-enable', 'enable the REST API for this CA')
      .option('--api-disable', 'disable the REST API for this CA (default)'),
    [...acmeOptions({ enabled: enableAcme, forNewCa: true }), ...signFlagOptions(), ...outputOptions('serial')],
  ).action(
    run(async (ctx: CommandContext, name: string, subjectText: string, o: InitCaFlags) => {
      const acme = acmeSettings(o, ctx);
      const policyPatch = acmePolicyPatch(o, ctx);
      const store = await ctx.store();
      const policy = policyTarget(store, policyPatch);
      const parent = o.parent ? await findCa(store, o.parent) : null;
      const hostname = o.defaultHostname === false ? null : (o.defaultHostname ?? ctx.settings.defaultHostname);
      const expiresDays = o.expires === undefined ? undefined : intOption(o.expires, '--expires');
      const now = new Date();
      const ca = await initCa({
        now,
        store,
        keyBackends: ctx.keyBackends(),
        name,
        subject: parseRfc4514(subjectText),
        keyType: o.keyType,
        keySize: o.keySize === undefined ? undefined : intOption(o.keySize, '--key-size'),
        curve: o.ellipticCurve,
        algorithm: o.algorithm,
        expiresDays,
        pathLength: o.pathLength === false ? null : o.pathLength === undefined ? undefined : intOption(o.pathLength, '--path-length'),
        parent,
        keyBackendAlias: o.keyBackend,
        keyOptions: { keyLabel: o.hsmKeyLabel ?? name },
        ocspKeyBackendAlias: o.ocspKeyBackend,
        defaultHostname: hostname,
        urlPath: ctx.settings.urlPath,
        sign: signPatch(o),
        apiEnabled: flagPair(o, 'apiEnable', 'apiDisable'),
        acme,
        caaIdentity: o.caa,
        website: o.website,
        termsOfService: o.tos,
      });
      if (policy) await setPolicyAs(store, ca.id, policy.policy);
      // Said unless asked for with --no-default-hostname (lib/cli/missing-sign-urls.ts).
      if (o.defaultHostname !== false) for (const line of missingSignUrlsWarning(ca)) ctx.note(line);
      if (parent && caNotAfter(now, expiresDays, parent).cappedAtParent) {
        ctx.note(
          `No --expires given: ${ca.name} expires with its parent ${parent.name}, at ${formatUtc(ca.notAfter)} ` +
            `(the default of ${CA_DEFAULTS.expiresDays} days would outlive it).`,
        );
      }
      await show({ store, write: (d) => ctx.write(d), acme: ctx.settings.enableAcme }, ca, 'ca', o);
    }),
  );

  addOptions(
    program
      .command('import_ca')
      .description('Import an existing CA: import_ca NAME KEY PEM (or import_ca --no-key NAME PEM).')
      .argument('<name>', 'name of the CA')
      .argument('<files...>', 'private key file and certificate file (PEM or DER); only the certificate with --no-key')
      .option('--no-key', 'import the certificate only; the CA cannot sign')
      .option('--import-password <password>', 'password of the private key file')
      .option('--parent <ca>', 'the CA that issued this one, by name or serial')
      .option('--key-backend <alias>', 'key backend to store the key in', 'default')
      .option('--hsm-key-label <label>', 'label of the key in the HSM (--key-backend hsm; default: the CA name)')
      .option('--ocsp-key-backend <alias>', 'key backend for the keys of the OCSP responder', 'default')
      .option('--caa <identity>', 'CAA identity')
      .option('--website <url>', 'website of the CA')
      .option('--tos <url>', 'terms of service of the CA')
      .option('--api-enable', 'enable the REST API for this CA')
      .option('--api-disable', 'disable the REST API for this CA (default)'),
    [...acmeOptions({ enabled: enableAcme, forNewCa: true }), ...signFlagOptions()],
  ).action(
    run(
      async (
        ctx: CommandContext,
        name: string,
        files: string[],
        o: SignFlags &
          AcmeFlags & {
            key: boolean;
            importPassword?: string;
            parent?: string;
            keyBackend: string;
            hsmKeyLabel?: string;
            ocspKeyBackend: string;
            caa?: string;
            website?: string;
            tos?: string;
            apiEnable?: boolean;
            apiDisable?: boolean;
          },
      ) => {
        const acme = acmeSettings(o, ctx);
        const policyPatch = acmePolicyPatch(o, ctx);
        const expected = o.key ? 2 : 1;
        if (files.length !== expected) {
          throw new CaError('invalid', o.key ? 'Expected two files: KEY PEM.' : 'Expected one file with --no-key: PEM.');
        }
        const key = o.key ? await readPrivateKeyFile(ctx.io, files[0]) : null;
        const pem = await readCertificateFile(ctx.io, files[files.length - 1]);
        const store = await ctx.store();
        const policy = policyTarget(store, policyPatch);
        const parent = o.parent ? await findCa(store, o.parent, { allowDisabled: true }) : null;
        const ca = await importCa({
          store,
          keyBackends: ctx.keyBackends(),
          name,
          certificate: pem,
          key,
          keyPassword: o.importPassword,
          parent,
          keyBackendAlias: o.keyBackend,
          keyOptions: { keyLabel: o.hsmKeyLabel ?? name },
          ocspKeyBackendAlias: o.ocspKeyBackend,
          sign: signPatch(o),
          apiEnabled: flagPair(o, 'apiEnable', 'apiDisable'),
          acme,
          caaIdentity: o.caa,
          website: o.website,
          termsOfService: o.tos,
        });
        if (policy) await setPolicyAs(store, ca.id, policy.policy);
        ctx.write(`Imported CA ${ca.name} (${serialToColons(ca.serial)}).\n`);
      },
    ),
  );

  addOptions(
    program
      .command('edit_ca')
      .description('Edit a certificate authority (only the options given change).')
      .argument('<serial>', 'serial or name of the CA')
      .option('--api-enable', 'enable the REST API for this CA')
      .option('--api-disable', 'disable the REST API for this CA')
      .option('--enable', 'enable the CA')
      .option('--disable', 'disable the CA')
      .option('--caa <identity>', 'CAA identity')
      .option('--website <url>', 'website of the CA')
      .option('--tos <url>', 'terms of service of the CA')
      .option('--ocsp-responder-key-validity <days>', 'validity of OCSP responder keys in days')
      .option('--ocsp-response-validity <seconds>', 'validity of OCSP responses in seconds')
      .option('--default-hostname <host>', "host[:port] for the CA's OCSP, CRL and CA-issuer URLs in signed certificates"),
    [...acmeOptions({ enabled: enableAcme, forNewCa: false }), ...signFlagOptions(), ...issuancePolicyOptions()],
  ).action(
    run(async (ctx: CommandContext, serial: string, o: Record<string, string | boolean | string[] | undefined>) => {
      const patch: CaPatch = { ...acmeSettings(o as AcmeFlags, ctx) };
      const policyPatch = acmePolicyPatch(o as AcmeFlags, ctx);
      const store = await ctx.store();
      const policy = policyTarget(store, policyPatch);
      const ca = await findCa(store, serial, { allowDisabled: true });
      // The URLs init_ca derives from its default hostname, derived again for a new host (the example
      // server's PORT, a new public name); explicit --sign-* flags win, as in init_ca.
      const hostname = o.defaultHostname as string | undefined;
      if (hostname !== undefined) Object.assign(patch, signUrlsFor({ hostname, urlPath: ctx.settings.urlPath }, ca.serial));
      Object.assign(patch, signPatch(o as SignFlags));
      const set = <K extends keyof CaPatch>(key: K, value: CaPatch[K] | undefined) => {
        if (value !== undefined) patch[key] = value;
      };
      set('apiEnabled', flagPair(o, 'apiEnable', 'apiDisable'));
      set('enabled', flagPair(o, 'enable', 'disable'));
      set('caaIdentity', o.caa as string | undefined);
      set('website', o.website as string | undefined);
      set('termsOfService', o.tos as string | undefined);
      if (o.ocspResponderKeyValidity !== undefined) {
        patch.ocspResponderKeyValidity = intOption(o.ocspResponderKeyValidity as string, '--ocsp-responder-key-validity');
      }
      if (o.ocspResponseValidity !== undefined) {
        patch.ocspResponseValidity = intOption(o.ocspResponseValidity as string, '--ocsp-response-validity');
      }
      // Checked here, before anything is written; its event (`ca.issuance_policy.updated`) names the operator.
      const issuancePolicy = issuancePolicyFromFlags(o as IssuancePolicyFlags, ca.issuancePolicy);
      if (issuancePolicy !== undefined) patch.issuancePolicy = issuancePolicy;
      await editCa(store, ca, patch);
      if (policy) await setPolicyAs(store, ca.id, policy.policy);
      const changed = Object.keys(patch).length > 0 || policy !== null;
      ctx.write(`${changed ? 'Changed' : 'Nothing to change for'} CA ${ca.name} (${serialToColons(ca.serial)}).\n`);
    }),
  );

  program
    .command('revoke_ca')
    .description('Revoke a certificate authority: it signs nothing more; its CRLs and OCSP go on.')
    .argument('<serial>', 'serial or name of the CA')
    .addOption(new Option('--reason <reason>', `revocation reason (${REVOCATION_REASONS.join(', ')})`).default('unspecified'))
    .option('--compromised <timestamp>', 'when the key was compromised (ISO 8601 with timezone, in the past)')
    .action(
      run(async (ctx: CommandContext, serial: string, o: { reason: string; compromised?: string }) => {
        const store = await ctx.store();
        const ca = await findCa(store, serial, { allowDisabled: true });
        const revoked = await revokeCa(store, ca, { reason: o.reason, compromised: o.compromised });
        const compromised = revoked.compromised ? `, key compromised ${formatUtc(revoked.compromised)}` : '';
        ctx.write(
          `Revoked CA ${revoked.name} (${serialToColons(revoked.serial)}) (reason: ${revoked.revokedReason || 'unspecified'}${compromised}).\n`,
        );
      }),
    );

  program
    .command('list_cas')
    .description('List all certificate authorities.')
    .option('-t, --tree', 'show the hierarchy')
    .action(
      run(async (ctx: CommandContext, o: { tree?: boolean }) => {
        const store = await ctx.store();
        if (o.tree) ctx.write(formatTree(await caTree(store)));
        else ctx.write((await listCas(store)).map((ca) => caLine(ca) + '\n').join(''));
      }),
    );

  addOptions(
    program.command('view_ca').description('Show a certificate authority.').argument('<serial>', 'serial or name of the CA'),
    outputOptions('text'),
  ).action(
    run(async (ctx: CommandContext, serial: string, o: OutputOptions) => {
      const store = await ctx.store();
      const ca = await findCa(store, serial, { allowDisabled: true });
      await show({ store, write: (d) => ctx.write(d), acme: ctx.settings.enableAcme }, ca, 'ca', o);
    }),
  );
}

/** `<SERIAL:WITH:COLONS> - <name>`, ` (disabled)` appended for disabled CAs (docs/COMPATIBILITY.md §4). */
export function caLine(ca: CaRecord): string {
  return `${serialToColons(ca.serial)} - ${ca.name}${ca.enabled ? '' : ' (disabled)'}`;
}

/** Tree mode of list_cas: `│───` for non-last children, `└───` for the last, `│   `/`    ` deeper. */
export function formatTree(roots: CaTreeNode[]): string {
  const lines: string[] = [];
  const walk = (nodes: CaTreeNode[], prefix: string) => {
    nodes.forEach((node, i) => {
      const last = i === nodes.length - 1;
      lines.push(`${prefix}${last ? '└───' : '│───'}${caLine(node.ca)}`);
      walk(node.children, prefix + (last ? '    ' : '│   '));
    });
  };
  for (const root of roots) {
    lines.push(caLine(root.ca));
    walk(root.children, '');
  }
  return lines.map((l) => l + '\n').join('');
}
