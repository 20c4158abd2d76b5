/**
 * A CA's enrolment endpoints kept in the database (docs/guides/admin-interface.md, docs/guides/est.md, docs/guides/scep.md), for a
 * user with `change_certificateauthority` on the CA: the list, add, edit and delete — what `ca-admin
 * create_enrolment_endpoint`, `edit_enrolment_endpoint` and `delete_enrolment_endpoint` do, through
 * the same checks (lib/enrolment/stored-endpoints.ts). Each change is a sensitive action (a recent
 * step-up) and is audited (`enrolment.endpoint.*`) as the signed-in user over protocol `admin`. A
 * generated static challenge is shown once, on the answer to the POST that made it; the database keeps
 * only its SHA-256.
 */
import { CaError } from '../../ca/errors';
import {
  createEnrolmentEndpoint,
  deleteEnrolmentEndpoint,
  editEnrolmentEndpoint,
  endpointName,
  findStoredEndpoint,
  parseProtocol,
  type EnrolmentEndpointSettings,
} from '../../enrolment/stored-endpoints';
import { actingAs, type CaRecord, type Store, type StoredEnrolmentEndpoint } from '../../ports';
import { adminActor, caFor, notFoundPage } from '../access';
import type { SignedInContext } from '../context';
import { endpointFields, formValues, NEW_ENDPOINT, settingsOf, valuesOf, type EndpointFormValues } from '../enrolment-endpoint-form';
import { caEnrolmentEndpoints, enrolmentEndpointsSection } from '../enrolment-endpoints-view';
import { html, type Html } from '../html';
import { redirect, sendPage } from '../page';

const PERMISSION = 'change_certificateauthority';

const csrf = (ctx: SignedInContext): Html => html`<input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />`;
const listUrl = (ctx: SignedInContext, ca: CaRecord): string => `${ctx.base}cas/${ca.serial}/enrolment-endpoints/`;
const endpointUrl = (ctx: SignedInContext, ca: CaRecord, e: StoredEnrolmentEndpoint): string =>
  `${listUrl(ctx, ca)}${e.protocol.toLowerCase()}/${e.label}/`;

/** The CA of the path, for a user who may change it; the store's writes named as that user. */
async function managing(ctx: SignedInContext): Promise<{ ca: CaRecord; store: Store }> {
  const ca = await caFor(ctx, PERMISSION, ctx.params.ca);
  return { ca, store: actingAs(ctx.services.store, adminActor(ctx)) };
}

const refusal = (message: string | null): Html | null => (message ? html`<p class="message error" role="alert">${message}</p>` : null);

async function listPage(
  ctx: SignedInContext,
  ca: CaRecord,
  status = 200,
  message: string | null = null,
  values = NEW_ENDPOINT,
): Promise<void> {
  const endpoints = await caEnrolmentEndpoints(ctx.services.store, ca);
  if (endpoints === null) throw notFoundPage('Enrolment endpoints (this store keeps none)');
  const actions = (e: StoredEnrolmentEndpoint): Html =>
    html`<form method="post" action="${endpointUrl(ctx, ca, e)}delete">
      ${csrf(ctx)}<button class="danger" type="submit" aria-label="Delete ${endpointName(e.protocol, e.label)}">Delete</button>
    </form>`;
  sendPage(ctx, {
    status,
    title: `Enrolment endpoints of ${ca.name}`,
    body: html`<h1>Enrolment endpoints of ${ca.name}</h1>
      ${refusal(message)} ${enrolmentEndpointsSection(endpoints, { editUrl: (e) => endpointUrl(ctx, ca, e), actions })}
      <h2>Add an endpoint</h2>
      <form method="post" action="${listUrl(ctx, ca)}">
        ${csrf(ctx)} ${endpointFields(values, ctx.services.signing.profiles, null)}
        <button type="submit">Add</button>
      </form>
      <p><a href="${ctx.base}cas/${ca.serial}/">Back to the CA</a></p>`,
  });
}

async function editPage(
  ctx: SignedInContext,
  ca: CaRecord,
  endpoint: StoredEnrolmentEndpoint,
  status = 200,
  message: string | null = null,
  values: EndpointFormValues = valuesOf(endpoint),
): Promise<void> {
  const name = endpointName(endpoint.protocol, endpoint.label);
  sendPage(ctx, {
    status,
    title: `Enrolment endpoint ${name}`,
    body: html`<h1>Enrolment endpoint ${name}</h1>
      ${refusal(message)}
      <form method="post" action="${endpointUrl(ctx, ca, endpoint)}">
        ${csrf(ctx)} ${endpointFields(values, ctx.services.signing.profiles, endpoint)}
        <button type="submit">Save</button>
      </form>
      <p><a href="${listUrl(ctx, ca)}">Back to the enrolment endpoints</a></p>`,
  });
}

