/**
 * The shape of a SCEP endpoint and of its handler. The route table (`routes.ts`) is data of these
 * types; the handlers import only this file, so that the table and the handlers form no import circle.
 */
import type { Request, Response } from 'express';
import type { CrlPublisher } from '../ca/crls';
import type { ScepRas } from './ra';
import type { CaCache } from '../cache/ca-cache';
import type { ChallengeWebhookPorts } from '../enrolment/challenge-webhook';
import type { EnrolmentServices } from '../enrolment/enrol';
import type { EndpointServices } from '../enrolment/endpoint';
import type { PathRoute } from '../http/path-matcher';

/** What the handlers work with, built once per mount (lib/scep/mount.ts). */
export interface ScepServices extends EnrolmentServices, EndpointServices {
  cas: CaCache;
  /** What GetCRL answers with (lib/ca/crls.ts). */
  crls: CrlPublisher;
  /** Each CA's registration authority: decrypts requests, signs answers (lib/scep/ra.ts). */
  ras: ScepRas;
  /** Single DES, triple DES and SHA-1 accepted (`scep.legacyAlgorithms`). */
  legacyAlgorithms: boolean;
  bodyLimit: number;
  /** The challenge webhooks' sender and log (lib/enrolment/challenge-webhook.ts). */
  challengeWebhooks: ChallengeWebhookPorts;
}

/** The SCEP operations (RFC 8894 §4): the `operation` query parameter. */
export type ScepOperation = 'GetCACaps' | 'GetCACert' | 'PKIOperation';

export interface ScepRequest {
  req: Request;
  res: Response;
  /** `label` where the URL has one. */
  params: Record<string, string>;
  /** `message` as the raw query string carries it, not yet decoded (transport.ts); null when absent. */
  message: string | null;
  services: ScepServices;
}

export type ScepHandler = (request: ScepRequest) => Promise<void>;

export interface ScepRoute extends PathRoute {
  method: 'GET' | 'POST';
  /** Relative to `{urlPath}scep`, with an optional `{label}` placeholder. */
  path: string;
  operation: ScepOperation;
  handler: ScepHandler;
}
