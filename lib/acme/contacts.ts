/**
 * Account contacts (RFC 8555 §7.3): `mailto:` URLs only, one address each, no header fields
 * (`?`, RFC 6068), checked as the original checks them — `unsupportedContact` for another scheme,
 * `invalidContact` for an address that is not one.
 */
import { invalidContact, malformed, quoted, unsupportedContact } from './problems';

const MAX_CONTACTS = 10;
const DOMAIN = /^(?=.{1,253}$)(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))+$/;
const LOCAL = /^[A-Za-z0-9.!#$%&'*+/=^_`{|}~-]{1,64}$/;

export function parseContacts(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((c) => typeof c !== 'string')) throw malformed('"contact" must be an array of strings.');
  if (value.length > MAX_CONTACTS) throw invalidContact(`At most ${MAX_CONTACTS} contacts.`);
  return (value as string[]).map((contact) => {
    if (!contact.startsWith('mailto:')) throw unsupportedContact(`${quoted(contact)}: Unsupported address scheme.`);
    const address = contact.slice('mailto:'.length);
    if (address.includes('?')) throw invalidContact(`${quoted(address)}: hfields are not allowed.`);
    if (address.includes(',')) throw invalidContact(`${quoted(address)}: More than one addr-spec is not allowed.`);
    const at = address.lastIndexOf('@');
    const local = address.slice(0, at);
    const domain = address.slice(at + 1);
    if (at < 1 || !LOCAL.test(local) || !DOMAIN.test(domain)) throw invalidContact(`${quoted(address)}: Not a valid email address.`);
    return contact;
  });
}
