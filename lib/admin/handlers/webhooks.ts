/**
 * Webhook endpoints (docs/operations/webhooks.md, docs/guides/admin-interface.md), for a holder of the global
 * `manage_webhooks` permission: the list with each endpoint's delivery state (never its secret), add
 * (the secret shown once, on the answer to the POST: not in a URL, not kept), rotate the secret
 * (likewise), replay from an event, remove, and an endpoint's dead letters. The endpoints' own events
 * (`webhook.created`, …) name the signed-in user over protocol `admin`.
 */
import { CaError } from '../../ca/errors';
import { actingAs, WEBHOOK_EVENT_TYPES, type WebhookStore } from '../../ports';
import {
  addWebhook,
  listWebhookDeadLetters,
  listWebhooks,
  removeWebhook,
  replayWebhook,
  rotateWebhookSecret,
} from '../../webhooks/management';
import { adminActor, notFoundPage, requireGlobal } from '../access';
import { isoTime } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html, type Html } from '../html';
import { redirect, sendPage } from '../page';
import { dataTable } from '../table';

async function managing(ctx: SignedInContext): Promise<WebhookStore> {
  await requireGlobal(ctx, 'manage_webhooks');
  const actor = adminActor(ctx);
  return actingAs(ctx.services.store, actor).webhooks;
}

const csrf = (ctx: SignedInContext): Html => html`<input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />`;
const NO_BOX =
  'Adding endpoints and rotating secrets needs CA_KEY_ENCRYPTION_KEY (or the webhookSecrets option): the secrets are kept sealed under it.';

/** The secret, once, with what a receiver does with it. */
function secretPage(ctx: SignedInContext, title: string, url: string, secret: string): void {
  sendPage(ctx, {
    title,
    body: html`<h1>${title}</h1>
      <p class="message ok" role="status">The endpoint ${url} signs its requests with this secret. It is shown this once: copy it now.</p>
      <pre id="secret">${secret}</pre>
      <p>
        Receivers verify <code>webhook-signature</code> with it (Standard Webhooks). <a href="${ctx.base}webhooks/">Back to the webhooks</a>
      </p>`,
  });
}

async function webhooksPage(ctx: SignedInContext, status = 200, message: string | null = null): Promise<void> {
  const store = await managing(ctx);
  const endpoints = await listWebhooks(store);
  const types = ['*', ...WEBHOOK_EVENT_TYPES];
  sendPage(ctx, {
    status,
    title: 'Webhooks',
    body: html`<h1>Webhooks</h1>
      ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
      ${
        endpoints.length
          ? dataTable(
              'Webhook endpoints',
              ['Id', 'URL', 'Events', 'After event', 'Delivered', 'State', 'Actions'],
              endpoints.map((e) => {
                const base = `${ctx.base}webhooks/${e.id}/`;
                const state = e.attempts ? `failing (${e.attempts} attempts${e.lastError ? `: ${e.lastError}` : ''})` : 'ok';
                return html`<td><a href="${base}">${e.id}</a></td>
                  <td>${e.url}</td>
                  <td>${e.eventTypes.join(', ')}</td>
                  <td>${e.position}</td>
                  <td>${e.delivered}</td>
                  <td>${state}</td>
                  <td>
                    <form method="post" action="${base}rotate">${csrf(ctx)}<button type="submit">Rotate secret</button></form>
                    <form method="post" action="${base}replay">
                      ${csrf(ctx)}<label for="from-${e.id}">Replay from event</label
                      ><input id="from-${e.id}" name="from" size="6" inputmode="numeric" /><button type="submit">Replay</button>
                    </form>
                    <form method="post" action="${base}delete">${csrf(ctx)}<button class="danger" type="submit">Remove</button></form>
                  </td>`;
              }),
            )
          : html`<p class="message">No webhook endpoint.</p>`
      }
      <h2>Add an endpoint</h2>
      ${ctx.services.webhookSecrets ? null : html`<p class="message" role="status">${NO_BOX}</p>`}
      <form method="post" action="${ctx.base}webhooks/">
        ${csrf(ctx)}
        <div class="field"><label for="url">URL</label><input id="url" name="url" size="60" /></div>
        <fieldset>
          <legend>Events (none: all)</legend>
          ${types.map((t) => html`<div><input type="checkbox" id="type-${t}" name="types" value="${t}" /> <label class="inline" for="type-${t}">${t}</label></div>`)}
        </fieldset>
        <button type="submit">Add</button>
      </form>`,
  });
}

