/**
 * Subject rules of the CLI path (docs/COMPATIBILITY.md §3.5): merge with the profile's default
 * subject in CA_DEFAULT_NAME_ORDER, copy the first DNS/IP SAN into the CN when there is none, and
 * require a CN or a SAN.
 */
import type { Extension, GeneralName, Name } from '../x509/types';
import { CaError } from '../ca/errors';

const CN = '2.5.4.3';

/** CA_DEFAULT_NAME_ORDER: dnQualifier, C, postalCode, ST, L, DC, O, OU, title, CN, uid, emailAddress, serialNumber. */
export const DEFAULT_NAME_ORDER: readonly string[] = [
  '2.5.4.46',
  '2.5.4.6',
  '2.5.4.17',
  '2.5.4.8',
  '2.5.4.7',
  '0.9.2342.19200300.100.1.25',
  '2.5.4.10',
  '2.5.4.11',
  '2.5.4.12',
  CN,
  '0.9.2342.19200300.100.1.1',
  '1.2.840.113549.1.9.1',
  '2.5.4.5',
];

/** For each OID in the order: the caller's attributes if any, else the profile's. */
export function mergeSubjects(caller: Name, profileSubject: Name, order: readonly string[] = DEFAULT_NAME_ORDER): Name {
  for (const attr of [...caller, ...profileSubject]) {
    if (!order.includes(attr.oid)) throw new CaError('invalid', `${attr.oid}: Unsortable name (attribute not in the name order).`);
  }
  const out: Name = [];
  for (const oid of order) {
    const mine = caller.filter((a) => a.oid === oid);
    out.push(...(mine.length ? mine : profileSubject.filter((a) => a.oid === oid)));
  }
  return out;
}

function sanValues(sans: Extension | undefined): GeneralName[] {
  return sans ? (sans.value as GeneralName[]) : [];
}

/**
 * The subject a CLI-signed certificate gets. `extensions` are the final configurable extensions
 * (to find the SAN).
 */
export function cliSubject(caller: Name, profileSubject: Name | null, extensions: readonly Extension[]): Name {
  let subject = profileSubject ? mergeSubjects(caller, profileSubject) : [...caller];
  const san = extensions.find((e) => e.type === 'subject_alternative_name');
  if (!subject.some((a) => a.oid === CN)) {
    const first = sanValues(san).find((g) => g.type === 'DNS' || g.type === 'IP');
    if (first) {
      const withCn = [...subject, { oid: CN, value: first.value as string }];
      subject = withCn.every((a) => DEFAULT_NAME_ORDER.includes(a.oid)) ? mergeSubjects(withCn, []) : withCn;
    }
  }
  if (!subject.some((a) => a.oid === CN) && sanValues(san).length === 0) {
    throw new CaError('invalid', 'Must name at least a CN or a subjectAlternativeName.');
  }
  return subject;
}
