/**
 * Path templates of the route table (`/ca/{serial}/certs/{certificate_serial}/`) compiled to regular
 * expressions, and the parameters they capture, converted.
 */
import type { RouteDefinition } from './route-types';

/** Kinds of path parameter and what they match (README D7 for serials). */
export type PathParamKind = 'serial' | 'slug' | 'name';

export const PATH_PARAM_KINDS: Record<string, PathParamKind> = {
  serial: 'serial',
  certificate_serial: 'serial',
  slug: 'slug',
  name: 'name',
};

const PARAM_PATTERNS: Record<PathParamKind, string> = {
  serial: '[0-9A-Fa-f:]+', // D7: case-insensitive; colons as in the CLI's output
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

/** Path parameters of `path` for this route, converted; null when the path does not match. */
export function matchRoute(compiled: CompiledRoute, path: string): Record<string, string> | null {
  const m = compiled.regex.exec(path);
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const [i, name] of compiled.paramNames.entries()) {
    const raw = m[i + 1];
    const kind = PATH_PARAM_KINDS[name];
    if (kind === 'serial') params[name] = sanitizeSerial(raw);
    else if (kind === 'name') {
      let decoded: string;
      try {
        decoded = decodeURIComponent(raw);
      } catch {
        return null; // malformed percent-encoding cannot name anything
      }
      // Nor can a NUL (no stored or configured name holds one): the path names nothing, before any lookup.
      if (decoded.includes('\u0000')) return null;
      params[name] = decoded;
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
