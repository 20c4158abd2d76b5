/**
 * dns-01 (RFC 8555 §8.4): one of the TXT records at `_acme-challenge.{name}` must be the base64url
 * SHA-256 digest of the key authorization. RFC 8738 §7: never for an IP identifier.
 */
import { createHash } from 'crypto';
import type { ChallengeToValidate, ValidationOutcome } from '../../lib/ports/acme';
import { failure, isFailure, quoted, VALID } from './outcome';
import type { NameLookup } from './resolver';

/** What a detail shows of the records found: enough to spot a stale or mistyped one. */
const RECORDS_SHOWN = 5;

export async function validateDns01(challenge: ChallengeToValidate, lookup: NameLookup): Promise<ValidationOutcome> {
  if (challenge.identifier.type !== 'dns') {
    return failure('malformed', `dns-01 cannot validate the IP address ${challenge.identifier.value} (RFC 8738 §7)`, false);
  }
  const name = `_acme-challenge.${challenge.identifier.value}`;
  const records = await lookup.txt(name);
  if (isFailure(records)) return records;
  const expected = createHash('sha256').update(challenge.keyAuthorization, 'utf8').digest('base64url');
  if (records.includes(expected)) return VALID;
  if (records.length === 0) return failure('dns', `DNS problem: no TXT record found at ${name}`, true);
  const shown = records.slice(0, RECORDS_SHOWN).map((r) => quoted(r, 64));
  const more = records.length > RECORDS_SHOWN ? ` and ${records.length - RECORDS_SHOWN} more` : '';
  return failure('incorrectResponse', `no TXT record at ${name} is ${quoted(expected)}: found ${shown.join(', ')}${more}`, false);
}
