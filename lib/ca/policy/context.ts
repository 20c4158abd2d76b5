/**
 * What the issuing policy needs to know beyond the request: the issuing CA's own issuance policy
 * (`CaRecord.issuancePolicy`, null: the built-in one), its chain (its own nameConstraints and its
 * parents') and the public key of every CA in the store (a CA's key is never certified for anything
 * else). Read through whatever lists CAs — the store, or the router's CA
 * cache (lib/cache/ca-cache.ts), whose freshness rules then apply.
 */
import type { CaRecord, Store } from '../../ports';
import type { NameConstraintLists } from '../../x509/name-constraints-match';
import { caFacts } from '../ca-facts';
import type { OwnPolicy } from './ca-names';

/** A CA's key, as a key the CSR might carry. */
function keyOf(ca: CaRecord): string {
  return caFacts(ca).publicKeyDer.toString('base64');
}

export interface PolicyContext {
  /** What the issuing CA narrows of the built-in policy (keys, names allowed and denied), or null. */
  own: OwnPolicy | null;
  /** The nameConstraints of the issuing CA and of each CA above it, with the name of the CA that has them. */
  constraints: readonly { ca: string; constraints: NameConstraintLists }[];
  /** The CA (by name) whose public key is this SubjectPublicKeyInfo (base64), for every CA in the store. */
  caKeys: ReadonlyMap<string, string>;
}

function constraintsOf(ca: CaRecord): NameConstraintLists | null {
  const ext = ca.certificate.extensions.find((e) => e.type === 'name_constraints');
  return ext ? (ext.value as NameConstraintLists) : null;
}

/** The keys of a CA list, worked out once per list read (a cached list is the same array). */
const keysByList = new WeakMap<readonly CaRecord[], ReadonlyMap<string, string>>();

function caKeysOf(cas: readonly CaRecord[]): ReadonlyMap<string, string> {
  let keys = keysByList.get(cas);
  if (!keys) {
    keys = new Map(cas.map((ca) => [keyOf(ca), ca.name]));
    keysByList.set(cas, keys);
  }
  return keys;
}

/** The context for issuing at `ca`, out of `cas` (every CA of the store, `ca` among them or not). */
export function policyContextOf(ca: CaRecord, cas: readonly CaRecord[]): PolicyContext {
  const byId = new Map(cas.map((c) => [c.id, c]));
  const constraints: PolicyContext['constraints'][number][] = [];
  const seen = new Set<number>();
  for (let at: CaRecord | undefined = ca; at && !seen.has(at.id); at = at.parentId === null ? undefined : byId.get(at.parentId)) {
    seen.add(at.id);
    const own = constraintsOf(at);
    if (own) constraints.push({ ca: at.name, constraints: own });
  }
  const keys = caKeysOf(cas);
  // The issuing CA is counted even when the list was read before it was stored.
  const withIssuer = keys.has(keyOf(ca)) ? keys : new Map([...keys, [keyOf(ca), ca.name]]);
  const own = ca.issuancePolicy ? { ca: ca.name, policy: ca.issuancePolicy } : null;
  return { own, constraints, caKeys: withIssuer };
}

/** The context for issuing at `ca`, reading the CAs from `cas`. */
export async function loadPolicyContext(cas: Pick<Store, 'listCas'>, ca: CaRecord): Promise<PolicyContext> {
  return policyContextOf(ca, await cas.listCas());
}
