/**
 * The shape of an ACME endpoint and of its handler. The route table (`routes.ts`) is data of these
 * types; handlers import only this file and the services, so that table and handlers form no circle.
 *
 * A handler gets the request already checked by the module (lib/acme/mount.ts): the CA usable for
 * ACME, and for POSTs the JWS verified, its nonce consumed, its `url` matched and its signer resolved
 * as the route's `signer` asks. It returns its answer as data; the module writes it with the headers
 * every ACME answer carries (`Replay-Nonce`, `Link: rel="index"`).
 */
import type { Request } from 'express';
import type { PathRoute } from '../http/path-matcher';
import type { AcmeAccountRecord, CaRecord } from '../ports';
import type { ParsedJws } from './jws';
import type { AcmeServices } from './services';
import type { AcmeUrls } from './urls';

export interface AcmeAnswer {
  status: number;
  /** JSON (objects), or text/bytes with `contentType` (the certificate chain). Absent: no body. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /** `Link` values beside `<directory>;rel="index"` (RFC 8555 §7.1: `up`, `alternate`, `next`). */
  links?: string[];
}

export interface AcmeCall {
  req: Request;
  params: Record<string, string>;
  ca: CaRecord;
  urls: AcmeUrls;
  services: AcmeServices;
  /** POST only: the verified JWS. */
  jws: ParsedJws | null;
  /** POST signed with `kid`: the account, valid. */
  account: AcmeAccountRecord | null;
  now: Date;
}

export type AcmeHandler = (call: AcmeCall) => Promise<AcmeAnswer>;

/**
 * Who may sign a POST (RFC 8555 §6.2): `jwk` (newAccount; the account does not exist yet), `kid` (an
 * account's request), `either` (revokeCert: the account, or the certificate's own key), `key-change`
 * (kid outside, jwk inside: §7.3.5).
 */
export type AcmeSigner = 'jwk' | 'kid' | 'either';

export interface AcmeRoute extends PathRoute {
  method: 'GET' | 'HEAD' | 'POST';
  /** Relative to `/{urlPath}acme/`, with `{serial}` and `{slug}` placeholders (path-params.ts). */
  path: string;
  /** POST: who signs it. */
  signer?: AcmeSigner;
  /** POST-as-GET (RFC 8555 §6.3): the payload must be empty. */
  postAsGet?: boolean;
  /**
   * A POST-as-GET here only reads (a payload may change something). For a read — and on every
   * `postAsGet` route — the nonce is used alongside the handler's own reads instead of before them
   * (one round trip to the database fewer); the answer waits for both, and a bad nonce still wins.
   */
  readsOnPostAsGet?: boolean;
  /**
   * Served to an account that has not agreed to the CA's terms of service: its own account resources,
   * where it can agree (the original checks the terms everywhere else).
   */
  beforeTerms?: boolean;
  /** A GET answered without a CA check of its own (the directory resolves the CA itself). */
  handler: AcmeHandler;
}
