/**
 * list_intents (docs/guides/issuance-policy.md "Issuing authority"): every certificate signature the
 * CAs made, recorded as an issuance intent before the key signed — newest first, one line each, read
 * page by page (never the whole table in memory): issued, failed (nothing was issued; why) or pending.
 */
import { Option, type Command } from 'commander';
import { actorWords } from '../../audit/actor-text';
import { CaError } from '../../ca/errors';
import { findCa } from '../../ca/lookup';
import { INTENT_STATES, intentState, type IntentFilter, type IntentState, type IssuanceIntentRecord } from '../../ports';
import { formatUtc } from '../../x509/datetime';
import { serialToColons } from '../../x509/serial-format';
import type { CommandContext } from '../context';
import type { Action } from './shared';

/** Intents read per statement. */
const PAGE = 500;

/**
 * `<id> - <created UTC> - <CA name> - <SERIAL> - <door> - <requester> - <state>`, then ` - certificate <SERIAL>`
 * for an issued intent or ` - <failed UTC>: <why>` for a failed one.
 */
export function intentLine(intent: IssuanceIntentRecord, caName: string): string {
  const state = intentState(intent);
  const head = [
    intent.id,
    formatUtc(intent.created),
    caName,
    serialToColons(intent.serial),
    intent.door,
    intent.requester ? actorWords(intent.requester) : '-',
    state,
  ].join(' - ');
  if (state === 'issued') return `${head} - certificate ${serialToColons(intent.serial)}`;
  if (state === 'failed') return `${head} - ${formatUtc(intent.failed as Date)}: ${(intent.failure ?? '').replace(/\s*\n\s*/g, ' ')}`;
  return head;
}

/** `--limit`: a whole number from 1 (digits only). */
function limitOption(text: string): number {
  const n = Number(text.trim());
  if (!/^\d{1,15}$/.test(text.trim()) || n < 1) throw new CaError('invalid', `--limit ${text}: not a whole number from 1.`);
  return n;
}

/** `--door`: a way in as recorded (rest, acme, est, …): letters, digits, `-`, `_`, at most 16. */
function doorOption(text: string): string {
  if (!/^[A-Za-z0-9_-]{1,16}$/.test(text))
    throw new CaError('invalid', `--door ${text}: not a way in (rest, acme, est, scep, admin, cli, library, …).`);
  return text;
}

export function registerIntentCommands(program: Command, run: Action): void {
  program
    .command('list_intents')
    .description(
      'List the certificate signatures the CAs made, newest first, each recorded before it was made: id, time, CA, serial, way in, requester, state (and the failure or the certificate).',
    )
    .option('--ca <ca>', "only this CA's (serial or name)")
    .addOption(new Option('--state <state>', 'only intents in this state').choices(INTENT_STATES))
    .option('--door <door>', 'only those asked for through this way in (rest, acme, est, scep, admin, cli, library, …)')
    .option('--limit <n>', 'at most this many (the newest)')
    .action(
      run(async (ctx: CommandContext, o: { ca?: string; state?: IntentState; door?: string; limit?: string }) => {
        const limit = o.limit === undefined ? Infinity : limitOption(o.limit);
        const door = o.door === undefined ? undefined : doorOption(o.door);
        const store = await ctx.store();
        const cas = await store.listCas();
        const names = new Map(cas.map((ca) => [ca.id, ca.name]));
        const filter: IntentFilter = { state: o.state, door };
        if (o.ca !== undefined) filter.caId = (await findCa(store, o.ca, { allowDisabled: true })).id;
        let printed = 0;
        for (let beforeId: number | undefined; printed < limit;) {
          const page = await store.listIntents({ ...filter, beforeId, limit: Math.min(PAGE, limit - printed) });
          ctx.write(page.map((intent) => intentLine(intent, names.get(intent.caId) ?? `CA #${intent.caId}`) + '\n').join(''));
          printed += page.length;
          if (page.length < PAGE) break;
          beforeId = page[page.length - 1].id;
        }
        if (!printed) ctx.write('No intents.\n');
      }),
    );
}