export const showWebhooks = (ctx: SignedInContext): Promise<void> => webhooksPage(ctx);

/** Run `change`; a refusal (an unknown endpoint, a bad URL) is a message on the list. */
async function changing(ctx: SignedInContext, change: (store: WebhookStore, form: URLSearchParams) => Promise<void>): Promise<void> {
  const store = await managing(ctx);
  try {
    await change(store, ctx.form as URLSearchParams);
  } catch (e) {
    if (e instanceof CaError) return webhooksPage(ctx, e.code === 'not-found' ? 404 : 400, e.message);
    throw e;
  }
}

export async function addEndpoint(ctx: SignedInContext): Promise<void> {
  const box = ctx.services.webhookSecrets;
  if (!box) return webhooksPage(ctx, 400, NO_BOX);
  await changing(ctx, async (store, form) => {
    const { endpoint, secret } = await addWebhook(store, box, { url: (form.get('url') ?? '').trim(), eventTypes: form.getAll('types') });
    secretPage(ctx, 'Endpoint added', endpoint.url, secret);
  });
}

const endpointId = (ctx: SignedInContext): number => Number(ctx.params.id);

export async function rotateSecret(ctx: SignedInContext): Promise<void> {
  const box = ctx.services.webhookSecrets;
  if (!box) return webhooksPage(ctx, 400, NO_BOX);
  await changing(ctx, async (store) => {
    const secret = await rotateWebhookSecret(store, box, endpointId(ctx));
    const endpoint = await store.getWebhookEndpoint(endpointId(ctx));
    secretPage(ctx, 'New secret', endpoint?.url ?? '', secret);
  });
}

export async function replay(ctx: SignedInContext): Promise<void> {
  await changing(ctx, async (store, form) => {
    await replayWebhook(store, endpointId(ctx), Number(form.get('from')));
    redirect(ctx.res, `${ctx.base}webhooks/`);
  });
}

export async function removeEndpoint(ctx: SignedInContext): Promise<void> {
  await changing(ctx, async (store) => {
    await removeWebhook(store, endpointId(ctx));
    redirect(ctx.res, `${ctx.base}webhooks/`);
  });
}

export async function showDeadLetters(ctx: SignedInContext): Promise<void> {
  const store = await managing(ctx);
  const letters = await listWebhookDeadLetters(store, endpointId(ctx), 100).catch((e: unknown) => {
    throw e instanceof CaError ? notFoundPage('The webhook endpoint') : e;
  });
  sendPage(ctx, {
    title: `Webhook ${ctx.params.id}`,
    body: html`<h1>Webhook ${ctx.params.id}: dead letters</h1>
      ${
        letters.length
          ? dataTable(
              'Dead letters',
              ['Event', 'Type', 'Attempts', 'Last error', 'Given up'],
              letters.map(
                (d) =>
                  html`<td>${d.eventId}</td>
                    <td>${d.eventType}</td>
                    <td>${d.attempts}</td>
                    <td>${d.lastError ?? ''}</td>
                    <td>${isoTime(d.created)}</td>`,
              ),
            )
          : html`<p class="message">No dead letter: every wanted event was delivered or is still being tried.</p>`
      }
      <p><a href="${ctx.base}webhooks/">Back to the webhooks</a></p>`,
  });
}
