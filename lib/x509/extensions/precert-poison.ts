/** Precertificate Poison (RFC 6962 §3.1): a NULL value that must be critical; the API value is `null`. */
import { nullValueCodec } from './null-value';

export const precertPoisonCodec = nullValueCodec('precert_poison', { defaultCritical: true, requiredCritical: true });
