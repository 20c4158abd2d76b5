/**
 * The enrolment protocols' settings besides their switches (docs/guides/est.md, docs/guides/scep.md):
 * `CA_EST_CLIENT_CERT_HEADER`, the header a trusted TLS-terminating proxy forwards the client
 * certificate in (checked with the option of the same meaning, lib/est/options.ts), and
 * `CA_SCEP_CHALLENGE`, the static challenge password of SCEP requests without a label.
 */
import type { Env } from './switch';

/** `CA_EST_CLIENT_CERT_HEADER` as given; undefined when unset (the EST options check the name). */
export function estClientCertHeaderSetting(env: Env): string | undefined {
  return env.CA_EST_CLIENT_CERT_HEADER;
}

/** `CA_SCEP_CHALLENGE`; null when unset or empty (one-time challenges only). A secret: never logged. */
export function scepChallengeSetting(env: Env): string | null {
  return env.CA_SCEP_CHALLENGE || null;
}
