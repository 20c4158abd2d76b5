/**
 * The shape of an EST endpoint and of its handler. The route table (`routes.ts`) is data of these
 * types; the handlers import only this file, so that the table and the handlers form no import circle.
 */
import type { Request, Response } from 'express';
import type { Profiles } from '../ca/profiles';
import type { Signing } from '../ca/issuance/sign';
import type { EndpointRateLimits } from '../enrolment/rate-limit';
import type { CaCache } from '../cache/ca-cache';
import type { RequestAuthenticator } from '../http/basic-auth';
import type { ChallengeWebhookPorts } from '../enrolment/challenge-webhook';
import type { EnrolmentServices } from '../enrolment/enrol';
import type { EnrolmentEndpoint } from '../enrolment/endpoint-options';
import type { PathRoute } from '../http/path-matcher';
import type { PermissionChecker, Store } from '../ports';

/** What the handlers work with, built once per mount (lib/est/mount.ts). */
export interface EstServices extends EnrolmentServices {
  store: Store;
  cas: CaCache;
  /** The endpoints' budgets of enrolment requests (`requestsPerMinute`, lib/enrolment/rate-limit.ts). */
  rateLimits?: EndpointRateLimits;
  /** By label; '' for the URLs without one. */
  endpoints: ReadonlyMap<string, EnrolmentEndpoint>;
  authenticate: RequestAuthenticator;
  permissions: PermissionChecker;
  signing: Signing & { profiles: Profiles };
  /** The router's default profile (`CA_DEFAULT_PROFILE`). */
  defaultProfile: string;
  /** `CA_DEFAULT_CA`, the preferred default CA; undefined: the usable CA that expires last. */
  defaultCa: string | undefined;
  bodyLimit: number;
  /** The challenge webhooks' sender and log (lib/enrolment/challenge-webhook.ts). */
  challengeWebhooks: ChallengeWebhookPorts;
  /** The endpoints ('' or a label) that offer `serverkeygen` (docs/guides/est.md). */
  serverKeygen: ReadonlySet<string>;
  /** The `Retry-After` of a request left waiting for approval (`est.retryAfterSeconds`). */
  retryAfterSeconds: number;

  /** The header a trusted proxy forwards client certificates in (`est.clientCertificateHeader`), or null. */
  clientCertificateHeader: string | null;
}

export interface EstRequest {
  req: Request;
  res: Response;
  /** `label` where the URL has one. */
  params: Record<string, string>;
  services: EstServices;
}

export type EstHandler = (request: EstRequest) => Promise<void>;

export interface EstRoute extends PathRoute {
  method: 'GET' | 'POST';
  /** Relative to `/.well-known/est`, with an optional `{label}` placeholder. */
  path: string;
  handler: EstHandler;
}
