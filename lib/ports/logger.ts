/**
 * Logging (docs/operations/logs.md): structured lines — a message and fields — not formatted
 * text, so that a log pipeline can filter by field. Adapters decide where lines go and must never
 * write a secret: the default (adapters/logging/json-lines.ts) removes credentials, keys and PINs by
 * field name and private-key PEM blocks by content before anything is written.
 */

export type LogFields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `bindings` to every line (a module's name, say). */
  child(bindings: LogFields): Logger;
}

/** A logger that writes nothing. */
export const SILENT_LOGGER: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => SILENT_LOGGER,
};
