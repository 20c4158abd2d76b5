/**
 * Why a SCEP request could not be read, in the failInfo terms of RFC 8894 §3.2.1.4, together with
 * whatever of the request was readable before the failure: a server answers a request it cannot
 * process with a signed CertRep FAILURE that echoes the transactionID and senderNonce (RFC 8894 §3.3.2),
 * and encrypts nothing, so those two and the signer certificate are all it needs.
 */
import { X509Error, type X509ErrorCode } from '../errors';

/** The failInfo values a reader of request bytes can decide on its own (RFC 8894 §3.2.1.4). */
export type ScepMessageFailInfo = 'badAlg' | 'badMessageCheck' | 'badRequest';

/** What was read of a request before it failed. */
export interface ScepMessageContext {
  transactionId?: string;
  senderNonce?: Buffer;
  signerCertificate?: Buffer;
}

const CODE_OF: Record<ScepMessageFailInfo, X509ErrorCode> = {
  badAlg: 'unsupported',
  badMessageCheck: 'signature',
  badRequest: 'parse',
};

export class ScepMessageError extends X509Error {
  readonly failInfo: ScepMessageFailInfo;
  readonly transactionId?: string;
  readonly senderNonce?: Buffer;
  readonly signerCertificate?: Buffer;

  constructor(failInfo: ScepMessageFailInfo, message: string, context: ScepMessageContext = {}) {
    super(CODE_OF[failInfo], message);
    this.name = 'ScepMessageError';
    this.failInfo = failInfo;
    if (context.transactionId !== undefined) this.transactionId = context.transactionId;
    if (context.senderNonce !== undefined) this.senderNonce = context.senderNonce;
    if (context.signerCertificate !== undefined) this.signerCertificate = context.signerCertificate;
  }
}

/**
 * Run `read`, turning any X509Error it throws into a ScepMessageError that carries the context as it
 * stands at the time of the failure (`read` may fill it in as it goes): an X509Error of a lower layer
 * gets `failInfo`, a ScepMessageError keeps its own. Other errors pass unchanged.
 */
export function withScepContext<T>(failInfo: ScepMessageFailInfo, context: ScepMessageContext, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof ScepMessageError) throw new ScepMessageError(e.failInfo, e.message, { ...context });
    if (e instanceof X509Error) throw new ScepMessageError(failInfo, e.message, { ...context });
    throw e;
  }
}
