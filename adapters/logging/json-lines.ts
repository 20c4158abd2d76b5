/**
 * The default `Logger` (lib/ports/logger.ts): one JSON object per line — `time`, `level`, `msg`, then
 * the fields — with every secret removed first (redact.ts). JSON lines rather than pino: the shape is
 * what log shippers read either way, pino's redaction needs the secret's path known in advance (ours
 * goes by field name at any depth), and a host that runs pino already plugs its own logger into the
 * port (docs/operations/logs.md) — so the library takes no dependency for it.
 */
import type { LogFields, Logger } from '../../lib/ports';
import { isSecretName, redact } from './redact';

export type LogLevel = 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { info: 30, warn: 40, error: 50 };

export interface JsonLinesLoggerOptions {
  /** Where lines go. Default `process.stdout`. */
  stream?: { write(line: string): unknown };
  /** The least level written. Default `info`. */
  level?: LogLevel;
  /** Fields of every line (`{ service: 'ca' }`). */
  base?: LogFields;
  /** The clock (tests). */
  now?: () => Date;
}

function fieldsOf(fields: LogFields | undefined): LogFields {
  const out: LogFields = {};
  for (const [name, value] of Object.entries(fields ?? {})) out[name] = isSecretName(name) ? '[redacted]' : redact(value);
  return out;
}

export function jsonLinesLogger(options: JsonLinesLoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stdout;
  const least = RANK[options.level ?? 'info'];
  if (least === undefined) throw new TypeError(`jsonLinesLogger: level must be info, warn or error, not ${String(options.level)}`);
  const now = options.now ?? (() => new Date());
  const make = (base: LogFields): Logger => {
    const write = (level: LogLevel, message: string, fields?: LogFields): void => {
      if (RANK[level] < least) return;
      const line = { time: now().toISOString(), level, msg: redact(message), ...base, ...fieldsOf(fields) };
      try {
        stream.write(JSON.stringify(line) + '\n');
      } catch {
        // A log line that cannot be written must not fail the request that wrote it.
      }
    };
    return {
      info: (m, f) => write('info', m, f),
      warn: (m, f) => write('warn', m, f),
      error: (m, f) => write('error', m, f),
      child: (bindings) => make({ ...base, ...fieldsOf(bindings) }),
    };
  };
  return make(fieldsOf(options.base));
}
