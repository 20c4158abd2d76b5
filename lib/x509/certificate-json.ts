/**
 * A certificate's JSON (lib/x509/types `CertificateJson`) as text, in the key order of
 * docs/COMPATIBILITY.md §2 and with bigints as exact integers: what the REST API shows as a record's
 * `certificate` member, and what a store keeps from issue/import time (`CertificateRecord.certificateText`,
 * docs/DESIGN.md "Inventory"). Pure, so that the store adapter and the API's serialisation
 * (lib/api/serialize.ts) write the same bytes from one place.
 */
import { randomBytes } from 'crypto';
import type { CertificateJson, Extension } from './types';

/** docs/COMPATIBILITY.md §2 envelope order: type, critical, value. */
export function extensionToJson(ext: Extension | null): Extension | null {
  return ext ? { type: ext.type, critical: ext.critical, value: ext.value } : null;
}

/** docs/COMPATIBILITY.md §2 key order. */
export function certificateJson(c: CertificateJson): CertificateJson {
  return {
    serial: c.serial,
    version: c.version,
    not_valid_before: c.not_valid_before,
    not_valid_after: c.not_valid_after,
    issuer: c.issuer,
    subject: c.subject,
    signature_hash_algorithm: c.signature_hash_algorithm,
    signature_algorithm_oid: c.signature_algorithm_oid,
    public_key_algorithm_oid: c.public_key_algorithm_oid,
    signature_algorithm_parameters: c.signature_algorithm_parameters,
    extensions: c.extensions.map((e) => extensionToJson(e) as Extension),
    pem: c.pem,
  };
}

/**
 * JSON text with bigints as exact integers (they occur in a few extension values). Plain
 * `JSON.stringify` first: it throws a TypeError only when it meets a bigint.
 */
export function exactJsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  const marks: string[] = [];
  // A random tag per call, so that no string in the data can pose as a placeholder.
  const tag = randomBytes(9).toString('base64url');
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${tag}:${marks.push(v.toString()) - 1}` : v));
  return text.replace(new RegExp(`"${tag}:(\\d+)"`, 'g'), (_m, i: string) => marks[Number(i)]);
}

/**
 * The API text of a certificate's `certificate` member: what a store keeps from issue/import time
 * (`CertificateRecord.certificateText`, docs/DESIGN.md "Inventory").
 */
export function certificateText(c: CertificateJson): string {
  return exactJsonText(certificateJson(c));
}
