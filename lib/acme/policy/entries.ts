/**
 * A CA's ACME policy entries as an operator sets them (docs/guides/acme.md; `AcmeCaPolicy`,
 * `edit_ca --acme-allow/--acme-deny`): the shared name policy's entries (lib/ca/name-policy/entries.ts),
 * which enrolment endpoints' `names` use too. ca-admin and the admin interface read them here.
 */
export { policyNames } from '../../ca/name-policy/entries';
