/**
 * list_enrolment_requests, approve_enrolment_request, refuse_enrolment_request (docs/guides/est.md, docs/guides/scep.md:
 * an endpoint with `approval`): the requests that wait for an operator, and the operator's decision —
 * approved, the certificate signed for the device in the same transaction; or refused, with a reason
 * the device is told (lib/enrolment/approval.ts). The events name the operator.
 */
import { Option, type Command } from 'commander';
import { findCa } from '../../ca/lookup';
import { approveEnrolmentRequest, listEnrolmentRequests, refuseEnrolmentRequest, requestedName } from '../../enrolment/approval';
import type { EnrolmentRequestRecord, EnrolmentRequestStatus } from '../../ports';
import { formatUtc } from '../../x509/datetime';
import { serialToColons } from '../../x509/serial-format';
import type { CommandContext } from '../context';
import { intOption, type Action } from './shared';

const STATUSES: readonly EnrolmentRequestStatus[] = ['pending', 'approved', 'refused'];

/** `<id> - <status> - <protocol>/<label> - <subject> - requested <when> by <who>` and the decision, if any. */
function requestLine(r: EnrolmentRequestRecord, caName: string): string {
  const endpoint = r.label ? `${r.protocol}/${r.label}` : r.protocol;
  const who = [r.requester.type, r.requester.name].filter(Boolean).join(' ');
  const head = `${r.id} - ${r.status} - ${endpoint} - ${caName} - ${requestedName(r)} - requested ${formatUtc(r.created)} by ${who}`;
  const by = r.decidedBy?.name ? ` by ${r.decidedBy.name}` : '';
  if (r.status === 'approved') return `${head} - approved ${formatUtc(r.decided!)}${by}: ${serialToColons(r.certificateSerial!)}`;
  if (r.status === 'refused') return `${head} - refused ${formatUtc(r.decided!)}${by}: ${r.reason}`;
  return head;
}

export function registerEnrolmentRequestCommands(program: Command, run: Action): void {
  program
    .command('list_enrolment_requests')
    .description('List enrolment requests (EST, SCEP) of endpoints with approval, newest first: by default those that wait.')
    .addOption(new Option('--status <status>', 'pending, approved or refused (default: pending)').choices([...STATUSES, 'all']))
    .option('--ca <ca>', 'only those of this CA, by name or serial')
    .action(
      run(async (ctx: CommandContext, o: { status?: EnrolmentRequestStatus | 'all'; ca?: string }) => {
        const store = await ctx.store();
        const ca = o.ca === undefined ? undefined : await findCa(store, o.ca);
        const status = o.status === 'all' ? undefined : (o.status ?? 'pending');
        const found = await listEnrolmentRequests(store, { status, caId: ca?.id, limit: 1000 });
        const names = new Map((await store.listCas()).map((c) => [c.id, c.name]));
        ctx.write(found.length ? found.map((r) => requestLine(r, names.get(r.caId) ?? '?') + '\n').join('') : 'No enrolment requests.\n');
      }),
    );

  program
    .command('approve_enrolment_request')
    .description("Approve an enrolment request that waits: its certificate is signed with the endpoint's CA and profile now.")
    .argument('<id>', 'the request, by id (list_enrolment_requests)')
    .action(
      run(async (ctx: CommandContext, id: string) => {
        const services = {
          store: await ctx.store(),
          keyBackends: ctx.keyBackends(),
          profiles: ctx.profiles(),
          defaultExpiresMs: ctx.settings.defaultExpiresMs ?? undefined,
          defaultProfile: ctx.settings.defaultProfile,
        };
        const { certificate } = await approveEnrolmentRequest(services, intOption(id, '<id>'), ctx.operator);
        ctx.write(`Approved enrolment request ${id}: issued ${serialToColons(certificate.serial)}.\n`);
      }),
    );

  program
    .command('refuse_enrolment_request')
    .description('Refuse an enrolment request that waits; the device is told the reason when it asks again.')
    .argument('<id>', 'the request, by id (list_enrolment_requests)')
    .option('--reason <text>', 'what the device is told (default: "The request was refused by an operator.")')
    .action(
      run(async (ctx: CommandContext, id: string, o: { reason?: string }) => {
        await refuseEnrolmentRequest(await ctx.store(), intOption(id, '<id>'), ctx.operator, o.reason ?? null);
        ctx.write(`Refused enrolment request ${id}.\n`);
      }),
    );
}
