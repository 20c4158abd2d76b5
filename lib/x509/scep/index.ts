/** SCEP's CMS (RFC 8894 §3): requests read and verified, envelopes opened and sealed, CertReps built. */
export {
  readPkiMessage,
  ScepMessageError,
  type PkiMessage,
  type ScepDigest,
  type ScepMessageType,
  type ScepMessageFailInfo,
} from './pki-message';
export { openEnvelope, sealEnvelope, type OpenedEnvelope, type RawRsaDecrypt, type ScepCipher } from './enveloped-data';
export { buildCertRep, type CertRepInput, type ScepFailInfo } from './cert-rep';
export { readIssuerAndSerial, readIssuerAndSubject } from './request-content';
export { challengePassword } from './challenge-password';
export { unpadPkcs1v15KeyTransport } from './rsa-unpad';