/** The generated challenge, once, with where devices use it. */
function challengePage(ctx: SignedInContext, ca: CaRecord, endpoint: StoredEnrolmentEndpoint, challenge: string): void {
  const name = endpointName(endpoint.protocol, endpoint.label);
  sendPage(ctx, {
    title: `Challenge of ${name}`,
    body: html`<h1>Challenge of ${name}</h1>
      <p class="message ok" role="status">Devices enrolling at ${name} give this challenge password. It is shown this once: copy it now.</p>
      <pre id="challenge">${challenge}</pre>
      <p><a href="${listUrl(ctx, ca)}">Back to the enrolment endpoints</a></p>`,
  });
}

/** The endpoint of the path, at the path's CA; 404 for one of another CA (as for one that does not exist). */
async function endpointOfPath(ctx: SignedInContext, store: Store, ca: CaRecord): Promise<StoredEnrolmentEndpoint> {
  try {
    const endpoint = await findStoredEndpoint(store, parseProtocol(ctx.params.protocol), ctx.params.label);
    if (endpoint.caId === ca.id) return endpoint;
  } catch (e) {
    if (!(e instanceof CaError && e.code === 'not-found')) throw e;
  }
  throw notFoundPage('The enrolment endpoint');
}

export async function showStoredEndpoints(ctx: SignedInContext): Promise<void> {
  const { ca } = await managing(ctx);
  await listPage(ctx, ca);
}

export async function showStoredEndpoint(ctx: SignedInContext): Promise<void> {
  const { ca, store } = await managing(ctx);
  await editPage(ctx, ca, await endpointOfPath(ctx, store, ca));
}

/**
 * Write what the form's `values` give with `write`: a refusal (a rule of lib/enrolment/stored-endpoints.ts)
 * is `refused`'s page, and nothing written; then the generated challenge, once, or back to the list.
 */
async function saving(
  ctx: SignedInContext,
  ca: CaRecord,
  values: EndpointFormValues,
  write: (settings: EnrolmentEndpointSettings) => Promise<StoredEnrolmentEndpoint>,
  refused: (message: string) => Promise<void>,
): Promise<void> {
  let saved: StoredEnrolmentEndpoint;
  let generated: string | null;
  try {
    const parsed = settingsOf(values);
    generated = parsed.generated;
    saved = await write(parsed.settings);
  } catch (e) {
    if (e instanceof CaError && e.code === 'invalid') return refused(e.message);
    throw e;
  }
  if (generated) return challengePage(ctx, ca, saved, generated);
  redirect(ctx.res, listUrl(ctx, ca));
}

export async function addStoredEndpoint(ctx: SignedInContext): Promise<void> {
  const { ca, store } = await managing(ctx);
  const values = formValues(ctx.form as URLSearchParams, false);
  const { profiles } = ctx.services.signing;
  await saving(
    ctx,
    ca,
    values,
    (settings) => createEnrolmentEndpoint(store, parseProtocol(values.protocol), values.label, { ...settings, ca }, { profiles }),
    (message) => listPage(ctx, ca, 400, message, values),
  );
}

export async function saveStoredEndpoint(ctx: SignedInContext): Promise<void> {
  const { ca, store } = await managing(ctx);
  const current = await endpointOfPath(ctx, store, ca);
  const values = { ...formValues(ctx.form as URLSearchParams, true), protocol: current.protocol, label: current.label };
  const { profiles } = ctx.services.signing;
  await saving(
    ctx,
    ca,
    values,
    (settings) => editEnrolmentEndpoint(store, current.protocol, current.label, settings, { profiles }),
    (message) => editPage(ctx, ca, current, 400, message, values),
  );
}

export async function removeStoredEndpoint(ctx: SignedInContext): Promise<void> {
  const { ca, store } = await managing(ctx);
  const endpoint = await endpointOfPath(ctx, store, ca);
  await deleteEnrolmentEndpoint(store, endpoint.protocol, endpoint.label);
  redirect(ctx.res, listUrl(ctx, ca));
}
