/**
 * On/off settings (`CA_ENABLE_REST_API`, `CA_ENABLE_ACME`, `CA_METRICS`, `CA_WEBHOOKS`): the words the
 * original's boolean settings accept from the environment. Anything else is a mistake, never "off".
 */
import { SettingsError, shown } from './errors';

export type Env = Readonly<Record<string, string | undefined>>;

const ON = ['1', 'true', 'yes', 'on'];
const OFF = ['', '0', 'false', 'no', 'off'];

/** The switch `name` of `env`; unset → `fallback`. */
export function switchSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  return raw === undefined ? fallback : parseSwitch(name, raw);
}

/** `raw` as the value of switch `name`: true/false, 1/0, yes/no, on/off (any case; empty is off). */
export function parseSwitch(name: string, raw: string): boolean {
  const word = raw.trim().toLowerCase();
  if (ON.includes(word)) return true;
  if (OFF.includes(word)) return false;
  throw new SettingsError(name, `must be true/false, 1/0, yes/no or on/off (got ${shown(raw)})`);
}
