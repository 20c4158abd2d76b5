/** Order slugs: 12 characters from [a-zA-Z0-9], as django-ca generates them. */
import { randomInt } from 'crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const SLUG_LENGTH = 12;

/** 62^12 slugs make a collision vanishingly rare; a few retries make it impossible in practice. */
export const SLUG_ATTEMPTS = 5;

export function randomSlug(): string {
  let slug = '';
  for (let i = 0; i < SLUG_LENGTH; i++) slug += ALPHABET[randomInt(ALPHABET.length)];
  return slug;
}
