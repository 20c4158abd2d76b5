/**
 * V8's own predicates about hidden classes ("maps"), for tests of code written to keep them shared
 * (lib/http/property-bag.ts, the record builders of lib/ca and the knex store).
 */
import * as v8 from 'v8';

v8.setFlagsFromString('--allow-natives-syntax');

/** Whether `o` keeps its properties in a hidden class (true) or in a dictionary of its own (false). */
export const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

/** Whether `a` and `b` have the same hidden class. */
export const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
