/**
 * The PKCS#11 key backend's settings (docs/operations/hsm.md), with the names of the original's HSM
 * backend options: `CA_HSM_LIBRARY_PATH` (library_path), `CA_HSM_TOKEN` (token), `CA_HSM_USER_PIN`
 * (user_pin) and `CA_HSM_ALIAS`. One reading for `ca-admin` and the example server.
 */
import type { Env } from './switch';

export interface HsmSettings {
  /** `CA_HSM_LIBRARY_PATH`: the PKCS#11 library; null: no HSM is configured. */
  library: string | null;
  /** `CA_HSM_TOKEN`: the token label; null when unset or empty. */
  token: string | null;
  /** `CA_HSM_USER_PIN`; null when unset (an empty PIN is a PIN). Never logged. */
  pin: string | null;
  /** `CA_HSM_ALIAS`: the backend's alias; null when unset or empty (the backend's default, `hsm`). */
  alias: string | null;
}

export function hsmSettings(env: Env): HsmSettings {
  return {
    library: env.CA_HSM_LIBRARY_PATH || null,
    token: env.CA_HSM_TOKEN || null,
    pin: env.CA_HSM_USER_PIN ?? null,
    alias: env.CA_HSM_ALIAS || null,
  };
}
