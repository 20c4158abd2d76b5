/**
 * The keys one CA certifies (docs/guides/issuance-policy.md; `CaIssuancePolicy.keys`): a CA may accept fewer
 * keys than the built-in set (keys.ts), never more. An entry is a kind of that set —
 * `RSA-<bits>` (RSA of at least that many bits; `RSA` alone is `RSA-2048`), `P-256`, `P-384`,
 * `P-521`, `Ed25519`, `Ed448` — so that RSA below 2048 bits, P-192 or DSA cannot even be written, and a
 * key is still checked against the built-in set first (check.ts) whatever is stored.
 */
import type { PublicKeyInfo } from '../../x509/public-key';
import { CaError } from '../errors';
import { MIN_RSA_BITS } from './keys';

/** The kinds besides RSA, in the order they are kept and shown, with the curve each one is. */
const KINDS: readonly { kind: string; matches: (key: Pick<PublicKeyInfo, 'keyType' | 'curve'>) => boolean }[] = [
  { kind: 'P-256', matches: (k) => k.keyType === 'EC' && k.curve === 'secp256r1' },
  { kind: 'P-384', matches: (k) => k.keyType === 'EC' && k.curve === 'secp384r1' },
  { kind: 'P-521', matches: (k) => k.keyType === 'EC' && k.curve === 'secp521r1' },
  { kind: 'Ed25519', matches: (k) => k.keyType === 'Ed25519' },
  { kind: 'Ed448', matches: (k) => k.keyType === 'Ed448' },
];

const RSA = /^RSA(?:-(\d{1,5}))?$/i;

/** How an operator lists the kinds, for errors and help. */
export const KEY_KINDS_HELP = 'RSA or RSA-<bits> (at least 2048), P-256, P-384, P-521, Ed25519, Ed448';

/**
 * `entries` checked and canonical: RSA first, then the others in the order above, without repeats.
 * A kind outside the built-in set, an RSA size below 2048 bits, two RSA sizes or no kind at all is a
 * CaError naming `label` — nothing then is stored.
 */
export function keyKinds(entries: readonly string[], label: string): string[] {
  let rsaBits: number | null = null;
  const others = new Set<string>();
  for (const raw of entries) {
    const text = raw.trim();
    const rsa = RSA.exec(text);
    if (rsa) {
      const bits = rsa[1] === undefined ? MIN_RSA_BITS : Number(rsa[1]);
      if (bits < MIN_RSA_BITS) {
        throw new CaError('invalid', `${label} ${JSON.stringify(raw)}: RSA keys of fewer than ${MIN_RSA_BITS} bits are never accepted.`);
      }
      if (rsaBits !== null && rsaBits !== bits) throw new CaError('invalid', `${label}: give one RSA size, not ${rsaBits} and ${bits}.`);
      rsaBits = bits;
      continue;
    }
    const known = KINDS.find((k) => k.kind.toLowerCase() === text.toLowerCase());
    if (!known) throw new CaError('invalid', `${label} ${JSON.stringify(raw)}: not a key kind (one of ${KEY_KINDS_HELP}).`);
    others.add(known.kind);
  }
  const kinds = [...(rsaBits === null ? [] : [`RSA-${rsaBits}`]), ...KINDS.filter((k) => others.has(k.kind)).map((k) => k.kind)];
  if (kinds.length === 0) throw new CaError('invalid', `${label}: name at least one key kind (${KEY_KINDS_HELP}).`);
  return kinds;
}

/** Whether a key of the built-in set is one of `kinds` (canonical, as `keyKinds` makes them). */
export function isKeyOfKinds(kinds: readonly string[], key: Pick<PublicKeyInfo, 'keyType' | 'keySize' | 'curve'>): boolean {
  return kinds.some((kind) => {
    const rsa = RSA.exec(kind);
    if (rsa) return key.keyType === 'RSA' && key.keySize >= Number(rsa[1] ?? MIN_RSA_BITS);
    return KINDS.find((k) => k.kind === kind)?.matches(key) ?? false;
  });
}

/** The kinds in words: "RSA ≥ 3072 bits, EC P-384, Ed25519". */
export function describeKeyKinds(kinds: readonly string[]): string {
  return kinds
    .map((kind) => {
      const rsa = RSA.exec(kind);
      if (rsa) return `RSA ≥ ${rsa[1] ?? MIN_RSA_BITS} bits`;
      return kind.startsWith('P-') ? `EC ${kind}` : kind;
    })
    .join(', ');
}
