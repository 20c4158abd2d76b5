/**
 * Where the example server's log lines go (docs/operations/logs.md). The console is for people: what the
 * server prints about itself, and the router's warnings and errors. The access log — one JSON line
 * per request, at `info` — would bury that, so it goes to `access.log` in the data directory (private
 * to this user, appended to) unless `CA_ACCESS_LOG` says otherwise: `stdout` (the console, e.g. when
 * a container runtime collects it), `off` (none).
 */
import * as fs from 'fs';
import * as path from 'path';
import { jsonLinesLogger, type Logger } from '../../lib';

export type AccessLogSetting = { kind: 'off' } | { kind: 'stdout' } | { kind: 'file'; file: string };

/** CA_ACCESS_LOG: `off`, `stdout`, or unset / anything else: `access.log` in `dataDir`. */
export function accessLogSetting(raw: string | undefined, dataDir: string): AccessLogSetting {
  const value = raw?.trim().toLowerCase();
  if (value === 'off') return { kind: 'off' };
  if (value === 'stdout') return { kind: 'stdout' };
  return { kind: 'file', file: path.join(dataDir, 'access.log') };
}

/** The line the server prints about it at start. */
export function accessLogLine(setting: AccessLogSetting): string {
  if (setting.kind === 'off') return 'Access log: off (CA_ACCESS_LOG=off).';
  if (setting.kind === 'stdout') return 'Access log: JSON lines on standard output (CA_ACCESS_LOG=stdout).';
  return `Access log: JSON lines in ${setting.file} (CA_ACCESS_LOG=stdout: on the console; off: none).`;
}

/** `info` lines to one logger, `warn` and `error` to another. */
function split(info: Logger, rest: Logger): Logger {
  return {
    info: (message, fields) => info.info(message, fields),
    warn: (message, fields) => rest.warn(message, fields),
    error: (message, fields) => rest.error(message, fields),
    child: (bindings) => split(info.child(bindings), rest.child(bindings)),
  };
}

/** The router's logger: warnings and errors on the console (`log`), the access log where `setting` says; `close` ends its file. */
export function hostLogger(setting: AccessLogSetting, log: (line: string) => void): { logger: Logger; close(): Promise<void> } {
  const console = jsonLinesLogger({ stream: { write: (line: string) => log(line.trimEnd()) } });
  if (setting.kind !== 'file') return { logger: console, close: async () => undefined };
  const stream = fs.createWriteStream(setting.file, { flags: 'a', mode: 0o600 });
  stream.on('error', () => undefined); // a log file that cannot be written must not stop the server
  return {
    logger: split(jsonLinesLogger({ stream }), console),
    close: () => new Promise<void>((resolve) => stream.end(() => resolve())),
  };
}
