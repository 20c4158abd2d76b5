/**
 * GetCACaps (RFC 8894 §3.5.2): one keyword per line, no blank line. Beyond RFC 8894's keywords,
 * `SHA-384` is listed because strongSwan's pki 5.9.8 tests capability bits by the wrong index: its
 * default AES request and its renewal pass that test only when `SHA-384` (or `DES3`) is listed.
 * `DES3` and `SHA-1` are listed only while the legacy algorithms are accepted.
 */
export function scepCapabilities(legacyAlgorithms: boolean): string {
  const caps = ['POSTPKIOperation', 'Renewal', ...(legacyAlgorithms ? ['SHA-1'] : []), 'SHA-256', 'SHA-384', 'SHA-512', 'AES'];
  if (legacyAlgorithms) caps.push('DES3');
  caps.push('SCEPStandard');
  return caps.join('\n');
}
