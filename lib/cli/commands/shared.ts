/** Helpers shared by the command modules. */
import { CaError } from '../../ca/errors';
import type { CommandContext } from '../context';

/** Wraps a command implementation so that it receives the invocation's context first. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- commander passes untyped positional values
export type Action = <A extends any[]>(fn: (ctx: CommandContext, ...args: A) => Promise<void>) => (...args: A) => Promise<void>;

export function intOption(text: string, name: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new CaError('invalid', `${name}: ${text} is not an integer.`);
  return Number(text);
}

/** `acmeEnableAccountRegistration` → `--acme-enable-account-registration` (commander's attribute name back to the flag). */
export function flagName(attribute: string): string {
  return `--${attribute.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * A pair of opposite flags (`--api-enable`/`--api-disable`): true, false, or undefined when neither
 * is given. Both at once is an error, as in the original's mutually exclusive groups.
 */
export function flagPair(o: Readonly<Record<string, unknown>>, yes: string, no: string): boolean | undefined {
  if (o[yes] && o[no]) throw new CaError('invalid', `${flagName(yes)} and ${flagName(no)} are mutually exclusive.`);
  return o[yes] ? true : o[no] ? false : undefined;
}
