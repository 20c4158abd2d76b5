/** subjectInfoAccess (RFC 5280 §4.2.2.2): CA repository locations (docs/COMPATIBILITY.md §2). */
import { ACCESS_METHOD_ALIASES, EXTENSION_OIDS } from '../oids';
import { accessDescriptionsCodec } from './access-descriptions';

export const subjectInformationAccessCodec = accessDescriptionsCodec(
  'subject_information_access',
  EXTENSION_OIDS.subject_information_access,
  [ACCESS_METHOD_ALIASES.ca_repository],
  false,
);
