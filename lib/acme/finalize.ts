/**
 * Finalizing an order (RFC 8555 §7.4): the CSR checked against the order and the key policy
 * (policy/csr.ts), the sign request made (issue.ts), the order moved to `processing` and the
 * certificate issued in the request when it can be within `finalizeWaitMs`; else the order's
 * `acme_issuance` job (runner.ts) finishes it and the client polls. The order moves to `processing` while its certificate
 * is being signed, and the certificate is stored only if that move succeeded (issue.ts), so a finalize
 * that lost a race stores nothing (docs/DESIGN.md "ACME").
 */
import { JOB_KINDS, type AcmeOrderRecord, type CaRecord } from '../ports';
import { loadPolicyContext } from '../ca/policy/context';
import { orderSignRequest } from './issue';
import { checkedCsr } from './policy/csr';
import { orderNotReady } from './problems';
import type { AcmeServices } from './services';
import { onFinalize } from './state-machine';

/**
 * The order after finalize: `valid` when issued in time, else as the store has it now (`processing`,
 * or `invalid` with its error). `current` is `ready`; `reread` reads the order again as its account
 * may see it.
 */
export async function finalizeOrder(
  services: AcmeServices,
  ca: CaRecord,
  current: AcmeOrderRecord,
  csrDer: Buffer,
  from: { address: string | null; now: Date },
  reread: () => Promise<AcmeOrderRecord>,
): Promise<AcmeOrderRecord> {
  const verify = services.verifier ? services.verifier.verify.bind(services.verifier) : undefined;
  const csr = await checkedCsr(csrDer, current.identifiers, verify);
  const request = orderSignRequest(
    current,
    csr,
    ca,
    {
      profiles: services.profiles,
      defaultValidityMs: services.options.defaultCertValidityMs,
      policy: await loadPolicyContext(services.cas, ca),
    },
    from.now,
  );
  const { address } = from;
  // The order's `acme_issuance` job, in the same statement, leased to this instance, which issues now.
  const job = {
    kind: JOB_KINDS.acmeIssuance,
    reference: String(current.id),
    owner: services.runner.owner,
    leaseMs: services.options.leaseMs,
  };
  const started = services.acme.applyChange(onFinalize(current.id, request, job, address));
  const processing = { ...current, status: 'processing' as const, sourceAddress: address };
  const issuing = services.runner.issueNow(ca, processing, request, services.options.finalizeWaitMs, started);
  if (!(await started)) {
    const again = await reread();
    if (again.status === 'processing' || again.status === 'valid') return again;
    throw orderNotReady(`This order is not ready (its status is "${again.status}").`);
  }
  const issued = await issuing;
  // Issued in time: the order is what completeIssuance wrote. Otherwise (still issuing, or failed
  // with its error recorded), as the store has it now.
  if (issued) return { ...current, status: 'valid', certificateId: issued.id, certificateSerial: issued.serial };
  return reread();
}
