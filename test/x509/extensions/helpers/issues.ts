import { X509Error, type ValidationIssue } from '../../../../lib/x509/errors';

/** The validation issues `fn` throws; fails the test when it throws nothing or something else. */
export function issuesOf(fn: () => unknown): ValidationIssue[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof X509Error && e.code === 'validation') return e.issues;
    throw e;
  }
  throw new Error('expected a validation error');
}
