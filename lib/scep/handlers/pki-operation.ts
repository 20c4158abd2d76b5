/**
 * `GET|POST ?operation=PKIOperation` (RFC 8894 §4.3): the pkiMessage as base64 in the `message`
 * parameter (GET) or as DER in the body (POST, whatever its Content-Type: strongSwan sends none,
 * micromdm `application/octet-stream`); the CertRep as `application/x-pki-message`.
 */
import { readRawBody } from '../../http/body';
import { answerPkiMessage } from '../pki-operation';
import type { ScepHandler } from '../route-types';
import { decodeMessage, scepError, sendScep } from '../transport';

const PKI_MESSAGE = 'application/x-pki-message';

export const pkiOperationGet: ScepHandler = async ({ req, res, params, message, services }) => {
  if (message === null) throw scepError(400, 'PKIOperation over GET carries the pkiMessage in the message parameter (RFC 8894 §4.3).');
  if (message.length > Math.ceil((services.bodyLimit * 4) / 3) * 3) throw scepError(413, 'The message is too large.');
  sendScep(res, PKI_MESSAGE, await answerPkiMessage(services, params.label, decodeMessage(message), req.ip ?? null));
};

export const pkiOperationPost: ScepHandler = async ({ req, res, params, services }) => {
  const der = await readRawBody(req, services.bodyLimit);
  if (der.length === 0) throw scepError(400, 'PKIOperation over POST carries the pkiMessage as the body (RFC 8894 §4.3).');
  sendScep(res, PKI_MESSAGE, await answerPkiMessage(services, params.label, der, req.ip ?? null));
};
