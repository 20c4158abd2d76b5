/** Order slugs: 12 characters from [a-zA-Z0-9], as django-ca generates them. */
import { randomInt } from 'crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const SLUG_LENGTH = 12;

export function randomSlug(): string {
  let slug = '';
  for (let i = 0; i < SLUG_LENGTH; i++) slug += ALPHABET[randomInt(ALPHABET.length)];
  return slug;
}
