/**
 * The process's environment: read here and nowhere else in the library or its adapters
 * (test/architecture/environment.test.ts). Every entry that takes an `env` option (the routers, the
 * webhook delivery, `ca-admin`'s io) reads that one instead, and each variable means what lib/settings
 * says it means — so that a host that passes its settings explicitly, or an environment of its own,
 * gets exactly those, and one environment means the same to every way in.
 */
import type { Env } from './switch';

/** `given`, else the process's environment (the default of every `env` option). */
export function environment(given?: Env): Env {
  return given ?? process.env;
}
