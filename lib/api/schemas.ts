/**
 * The request schemas (schemas/*.json, JSON Schema 2020-12), read once: the validators of
 * validation.ts and the OpenAPI document (lib/openapi/document.ts) are made from the same files.
 */
import * as fs from 'fs';
import * as path from 'path';

export const SCHEMA_BASE = 'https://express-ca-api.dev/schemas/';

export type JsonSchema = Record<string, unknown>;

/** `schemas/` of the package, both from source (lib/api) and from the build (dist/lib/api). */
export function schemaDir(): string {
  for (const candidate of ['../../schemas', '../../../schemas']) {
    const dir = path.resolve(__dirname, candidate);
    if (fs.existsSync(path.join(dir, 'SignCertificate.json'))) return dir;
  }
  throw new Error(`express-ca-api: cannot find the schemas/ directory near ${__dirname}`);
}

let loaded: Map<string, JsonSchema> | null = null;

/** Every schema file by name (`SignCertificate`), parsed. Read once. */
export function loadSchemas(): Map<string, JsonSchema> {
  if (loaded) return loaded;
  const dir = schemaDir();
  const map = new Map<string, JsonSchema>();
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    map.set(file.slice(0, -5), JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as JsonSchema);
  }
  loaded = map;
  return map;
}
