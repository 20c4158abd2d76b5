/**
 * A CA's enrolment requests waiting for approval (docs/guides/est.md, docs/guides/scep.md: an endpoint with `approval`),
 * for a user with `sign_certificate` on the CA: the waiting ones with Approve and Refuse (a reason the
 * device is told), then the last decided. Approving signs as `ca-admin approve_enrolment_request` does
 * (lib/enrolment/approval.ts: the device as requester, in the transaction that marks it approved);
 * `enrolment.approved` / `enrolment.refused` name the signed-in user over protocol `admin`. Both are
 * sensitive actions (a recent step-up, as revocation).
 */
import { CaError } from '../../ca/errors';
import { approveEnrolmentRequest, listEnrolmentRequests, refuseEnrolmentRequest, requestedName } from '../../enrolment/approval';
import type { CaRecord, EnrolmentRequestRecord } from '../../ports';
import { adminActor, caFor, notFoundPage } from '../access';
import { colonSerial, isoTime } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html } from '../html';
import { redirect, sendPage } from '../page';
import { dataTable } from '../table';

const endpointOf = (r: EnrolmentRequestRecord) => (r.label ? `${r.protocol}/${r.label}` : r.protocol);
const who = (r: EnrolmentRequestRecord) => [r.requester.type, r.requester.name].filter(Boolean).join(' ');

async function requestsPage(ctx: SignedInContext, ca: CaRecord, status = 200, message: string | null = null): Promise<void> {
  const { store } = ctx.services;
  const waiting = await listEnrolmentRequests(store, { status: 'pending', caId: ca.id, limit: 500 });
  const decided = (await listEnrolmentRequests(store, { caId: ca.id, limit: 50 })).filter((r) => r.status !== 'pending');
  const base = `${ctx.base}cas/${ca.serial}/enrolment-requests/`;
  const csrf = html`<input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />`;
  sendPage(ctx, {
    status,
    title: `Enrolment requests of ${ca.name}`,
    body: html`<h1>Enrolment requests of ${ca.name}</h1>
      ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
      <h2>Waiting for approval</h2>
      ${
        waiting.length
          ? dataTable(
              'Enrolment requests waiting for approval, newest first',
              ['Request', 'Endpoint', 'Asks for', 'Requested', 'By', 'Decision'],
              waiting.map(
                (r) =>
                  html`<td class="mono">${String(r.id)}</td>
                    <td>${endpointOf(r)}</td>
                    <td>${requestedName(r)}</td>
                    <td>${isoTime(r.created)}</td>
                    <td>${who(r)}</td>
                    <td>
                      <form method="post" action="${base}${String(r.id)}/approve">
                        ${csrf}<button type="submit" aria-label="Approve request ${String(r.id)}">Approve</button>
                      </form>
                      <form method="post" action="${base}${String(r.id)}/refuse">
                        ${csrf}<input name="reason" aria-label="Reason for refusing request ${String(r.id)}" placeholder="Reason" /><button
                          class="danger"
                          type="submit"
                          aria-label="Refuse request ${String(r.id)}"
                        >
                          Refuse
                        </button>
                      </form>
                    </td>`,
              ),
            )
          : html`<p class="message">No enrolment request waits for approval.</p>`
      }
      ${
        decided.length
          ? html`<h2>Decided</h2>
              ${dataTable(
                'Enrolment requests decided, newest first',
                ['Request', 'Endpoint', 'Asks for', 'Decided', 'By', 'Outcome'],
                decided.map(
                  (r) =>
                    html`<td class="mono">${String(r.id)}</td>
                      <td>${endpointOf(r)}</td>
                      <td>${requestedName(r)}</td>
                      <td>${r.decided ? isoTime(r.decided) : ''}</td>
                      <td>${r.decidedBy?.name ?? ''}</td>
                      <td>
                        ${
                          r.status === 'approved' && r.certificateSerial
                            ? html`approved:
                                <a class="mono" href="${ctx.base}certs/${ca.serial}/${r.certificateSerial}/"
                                  >${colonSerial(r.certificateSerial)}</a
                                >`
                            : html`refused: ${r.reason ?? ''}`
                        }
                      </td>`,
                ),
              )}`
          : null
      }
      <p><a href="${ctx.base}cas/${ca.serial}/">Back to the CA</a></p>`,
  });
}

export async function showEnrolmentRequests(ctx: SignedInContext): Promise<void> {
  await requestsPage(ctx, await caFor(ctx, 'sign_certificate', ctx.params.ca));
}

/** The decision on the request of the path, at the path's CA; a request decided already is a message (409). */
async function decide(ctx: SignedInContext, act: (ca: CaRecord, id: number) => Promise<unknown>): Promise<void> {
  const ca = await caFor(ctx, 'sign_certificate', ctx.params.ca);
  const { store } = ctx.services;
  const id = Number(ctx.params.id);
  const request = await store.enrolmentRequests.getEnrolmentRequest(id);
  if (!request || request.caId !== ca.id) throw notFoundPage('The enrolment request');
  try {
    await act(ca, id);
  } catch (e) {
    if (e instanceof CaError && (e.code === 'conflict' || e.code === 'invalid')) return requestsPage(ctx, ca, 409, e.message);
    throw e;
  }
  redirect(ctx.res, `${ctx.base}cas/${ca.serial}/enrolment-requests/`);
}

export function approve(ctx: SignedInContext): Promise<void> {
  const { signing, store } = ctx.services;
  return decide(ctx, (_ca, id) =>
    approveEnrolmentRequest(
      { store, keyBackends: signing.keyBackends, profiles: signing.profiles, defaultProfile: signing.defaultProfile },
      id,
      adminActor(ctx),
    ),
  );
}

export function refuse(ctx: SignedInContext): Promise<void> {
  const reason = (ctx.form?.get('reason') ?? '').trim();
  return decide(ctx, (_ca, id) => refuseEnrolmentRequest(ctx.services.store, id, adminActor(ctx), reason || null));
}
