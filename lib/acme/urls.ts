/**
 * The absolute URLs the ACME server hands out (RFC 8555 §7.1), in the original's layout under
 * `{urlPath}acme/` (docs/guides/acme.md). They are built from each request as Express resolves it — scheme
 * and host through the host app's `trust proxy` setting (`X-Forwarded-Proto`, `X-Forwarded-Host`) —
 * so that a server behind a TLS-terminating proxy hands out the `https://` URLs its clients use, and
 * the JWS `url` check (RFC 8555 §6.4) compares like with like.
 */
import type { Request } from 'express';

export class AcmeUrls {
  /** `https://ca.example.com/django_ca/acme/` */
  readonly root: string;
  /** `{root}{CA serial}/` */
  readonly ca: string;

  constructor(
    req: Request,
    /** The module's prefix relative to where the router is mounted (`/django_ca/acme/`). */
    readonly prefix: string,
    caSerial: string,
  ) {
    this.root = `${origin(req)}${req.baseUrl}${prefix}`;
    this.ca = `${this.root}${caSerial}/`;
  }

  directory(caSerial: string): string {
    return `${this.root}directory/${caSerial}/`;
  }
  get newNonce(): string {
    return `${this.ca}new-nonce/`;
  }
  get newAccount(): string {
    return `${this.ca}new-account/`;
  }
  get newOrder(): string {
    return `${this.ca}new-order/`;
  }
  get revokeCert(): string {
    return `${this.ca}revoke/`;
  }
  get keyChange(): string {
    return `${this.ca}key-change/`;
  }
  get renewalInfo(): string {
    return `${this.ca}renewal-info`;
  }
  account(slug: string): string {
    return `${this.ca}acct/${slug}/`;
  }
  accountOrders(slug: string): string {
    return `${this.ca}acct/${slug}/orders/`;
  }
  order(slug: string): string {
    return `${this.ca}order/${slug}/`;
  }
  finalize(slug: string): string {
    return `${this.ca}order/${slug}/finalize/`;
  }
  authorization(slug: string): string {
    return `${this.ca}authz/${slug}/`;
  }
  challenge(slug: string): string {
    return `${this.ca}chall/${slug}/`;
  }
  certificate(slug: string): string {
    return `${this.ca}cert/${slug}/`;
  }
}

/** `https://host[:port]` as the client addressed it (through the host app's `trust proxy`). */
export function origin(req: Request): string {
  return `${req.protocol}://${req.host}`;
}

/** The URL of this very request, as the JWS `url` header must name it (RFC 8555 §6.4). */
export function requestUrl(req: Request): string {
  return `${origin(req)}${req.originalUrl}`;
}
