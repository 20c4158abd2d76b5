/** authorityInfoAccess (RFC 5280 §4.2.2.1): OCSP responders and CA issuer locations (docs/COMPATIBILITY.md §2). */
import { ACCESS_METHOD_ALIASES, EXTENSION_OIDS } from '../oids';
import { accessDescriptionsCodec } from './access-descriptions';

export const authorityInformationAccessCodec = accessDescriptionsCodec(
  'authority_information_access',
  EXTENSION_OIDS.authority_information_access,
  [ACCESS_METHOD_ALIASES.ocsp, ACCESS_METHOD_ALIASES.ca_issuers],
  true,
);
