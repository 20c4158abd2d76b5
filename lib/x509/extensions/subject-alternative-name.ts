/** subjectAltName (RFC 5280 §4.2.1.6): a list of GeneralName (docs/COMPATIBILITY.md §2). */
import { EXTENSION_OIDS } from '../oids';
import { generalNameListCodec } from './general-name-list';

export const subjectAlternativeNameCodec = generalNameListCodec('subject_alternative_name', EXTENSION_OIDS.subject_alternative_name);
