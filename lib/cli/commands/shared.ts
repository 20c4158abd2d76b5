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
