/**
 * The eleven endpoints of the API, as one table that reads like the endpoint list of docs/guides/rest-api.md.
 *
 * Everything the router, the validator and the OpenAPI document need is declared here: method, path
 * (relative to the API root, with typed path parameters, see path-params.ts), the permission, and
 * where each request is validated and handled:
 *   - `query` / `body.schema` name the JSON Schema in `schemas/` that the router checks the request
 *     against (lib/api/validation.ts) before the handler runs — shape problems are a 422 there;
 *   - `handler` is a thin function (lib/api/handlers/{profiles,cas,orders,certs}.ts) that calls the one
 *     lib/ca service named in the comment beside it, where the rules live.
 * The documented error statuses and the response schema feed the OpenAPI document.
 */
import { listCertificateAuthorities, updateCertificateAuthority, viewCertificateAuthority } from './handlers/cas';
import { listCertificates, revokeCertificate, viewCertificate } from './handlers/certs';
import { getCertificateOrder, resignCertificate, signCertificate } from './handlers/orders';
import { listProfiles, viewProfile } from './handlers/profiles';
import type { RouteDefinition } from './route-types';

export const ROUTES: readonly RouteDefinition[] = [
  {
    method: 'GET',
    path: '/profiles/',
    operation: 'list_profiles',
    summary: 'List available profiles',
    description: 'All configured certificate profiles, in configured order.',
    tag: 'Profiles',
    permission: 'sign_certificate',
    response: { schema: 'Profile', list: true },
    errors: [],
    handler: listProfiles, // lib/api/handlers/profiles.ts → profiles resolved by lib/ca/profiles.ts
  },
  {
    method: 'GET',
    path: '/profiles/{name}/',
    operation: 'view_profile',
    summary: 'View profile', // upstream repeats the list's summary here (docs/reference/differences.md D12)
    description: 'One certificate profile.',
    tag: 'Profiles',
    permission: 'sign_certificate',
    response: { schema: 'Profile' },
    errors: [404],
    handler: viewProfile, // lib/api/handlers/profiles.ts → lib/ca/profiles.ts
  },
  {
    method: 'GET',
    path: '/ca/',
    operation: 'list_certificate_authorities',
    summary: 'List available certificate authorities',
    description: 'Enabled, API-enabled certificate authorities, by default only those currently valid.',
    tag: 'Certificate authorities',
    permission: 'view_certificateauthority',
    query: 'ListCertificateAuthoritiesQuery',
    response: { schema: 'CertificateAuthority', list: true },
    errors: [],
    handler: listCertificateAuthorities, // lib/api/handlers/cas.ts → listVisibleCas (lib/api/visibility.ts)
  },
  {
    method: 'GET',
    path: '/ca/{serial}/',
    operation: 'view_certificate_authority',
    summary: 'View certificate authority',
    description: 'One certificate authority (also when expired).',
    tag: 'Certificate authorities',
    permission: 'view_certificateauthority',
    response: { schema: 'CertificateAuthority' },
    errors: [404],
    handler: viewCertificateAuthority, // lib/api/handlers/cas.ts → visibleCa (lib/api/visibility.ts)
  },
  {
    method: 'PUT',
    path: '/ca/{serial}/',
    operation: 'update_certificate_authority',
    summary: 'Update certificate authority',
    description: 'Change the fields present in the body; others stay as they are.',
    tag: 'Certificate authorities',
    permission: 'change_certificateauthority',
    body: { schema: 'CertificateAuthorityUpdate', param: 'data' },
    response: { schema: 'CertificateAuthority' },
    errors: [400, 404],
    handler: updateCertificateAuthority, // lib/api/handlers/cas.ts → visibleCa (lib/api/visibility.ts), updateCaFromBody (lib/ca/ca-update.ts)
  },
  {
    method: 'POST',
    path: '/ca/{serial}/sign/',
    operation: 'sign_certificate',
    summary: 'Sign a certificate',
    description:
      'Create an order to sign the CSR. The response is the order as created (status `pending`); poll the order to get the certificate serial.',
    tag: 'Certificates',
    permission: 'sign_certificate',
    body: { schema: 'SignCertificate', param: 'data' },
    response: { schema: 'CertificateOrder' },
    errors: [400, 404],
    handler: signCertificate, // lib/api/handlers/orders.ts → signThroughOrder (lib/api/order-desk.ts)
  },
  {
    method: 'GET',
    path: '/ca/{serial}/orders/{slug}/',
    operation: 'get_certificate_order',
    summary: 'Retrieve certificate order',
    description: 'An order created by the calling user.',
    tag: 'Certificates',
    permission: 'sign_certificate',
    response: { schema: 'CertificateOrder' },
    errors: [404],
    handler: getCertificateOrder, // lib/api/handlers/orders.ts → ownOrder (lib/api/order-desk.ts)
  },
  {
    method: 'GET',
    path: '/ca/{serial}/certs/',
    operation: 'list_certificates',
    summary: 'List certificates',
    description:
      'Certificates issued by this CA. By default expired, revoked and automatically generated certificates are left out; the flags add them.',
    tag: 'Certificates',
    permission: 'view_certificate',
    query: 'ListCertificatesQuery',
    response: { schema: 'Certificate', list: true },
    errors: [404],
    handler: listCertificates, // lib/api/handlers/certs.ts → store.listCertificates, visibleCa (lib/api/visibility.ts)
  },
  {
    method: 'GET',
    path: '/ca/{serial}/certs/{certificate_serial}/',
    operation: 'view_certificate',
    summary: 'View certificate',
    description: 'One certificate issued by this CA, in any state.',
    tag: 'Certificates',
    permission: 'view_certificate',
    response: { schema: 'Certificate' },
    errors: [404],
    handler: viewCertificate, // lib/api/handlers/certs.ts → visibleCa (lib/api/visibility.ts)
  },
  {
    method: 'POST',
    path: '/ca/{serial}/certs/{certificate_serial}/resign/',
    operation: 'resign_certificate',
    summary: 'Resign a certificate',
    description: 'Create an order to sign the stored CSR of a certificate again.',
    tag: 'Certificates',
    permission: 'sign_certificate',
    body: { schema: 'ResignCertificate', param: 'data' },
    response: { schema: 'CertificateOrder' },
    errors: [400, 404],
    handler: resignCertificate, // lib/api/handlers/orders.ts → resignThroughOrder (lib/api/order-desk.ts)
  },
  {
    method: 'POST',
    path: '/ca/{serial}/certs/{certificate_serial}/revoke/',
    operation: 'revoke_certificate',
    summary: 'Revoke certificate',
    description: 'Revoke a currently valid certificate of this CA.',
    tag: 'Certificates',
    permission: 'revoke_certificate',
    body: { schema: 'RevokeCertificate', param: 'revocation' },
    response: { schema: 'Certificate' },
    errors: [400, 404],
    handler: revokeCertificate, // lib/api/handlers/certs.ts → revokeCertificateOfCa (lib/api/revoke-request.ts → lib/ca/revocation.ts)
  },
];
