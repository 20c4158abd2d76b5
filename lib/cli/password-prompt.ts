/**
 * Asking for a password: hidden input on a terminal, or the first line of piped standard input (so
 * that scripts need not put the password on the command line, where `ps` shows it).
 */
import { CaError } from '../ca/errors';
import { readAll, type CliInput, type CliStream } from './io';

interface RawTty extends CliInput {
  setRawMode?(mode: boolean): unknown;
  on?(event: 'data', cb: (chunk: Buffer | string) => void): unknown;
  removeListener?(event: 'data', cb: (chunk: Buffer | string) => void): unknown;
  resume?(): unknown;
  pause?(): unknown;
}

function readHidden(tty: RawTty, prompt: string, out: CliStream): Promise<string> {
  return new Promise((resolve, reject) => {
    out.write(prompt);
    let value = '';
    tty.setRawMode!(true);
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return finish(() => resolve(value));
        if (ch === '\u0003') return finish(() => reject(new CaError('invalid', 'Aborted.')));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    const finish = (done: () => void) => {
      tty.removeListener!('data', onData);
      tty.setRawMode!(false);
      tty.pause?.();
      out.write('\n');
      done();
    };
    tty.on!('data', onData);
    tty.resume?.();
  });
}

export interface PromptOptions {
  /** The command's option that takes the password as a value, named in the errors; null: it has none. */
  option?: string | null;
}

export async function promptPassword(stdin: CliInput | undefined, prompts: CliStream, options: PromptOptions = {}): Promise<string> {
  const option = options.option === undefined ? '--password' : options.option;
  const elsewhere = 'type it on a terminal or pipe it on standard input';
  if (!stdin) throw new CaError('invalid', option ? `No password given: use ${option}.` : `No password given: ${elsewhere}.`);
  const tty = stdin as RawTty;
  if (stdin.isTTY && tty.setRawMode && tty.on && tty.removeListener) {
    const first = await readHidden(tty, 'Password: ', prompts);
    const second = await readHidden(tty, 'Password (again): ', prompts);
    if (first !== second) throw new CaError('invalid', 'The passwords do not match.');
    if (!first) throw new CaError('invalid', 'The password must not be empty.');
    return first;
  }
  const line = (await readAll(stdin)).toString('utf8').split(/\r?\n/)[0];
  if (!line) {
    throw new CaError(
      'invalid',
      option ? `No password given: use ${option}, a terminal, or pipe it on standard input.` : `No password given: ${elsewhere}.`,
    );
  }
  return line;
}
