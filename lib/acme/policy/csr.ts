/**
 * What finalize accepts (RFC 8555 §7.4): a CSR whose self-signature verifies and whose names are
 * exactly the order's identifiers: the subjectAltName set equal to them, a common name (if any) among
 * them (`badCSR`). DNS names compare without regard to case, IP addresses in canonical form. Its key
 * is the CA's issuing policy's to judge (lib/ca/policy/keys.ts, `badPublicKey` through
 * ./ca-policy.ts), as at every other way in.
 */
import type { AcmeIdentifier } from '../../ports';
import { parseVerifiedCsr, type ParsedCsr } from '../../x509/csr';
import { X509Error } from '../../x509/errors';
import { canonicalIp } from '../../x509/ip-address';
import { OID_COMMON_NAME } from '../../x509/oids';
import type { GeneralName } from '../../x509/types';
import { badCsr } from '../problems';

function nameKey(id: AcmeIdentifier): string {
  return `${id.type}:${id.type === 'dns' ? id.value.toLowerCase() : (canonicalIp(id.value) ?? id.value)}`;
}

export async function checkedCsr(
  der: Buffer,
  identifiers: readonly AcmeIdentifier[],
  verify?: Parameters<typeof parseVerifiedCsr>[1],
): Promise<ParsedCsr> {
  let csr: ParsedCsr;
  try {
    csr = await parseVerifiedCsr(der, verify);
  } catch (e) {
    if (e instanceof X509Error && e.code === 'signature') throw badCsr('CSR signature is not valid.');
    throw badCsr(`Unable to parse CSR${e instanceof Error ? `: ${e.message}` : '.'}`);
  }
  const wanted = new Set(identifiers.map(nameKey));
  const san = csr.requestedExtensions.find((e) => e.type === 'subject_alternative_name');
  if (!san) throw badCsr('No subject alternative names found in CSR.');
  const given = new Set<string>();
  for (const name of san.value as GeneralName[]) {
    if (name.type === 'DNS') given.add(nameKey({ type: 'dns', value: name.value }));
    else if (name.type === 'IP') given.add(nameKey({ type: 'ip', value: name.value }));
    else throw badCsr(`The CSR names a ${name.type} subject alternative name; only DNS names and IP addresses of the order.`);
  }
  if (given.size !== wanted.size || [...given].some((n) => !wanted.has(n))) throw badCsr('Names in CSR do not match.');
  for (const attribute of csr.subject) {
    if (attribute.oid !== OID_COMMON_NAME) continue;
    const asDns = nameKey({ type: 'dns', value: attribute.value });
    const asIp = canonicalIp(attribute.value) ? nameKey({ type: 'ip', value: attribute.value }) : null;
    if (!wanted.has(asDns) && !(asIp && wanted.has(asIp))) throw badCsr('CommonName was not in order.');
  }
  return csr;
}
