/** What a door answered to one request, in terms every door shares (parity.test.ts compares them). */
import type { IssuanceRequest } from '../requests';
import type { World } from '../world';

export type Outcome =
  /** A certificate was handed out (PEM, the leaf alone). */
  | { result: 'issued'; pem: string; how: string }
  /**
   * Refused in the door's own form (REST 400/422 JSON or an order ended failed, an ACME problem
   * document, EST 400 text, a SCEP FAILURE, the admin form again with a 400, ca-admin's non-zero exit
   * with one line): `text` is what the requester reads (null where the form has none), `how` says
   * which form (e.g. `422`, `order failed`, `badPublicKey at finalize`, `failInfo 2`).
   */
  | { result: 'refused'; how: string; text: string | null; acmeType?: string }
  /** Anything else: a 500, a malformed answer, a SCEP FAILURE with an unexpected failInfo... */
  | { result: 'unexpected'; how: string };

/**
 * A door's answer, and how many certificates the door stored itself to set the request up (the
 * certificate a resign starts from, the one a SCEP renewal is signed with): not part of the answer.
 */
export type Answer = Outcome & { prepared?: number };

export type Door = (world: World, req: IssuanceRequest) => Promise<Answer>;
