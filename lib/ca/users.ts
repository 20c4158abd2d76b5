/**
 * API users (docs/COMPATIBILITY.md §1.3, §4.4): the equivalent of django-ca's
 * `create_api_user(username, password, view_certificateauthority=True, ...)`.
 */
import * as bcrypt from 'bcryptjs';
import type { Permission, Store, UserRecord } from '../ports';
import { CaError } from './errors';

export interface ApiUserPermissions {
  viewCertificateAuthority?: boolean;
  changeCertificateAuthority?: boolean;
  signCertificate?: boolean;
  viewCertificate?: boolean;
  revokeCertificate?: boolean;
}

export interface CreateApiUserOptions {
  /** bcrypt cost factor; 10 by default (tests lower it to stay fast). */
  bcryptCost?: number;
}

const FLAG_TO_PERMISSION: readonly [keyof ApiUserPermissions, Permission][] = [
  ['viewCertificateAuthority', 'view_certificateauthority'],
  ['changeCertificateAuthority', 'change_certificateauthority'],
  ['signCertificate', 'sign_certificate'],
  ['viewCertificate', 'view_certificate'],
  ['revokeCertificate', 'revoke_certificate'],
];

export const DEFAULT_BCRYPT_COST = 10;

/**
 * Create a user with a bcrypt password hash and the permissions whose flag is not `false` (all five
 * by default, as upstream). One store call, so the user and its grants appear together or not at all.
 */
export async function createApiUser(
  store: Store,
  username: string,
  password: string,
  permissions: ApiUserPermissions = {},
  options: CreateApiUserOptions = {},
): Promise<UserRecord> {
  if (!username) throw new CaError('invalid', 'The username must not be empty.');
  if (!password) throw new CaError('invalid', 'The password must not be empty.');
  if (await store.findUser(username)) throw new CaError('conflict', `${username}: User already exists.`);
  const granted = FLAG_TO_PERMISSION.filter(([flag]) => permissions[flag] !== false).map(([, p]) => p);
  const hash = await bcrypt.hash(password, options.bcryptCost ?? DEFAULT_BCRYPT_COST);
  return store.createUser(username, hash, granted);
}
