/** The AcmeProblem that `fn` throws (anything else it throws is rethrown; throwing nothing fails). */
import { AcmeProblem } from '../../lib/acme/problems';

export function problemOf(fn: () => unknown): AcmeProblem {
  try {
    fn();
  } catch (e) {
    if (e instanceof AcmeProblem) return e;
    throw e;
  }
  throw new Error('expected an AcmeProblem');
}
