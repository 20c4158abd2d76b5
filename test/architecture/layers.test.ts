/**
 * The layout rules of docs/CONTRIBUTING.md, checked on the source tree: the library core depends on
 * ports, not adapters (only the two composition roots import adapters); lib/x509 is pure and imports
 * nothing of ours outside itself; no import circles; small files.
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const COMPOSITION_ROOTS = ['lib/index.ts', 'lib/cli/main.ts'];
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out.sort();
}

/** Relative imports (static `import`/`export … from`, `require`, `import()`), resolved to repo paths. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|require\(\s*|import\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
  return specs.map((spec) => {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    for (const candidate of [`${base}.ts`, `${base}/index.ts`, base]) {
      if (fs.existsSync(path.join(ROOT, candidate)) && fs.statSync(path.join(ROOT, candidate)).isFile()) return candidate;
    }
    return base;
  });
}

/** Every import circle among `files` (each reported once, as the path round it). */
function cycles(files: string[]): string[][] {
  const inside = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((i) => inside.has(i))]));
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const next of graph.get(f) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return found;
}

const lib = sourceFiles('lib');
const adapters = sourceFiles('adapters');

describe('layers', () => {
  test('only the composition roots under lib/ import adapters/', () => {
    const offenders = lib
      .filter((f) => !COMPOSITION_ROOTS.includes(f))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => i.startsWith('adapters/'))
          .map((i) => `${f} → ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  test('lib/x509 imports nothing of ours outside lib/x509', () => {
    const offenders = lib
      .filter((f) => f.startsWith('lib/x509/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => !i.startsWith('lib/x509/'))
          .map((i) => `${f} → ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  test('adapters never import the HTTP layer (lib/api, lib/router)', () => {
    const offenders = adapters.flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('lib/api/') || i === 'lib/router.ts')
        .map((i) => `${f} → ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  test.each([['lib/api'], ['lib/x509'], ['lib/ca'], ['lib'], ['adapters']])('no import circles in %s/', (dir) => {
    const files = [...lib, ...adapters].filter((f) => f.startsWith(`${dir}/`));
    expect(files.length).toBeGreaterThan(0);
    expect(cycles(files).map((c) => c.join(' → '))).toEqual([]);
  });

  test(`no source file under lib/ or adapters/ exceeds ${MAX_LINES} lines`, () => {
    const long = [...lib, ...adapters]
      .map((f) => ({ f, lines: fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ f, lines }) => `${f}: ${lines}`);
    expect(long).toEqual([]);
  });

  test('the cycle finder finds a circle (so an empty list above means something)', () => {
    const dir = fs.mkdtempSync(path.join(ROOT, 'test/architecture/.tmp-'));
    try {
      const rel = path.relative(ROOT, dir).split(path.sep).join('/');
      fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = b;\n");
      fs.writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a';\nexport const b = a;\n");
      expect(cycles([`${rel}/a.ts`, `${rel}/b.ts`])).toEqual([[`${rel}/a.ts`, `${rel}/b.ts`, `${rel}/a.ts`]]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
