/**
 * lib/x509/asn1.ts names forge's tag classes and universal tags itself, so that the published
 * declarations need no @types/node-forge (CHANGELOG "Fixed (packaging)"): they must stay the numbers
 * forge's codec reads and writes.
 */
import * as forge from 'node-forge';
import { Class, Type } from '../../lib/x509/asn1';

test("the tag classes and universal tags of lib/x509/asn1 are forge's", () => {
  expect({ ...Class }).toEqual({ ...forge.asn1.Class });
  expect({ ...Type }).toEqual({ ...forge.asn1.Type });
});
