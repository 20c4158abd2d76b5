/**
 * The names a CA issues for through ACME (README "ACME"; `AcmeCaPolicy`): DNS suffixes — an entry
 * covers the name itself and every name under it, and a wildcard order by its base name — and IP
 * networks in CIDR form (a bare address is a /32 or /128). Denied wins over allowed; with an allow list,
 * a name must be covered by it. Refused identifiers are one `rejectedIdentifier` with a subproblem each
 * (RFC 8555 §6.7.1), before the order exists.
 */
import type { AcmeCaPolicy, AcmeIdentifier } from '../../ports';
import { encodeIpBytes } from '../../x509/ip-address';
import { rejectedIdentifier, type AcmeSubproblem } from '../problems';

function coversName(entry: string, name: string): boolean {
  const suffix = entry
    .toLowerCase()
    .replace(/^\*?\./, '')
    .replace(/\.$/, '');
  return name === suffix || name.endsWith(`.${suffix}`);
}

function coversIp(entry: string, ip: string): boolean {
  let network: Buffer;
  let address: Buffer;
  try {
    network = encodeIpBytes(entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`);
    address = encodeIpBytes(ip);
  } catch {
    return false;
  }
  const length = address.length;
  if (network.length !== 2 * length) return false;
  for (let i = 0; i < length; i++) {
    if ((address[i] & network[length + i]) !== (network[i] & network[length + i])) return false;
  }
  return true;
}

function isIpEntry(entry: string): boolean {
  return /^[0-9.]+(\/\d+)?$/.test(entry) || entry.includes(':');
}

function covers(entries: readonly string[], id: AcmeIdentifier): boolean {
  return entries.some((entry) =>
    id.type === 'ip' ? isIpEntry(entry) && coversIp(entry, id.value) : !isIpEntry(entry) && coversName(entry, id.value),
  );
}

/** Throws `rejectedIdentifier` naming each identifier the policy refuses. */
export function checkNamePolicy(policy: AcmeCaPolicy, identifiers: readonly AcmeIdentifier[]): void {
  const refused: AcmeSubproblem[] = [];
  for (const id of identifiers) {
    if (covers(policy.deny, id))
      refused.push({ type: 'rejectedIdentifier', detail: `${id.value} is denied by the CA's policy.`, identifier: id });
    else if (policy.allow.length > 0 && !covers(policy.allow, id)) {
      refused.push({ type: 'rejectedIdentifier', detail: `${id.value} is not among the names the CA issues for.`, identifier: id });
    }
  }
  if (refused.length > 0) {
    throw rejectedIdentifier(`The CA does not issue for ${refused.map((r) => r.identifier?.value).join(', ')}.`, refused);
  }
}
