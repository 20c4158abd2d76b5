/**
 * Route tables, for every way in: path templates with typed `{param}` placeholders
 * (`/ca/{serial}/certs/{certificate_serial}/`) compiled once, requests matched against them, and the
 * route chosen by method — 405 with `Allow` when the path exists with other methods only.
 *
 * A module declares its routes as data (`{ method, path, ... }`) and its parameter kinds: what each
 * placeholder matches and how the matched text is converted. The templates are the only patterns:
 * no module dispatches with regular expressions of its own (test/architecture/layers.test.ts).
 */
import { methodNotAllowed } from './http-errors';

/** What a `{param}` matches (a regular-expression fragment without groups) and what it becomes. */
export interface ParamKind {
  pattern: string;
  /** The value handed to the handler; null when the text cannot name anything (the path does not match). */
  convert?: (raw: string) => string | null;
}

/** Placeholder name → its kind, per module (e.g. `serial`, `slug`). */
export type ParamKinds = Readonly<Record<string, ParamKind>>;

/** What the matcher needs of a route; tables add their own fields (handler, permission, ...). */
export interface PathRoute {
  readonly method: string;
  /** Relative to the module's prefix, with `{param}` placeholders. */
  readonly path: string;
  /** Answer HEAD like GET (Node leaves the body out). Default: HEAD is a method of its own. */
  readonly answersHead?: boolean;
}

export interface CompiledRoute<R extends PathRoute = PathRoute> {
  route: R;
  regex: RegExp;
  params: { name: string; kind: ParamKind }[];
}

export interface RouteMatch<R extends PathRoute = PathRoute> {
  compiled: CompiledRoute<R>;
  params: Record<string, string>;
}

/** `42:27:ca:00` → `4227CA00`; leading zeros go (`000A` → `A`), a zero serial stays `0` (docs/reference/differences.md D7). */
export function sanitizeSerial(raw: string): string {
  const hex = raw.replace(/:/g, '').toUpperCase().replace(/^0+/, '');
  return hex === '' ? '0' : hex;
}

export function compileRoute<R extends PathRoute>(route: R, kinds: ParamKinds): CompiledRoute<R> {
  const params: { name: string; kind: ParamKind }[] = [];
  const source = route.path
    .split(/(\{[a-z_]+\})/)
    .map((part) => {
      const m = /^\{([a-z_]+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const kind = Object.hasOwn(kinds, m[1]) ? kinds[m[1]] : undefined;
      if (!kind) throw new Error(`route ${route.path}: unknown path parameter {${m[1]}}`);
      params.push({ name: m[1], kind });
      return `(${kind.pattern})`;
    })
    .join('');
  return { route, regex: new RegExp(`^${source}$`), params };
}

/** Path parameters of `path` for this route, converted; null when the path does not match. */
export function matchRoute(compiled: CompiledRoute, path: string): Record<string, string> | null {
  const m = compiled.regex.exec(path);
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const [i, { name, kind }] of compiled.params.entries()) {
    const value = kind.convert ? kind.convert(m[i + 1]) : m[i + 1];
    if (value === null) return null;
    params[name] = value;
  }
  return params;
}

/** Routes whose path matches, with their parameters. */
export function matchingRoutes<R extends PathRoute>(routes: readonly CompiledRoute<R>[], path: string): RouteMatch<R>[] {
  const found: RouteMatch<R>[] = [];
  for (const compiled of routes) {
    const params = matchRoute(compiled, path);
    if (params) found.push({ compiled, params });
  }
  return found;
}

/**
 * The match whose route takes `method` (HEAD too where the route answers it); a 405 listing the
 * routes' methods otherwise. `matches` is not empty: an unknown path is the module's to answer.
 */
export function routeForMethod<R extends PathRoute>(matches: readonly RouteMatch<R>[], method: string): RouteMatch<R> {
  const chosen = matches.find(({ compiled: { route } }) => route.method === method || (method === 'HEAD' && route.answersHead === true));
  if (!chosen) throw methodNotAllowed(matches.map((m) => m.compiled.route.method));
  return chosen;
}
