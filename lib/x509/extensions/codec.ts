/**
 * The contract every extension codec implements (one file per extension type, registered in
 * `extensions/index.ts` by OID and by type key).
 *
 * Three directions:
 *   decode: extnValue DER (the contents of the extension's OCTET STRING) → API value (docs/COMPATIBILITY.md §2)
 *   encode: API value (already normalised by `parse`) → extnValue DER
 *   parse:  untrusted API input → normalised API value (aliases resolved, IDNA applied, defaults
 *           filled), throwing X509Error('validation') whose issue `loc`s are relative to the value.
 *   checkModel (optional): the rules the reference checks on the whole extension model once its
 *           value is valid (which access methods an AIA may hold); their issues are located at the
 *           extension, not at its value. `parseExtension` runs both; `parse` alone does not check them.
 * For every certificate extension `encode(decode(der))` must give back `der` byte for byte, and for
 * every valid value `decode(encode(parse(v)))` must equal `parse(v)`.
 */
import type { ExtensionType } from '../types';

export interface ExtensionCodec<V = unknown> {
  readonly type: Exclude<ExtensionType, 'unknown'>;
  readonly oid: string;
  /** Default for `critical` when input omits it; null when input must give it (ms_certificate_template). */
  readonly defaultCritical: boolean | null;
  /** The only allowed `critical` value, or null when both are allowed. */
  readonly requiredCritical: boolean | null;
  /** May appear in sign requests and profiles (the 14 configurable types). */
  readonly configurable: boolean;
  decode(der: Buffer): V;
  encode(value: V): Buffer;
  parse(input: unknown): V;
  checkModel?(value: V): void;
}
