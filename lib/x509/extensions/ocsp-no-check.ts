/** OCSPNoCheck (RFC 6960 §4.2.2.2.1): a NULL value; the API value is `null`. */
import { nullValueCodec } from './null-value';

export const ocspNoCheckCodec = nullValueCodec('ocsp_no_check', { defaultCritical: false, requiredCritical: null });
