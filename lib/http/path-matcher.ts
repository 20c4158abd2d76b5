/**
 * Path templates of the route table (`/ca/{serial}/certs/{certificate_serial}/`) compiled to regular
 * expressions, and the parameters they capture, converted.
 */
import type { RouteDefinition } from '../api/route-types';

/** Kinds of path parameter and what they match (README D7 for serials). */
export type PathParamKind = 'serial' | 'slug' | 'name';

export const PATH_PARAM_KINDS: Record<string, PathParamKind> = {
  serial: 'serial',
  certificate_serial: 'serial',
  slug: 'slug',
  name: 'name',
};

const PARAM_PATTERNS: Record<PathParamKind, string> = {
  // D7: case-insensitive; colons as in the CLI's output. An encoded NUL matches too, so that it is
  // reported as invalid input (422, README D16) rather than as a path that names nothing.
  serial: '(?:[0-9A-Fa-f:]|%00)+',
  slug: '[a-zA-Z0-9]+',
  name: '[^/]+',
};

/** `42:27:ca:00` → `4227CA00`; leading zeros go (`000A` → `A`), a zero serial stays `0`. */
export function sanitizeSerial(raw: string): string {
  const hex = raw.replace(/:/g, '').toUpperCase().replace(/^0+/, '');
  return hex === '' ? '0' : hex;
}

export interface CompiledRoute {
  route: RouteDefinition;
  regex: RegExp;
  paramNames: string[];
}

export function compileRoute(route: RouteDefinition): CompiledRoute {
  const paramNames: string[] = [];
  const source = route.path
    .split(/(\{[a-z_]+\})/)
    .map((part) => {
      const m = /^\{([a-z_]+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const kind = PATH_PARAM_KINDS[m[1]];
      if (!kind) throw new Error(`route ${route.path}: unknown path parameter {${m[1]}}`);
      paramNames.push(m[1]);
      return `(${PARAM_PATTERNS[kind]})`;
    })
    .join('');
  return { route, regex: new RegExp(`^${source}$`), paramNames };
}

/**
 * Path parameters of `path` for this route, converted; null when the path does not match. A value
 * with a NUL keeps it, for the router to refuse with a 422 before anything is looked up
 * (`pathTextItems` in validation.ts).
 */
export function matchRoute(compiled: CompiledRoute, path: string): Record<string, string> | null {
  const m = compiled.regex.exec(path);
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const [i, name] of compiled.paramNames.entries()) {
    const raw = m[i + 1];
    const kind = PATH_PARAM_KINDS[name];
    if (kind === 'serial') params[name] = raw.includes('%00') ? raw.replace(/%00/g, '\u0000') : sanitizeSerial(raw);
    else if (kind === 'name') {
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        return null; // malformed percent-encoding cannot name anything
      }
    } else params[name] = raw;
  }
  return params;
}

/** Routes whose path matches, with their parameters. */
export function matchingRoutes(
  routes: readonly CompiledRoute[],
  path: string,
): { compiled: CompiledRoute; params: Record<string, string> }[] {
  const found: { compiled: CompiledRoute; params: Record<string, string> }[] = [];
  for (const compiled of routes) {
    const params = matchRoute(compiled, path);
    if (params) found.push({ compiled, params });
  }
  return found;
}
