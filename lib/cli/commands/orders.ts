/**
 * list_orders: the sign orders of a CA, as the REST API's sign and resign endpoints placed them
 * (docs/COMPATIBILITY.md §3.1) — ACME orders are the ACME server's own (list_acme_accounts).
 * retry_orders: failed ones put back in the queue, for a running server's order runner to sign again.
 */
import { Option, type Command } from 'commander';
import { CaError } from '../../ca/errors';
import { findCa } from '../../ca/lookup';
import { hasOrderListing, hasOrderRetry, type OrderRecord, type OrderStatus } from '../../ports';
import { formatUtc } from '../../x509/datetime';
import { serialToColons } from '../../x509/serial-format';
import type { CommandContext } from '../context';
import type { Action } from './shared';

/** Orders read per statement: a CA with many orders is printed page by page, not held whole. */
const PAGE = 500;

/**
 * `<slug> - <status> - created <UTC> - <username>`, then ` - certificate <SERIAL>` for an issued
 * order or ` - error: <why>` for a failed one.
 */
export function orderLine(order: OrderRecord, username: string): string {
  const head = `${order.slug} - ${order.status} - created ${formatUtc(order.created)} - ${username}`;
  if (order.status === 'issued' && order.certificateSerial) return `${head} - certificate ${serialToColons(order.certificateSerial)}`;
  if (order.status === 'failed') return `${head} - error: ${(order.error ?? '').replace(/\s*\n\s*/g, ' ')}`;
  return head;
}

export function registerOrderCommands(program: Command, run: Action): void {
  program
    .command('list_orders')
    .description("List a CA's REST API sign orders, oldest first: slug, status, creation time, user, and the certificate or error.")
    .argument('<ca>', 'serial or name of the CA')
    .addOption(new Option('--status <status>', 'only orders in this state').choices(['pending', 'issued', 'failed']))
    .action(
      run(async (ctx: CommandContext, caName: string, o: { status?: OrderStatus }) => {
        const store = await ctx.store();
        if (!hasOrderListing(store)) throw new CaError('invalid', 'This store cannot list orders (no OrderListing capability).');
        const ca = await findCa(store, caName, { allowDisabled: true });
        const usernames = new Map<number, string>();
        const username = async (id: number): Promise<string> => {
          if (!usernames.has(id)) usernames.set(id, (await store.getUserById(id))?.username ?? `user #${id}`);
          return usernames.get(id)!;
        };
        let printed = 0;
        for (let afterId = 0; ;) {
          const page = await store.listOrders({ caId: ca.id, status: o.status, afterId, limit: PAGE });
          const lines: string[] = [];
          for (const order of page) lines.push(orderLine(order, await username(order.userId)) + '\n');
          ctx.write(lines.join(''));
          printed += page.length;
          if (page.length < PAGE) break;
          afterId = page[page.length - 1].id;
        }
        if (!printed) ctx.write(o.status ? `No ${o.status} orders.\n` : 'No orders.\n');
      }),
    );

  program
    .command('retry_orders')
    .description(
      "Put a CA's failed REST API sign orders back in the queue (all, or the ones named): the order runner of a running server signs them again.",
    )
    .argument('<ca>', 'serial or name of the CA')
    .argument('[slugs...]', 'only these orders')
    .action(
      run(async (ctx: CommandContext, caName: string, slugs: string[]) => {
        const store = await ctx.store();
        if (!hasOrderRetry(store)) throw new CaError('invalid', 'This store cannot retry orders (no OrderRetry capability).');
        const ca = await findCa(store, caName, { allowDisabled: true });
        const retried = await store.retryFailedOrders(ca.id, slugs.length ? slugs : undefined);
        const missed = slugs.filter((slug) => !retried.some((o) => o.slug === slug));
        if (missed.length) ctx.note(`Not failed orders of ${ca.name}, left as they are: ${missed.join(', ')}`);
        ctx.write(
          `Retried ${retried.length} failed order${retried.length === 1 ? '' : 's'} of ${ca.name}: ${retried.map((o) => o.slug).join(', ') || 'none'}.\n`,
        );
      }),
    );
}
