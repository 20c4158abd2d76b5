/**
 * The REST API's path parameters: which placeholder of the route table (lib/api/routes.ts) is which
 * kind, what each kind matches and how it is converted (docs/COMPATIBILITY.md §2, docs/reference/differences.md D7). The
 * matching itself is the shared kit's (lib/http/path-matcher.ts); the OpenAPI document describes the
 * same kinds (lib/openapi/document.ts).
 */
import { sanitizeSerial, type ParamKind, type ParamKinds } from '../http/path-matcher';

/** Kinds of path parameter (docs/reference/differences.md D7 for serials). */
export type PathParamKind = 'serial' | 'slug' | 'name';

export const PATH_PARAM_KINDS: Record<string, PathParamKind> = {
  serial: 'serial',
  certificate_serial: 'serial',
  slug: 'slug',
  name: 'name',
};

const KINDS: Record<PathParamKind, ParamKind> = {
  // D7: case-insensitive; colons as in the CLI's output. An encoded NUL matches too, and is kept, so
  // that it is reported as invalid input (422, docs/reference/differences.md D16; `pathTextItems` in validation.ts) before
  // anything is looked up, rather than as a path that names nothing.
  serial: {
    pattern: '(?:[0-9A-Fa-f:]|%00)+',
    convert: (raw) => (raw.includes('%00') ? raw.replace(/%00/g, '\u0000') : sanitizeSerial(raw)),
  },
  slug: { pattern: '[a-zA-Z0-9]+' },
  name: {
    pattern: '[^/]+',
    convert: (raw) => {
      try {
        return decodeURIComponent(raw);
      } catch {
        return null; // malformed percent-encoding cannot name anything
      }
    },
  },
};

/** Placeholder name → its kind, for `compileRoute` of lib/http/path-matcher.ts. */
export const REST_PATH_PARAMS: ParamKinds = Object.fromEntries(Object.entries(PATH_PARAM_KINDS).map(([name, kind]) => [name, KINDS[kind]]));
