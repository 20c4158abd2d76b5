/**
 * Argument lists for the `openssl` command line that several suites need alike; each suite runs them
 * with its own wrapper (working directory, output handling).
 */

/** `openssl req` options for a new, unencrypted P-256 key. */
export const NEW_P256_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/** The extensions of a CA certificate, as `selfSignedP256`'s `extensions`. */
export const CA_EXTENSIONS = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'];

/** `openssl req -x509` making a new P-256 key (unencrypted, to `keyOut`) and its self-signed certificate. */
export function selfSignedP256(o: { keyOut: string; out?: string; subject: string; days: number; extensions?: string[] }): string[] {
  const out = o.out ? ['-out', o.out] : [];
  const extensions = (o.extensions ?? []).flatMap((e) => ['-addext', e]);
  return ['req', '-x509', ...NEW_P256_KEY, '-keyout', o.keyOut, ...out, '-subj', o.subject, '-days', String(o.days), ...extensions];
}
