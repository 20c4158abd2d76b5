/** Assert that `fn` throws an X509Error with `code` (and a message matching `message`); returns it. */
import { X509Error } from '../../lib/x509/errors';

export function expectX509Error(fn: () => unknown, code: string, message?: RegExp): X509Error {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(X509Error);
  expect((thrown as X509Error).code).toBe(code);
  if (message) expect((thrown as X509Error).message).toMatch(message);
  return thrown as X509Error;
}
