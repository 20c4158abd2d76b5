/**
 * Certificate download (RFC 8555 §7.4.2): POST-as-GET by the ordering account, the chain as
 * `application/pem-certificate-chain` — the leaf, then every CA above it up to and including the
 * root, as the original serves it (certbot refuses a chain of one certificate).
 */
import { caChain } from '../../ca/lookup';
import { pemEncode } from '../../x509/pem';
import { unauthorized } from '../problems';
import type { AcmeAnswer, AcmeCall } from '../route-types';

export const PEM_CHAIN_TYPE = 'application/pem-certificate-chain';

export async function certificate(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, ca, params, account } = call;
  const found = await services.acme.findOrderCertificate(ca.id, params.slug);
  if (!found || !account || found.order.accountId !== account.id || found.order.status !== 'valid' || !found.der) {
    throw unauthorized('You are not authorized to perform this request.');
  }
  const chain = await caChain(services.cas, ca);
  const body = [found.der, ...chain.map((c) => c.der)].map((der) => pemEncode(der, 'CERTIFICATE')).join('');
  return { status: 200, body, contentType: PEM_CHAIN_TYPE };
}
