/** issuerAltName (RFC 5280 §4.2.1.7): a list of GeneralName (docs/COMPATIBILITY.md §2). */
import { EXTENSION_OIDS } from '../oids';
import { generalNameListCodec } from './general-name-list';

export const issuerAlternativeNameCodec = generalNameListCodec('issuer_alternative_name', EXTENSION_OIDS.issuer_alternative_name);
