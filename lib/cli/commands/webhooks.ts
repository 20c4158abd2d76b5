/**
 * add_webhook, list_webhooks, remove_webhook, rotate_webhook_secret, replay_webhook,
 * list_webhook_dead_letters (docs/operations/webhooks.md). A secret is printed once, by the command that made
 * it, and never again; it is stored sealed under CA_KEY_ENCRYPTION_KEY.
 */
import { Option, type Command } from 'commander';
import {
  addWebhook,
  listWebhookDeadLetters,
  listWebhooks,
  removeWebhook,
  replayWebhook,
  rotateWebhookSecret,
  type WebhookEndpointView,
} from '../../webhooks/management';
import { WEBHOOK_EVENT_TYPES } from '../../ports';
import { formatUtc } from '../../x509/datetime';
import type { CommandContext } from '../context';
import { intOption, type Action } from './shared';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `<id> - <url> - <events> - after event <position>, <delivered> delivered`, and why it is failing, if it is. */
export function webhookLine(w: WebhookEndpointView): string {
  const state = `after event ${w.position}, ${w.delivered} delivered`;
  const failing =
    w.attempts > 0
      ? ` - failing (${w.attempts} attempts, last: ${w.lastError ?? '?'}; next ${w.nextAttempt ? formatUtc(w.nextAttempt) : 'now'})`
      : '';
  return `${w.id} - ${w.url} - ${w.eventTypes.join(', ')} - ${state}${failing}`;
}

function idArgument(text: string): number {
  return intOption(text, 'webhook id');
}

export function registerWebhookCommands(program: Command, run: Action): void {
  program
    .command('add_webhook')
    .description(
      'Add a webhook endpoint: it receives the events committed from now on, signed per Standard Webhooks. ' +
        'Prints its id and its secret (whsec_…), once; the secret is stored sealed under CA_KEY_ENCRYPTION_KEY.',
    )
    .argument('<url>', 'http(s) URL the events are POSTed to')
    .addOption(
      new Option('--event <type>', `an event type to receive; repeat for several (${WEBHOOK_EVENT_TYPES.join(', ')})`)
        .argParser(collect)
        .default([], 'every type'),
    )
    .action(
      run(async (ctx: CommandContext, url: string, o: { event: string[] }) => {
        const box = ctx.secretBox(); // before anything is written: an endpoint whose secret no server can open is worse than none
        const { endpoint, secret } = await addWebhook((await ctx.store()).webhooks, box, { url, eventTypes: o.event });
        ctx.write(`id: ${endpoint.id}\nsecret: ${secret}\n`);
      }),
    );

  program
    .command('list_webhooks')
    .description('List the webhook endpoints: id, URL, event types, position in the events, deliveries, and failures.')
    .action(
      run(async (ctx: CommandContext) => {
        const endpoints = await listWebhooks((await ctx.store()).webhooks);
        ctx.write(endpoints.length ? endpoints.map((w) => webhookLine(w) + '\n').join('') : 'No webhooks.\n');
      }),
    );

  program
    .command('remove_webhook')
    .description('Remove a webhook endpoint (and its dead letters); nothing more is sent to it.')
    .argument('<id>', 'the endpoint id (list_webhooks)')
    .action(
      run(async (ctx: CommandContext, id: string) => {
        const endpoint = idArgument(id);
        await removeWebhook((await ctx.store()).webhooks, endpoint);
        ctx.write(`Removed webhook endpoint ${endpoint}.\n`);
      }),
    );

  program
    .command('rotate_webhook_secret')
    .description('Give a webhook endpoint a new secret, printed once; requests are signed with it from now on.')
    .argument('<id>', 'the endpoint id (list_webhooks)')
    .action(
      run(async (ctx: CommandContext, id: string) => {
        const box = ctx.secretBox();
        const secret = await rotateWebhookSecret((await ctx.store()).webhooks, box, idArgument(id));
        ctx.write(`secret: ${secret}\n`);
      }),
    );

  program
    .command('replay_webhook')
    .description('Deliver again, in order, the events a webhook endpoint wants from an event id on (receivers see the same webhook-id).')
    .argument('<id>', 'the endpoint id (list_webhooks)')
    .requiredOption('--from <event-id>', 'the first event to deliver again')
    .action(
      run(async (ctx: CommandContext, id: string, o: { from: string }) => {
        const endpoint = idArgument(id);
        const from = intOption(o.from, '--from');
        await replayWebhook((await ctx.store()).webhooks, endpoint, from);
        ctx.write(`Webhook endpoint ${endpoint} delivers again from event ${from} on.\n`);
      }),
    );

  program
    .command('list_webhook_dead_letters')
    .description('List the events a webhook endpoint gave up on after its attempt limit (replay_webhook sends them again).')
    .argument('<id>', 'the endpoint id (list_webhooks)')
    .action(
      run(async (ctx: CommandContext, id: string) => {
        const dead = await listWebhookDeadLetters((await ctx.store()).webhooks, idArgument(id), 1000);
        const line = (d: (typeof dead)[number]) =>
          `event ${d.eventId} - ${d.eventType} - ${d.attempts} attempts - ${d.lastError ?? ''} - ${formatUtc(d.created)}\n`;
        ctx.write(dead.length ? dead.map(line).join('') : 'No dead letters.\n');
      }),
    );
}
