/**
 * create_acme_eab_key and list_acme_accounts: what an operator hands to ACME clients and sees of them
 * (docs/guides/acme.md). The CA's ACME settings themselves are options of init_ca/import_ca/edit_ca
 * (lib/cli/acme-options.ts).
 */
import type { Command } from 'commander';
import { createAcmeEabKey } from '../../acme/eab/create-key';
import { acmeStoreOf } from '../../acme/store-capability';
import { findCa } from '../../ca/lookup';
import type { AcmeAccountRecord } from '../../ports';
import { formatUtc } from '../../x509/datetime';
import type { CommandContext } from '../context';
import type { Action } from './shared';

/** `<slug> - <status> - <contacts> - created <UTC>`, and the binding key that made it, if one did. */
export function accountLine(account: AcmeAccountRecord): string {
  const contacts = account.contact.length ? account.contact.join(', ') : '(no contact)';
  const bound = account.eabKid === null ? '' : ` - bound to EAB key ${account.eabKid}`;
  return `${account.slug} - ${account.status} - ${contacts} - created ${formatUtc(account.created)}${bound}`;
}

export function registerAcmeCommands(program: Command, run: Action): void {
  program
    .command('create_acme_eab_key')
    .description(
      'Make an external account binding key for one ACME client of a CA (RFC 8555 §7.3.4): prints its key id and MAC key ' +
        '(certbot --eab-kid/--eab-hmac-key, lego --eab --kid/--hmac). The MAC key is stored sealed under CA_KEY_ENCRYPTION_KEY.',
    )
    .argument('<ca>', 'serial or name of the CA')
    .action(
      run(async (ctx: CommandContext, caName: string) => {
        // Before anything is written: without the box the key could not be stored usably.
        const box = ctx.secretBox();
        const store = await ctx.store();
        acmeStoreOf(store); // a store without ACME data is an error before the CA is looked up
        const ca = await findCa(store, caName, { allowDisabled: true });
        // In a transaction of the operator's store, so that `acme.eab_key.created` names the operator.
        const { kid, hmac } = await store.transaction((tx) => createAcmeEabKey(acmeStoreOf(tx), box, ca));
        // Two lines a script can read; the MAC key is shown once, here, and nowhere else.
        ctx.write(`kid: ${kid}\nhmac: ${hmac}\n`);
      }),
    );

  program
    .command('list_acme_accounts')
    .description("List a CA's ACME accounts: slug, status, contacts, creation time (and the binding key of a bound one).")
    .argument('<ca>', 'serial or name of the CA')
    .action(
      run(async (ctx: CommandContext, caName: string) => {
        const store = await ctx.store();
        const acme = acmeStoreOf(store);
        const ca = await findCa(store, caName, { allowDisabled: true });
        const accounts = await acme.listAccounts(ca.id);
        ctx.write(accounts.length ? accounts.map((a) => accountLine(a) + '\n').join('') : 'No ACME accounts.\n');
      }),
    );
}
