/**
 * `GET /issuer/{serial}.der`: the CA certificate that the Authority Information Access extension of
 * issued certificates points at (RFC 5280 §4.2.2.1 "CA Issuers"), as DER.
 */
import { sendContent } from '../../http/send';
import { caBySerial } from '../ca-lookup';
import type { RevocationHandler } from '../route-types';

/** A CA certificate changes only when the CA is replaced, which gives it a new serial: an hour is safe. */
const ISSUER_MAX_AGE_S = 3600;

export const issuerCertificate: RevocationHandler = async ({ res, params, services }) => {
  const ca = await caBySerial(services, params.serial);
  sendContent(res, 'application/pkix-cert', ca.der, { 'Cache-Control': `public, max-age=${ISSUER_MAX_AGE_S}` });
};
