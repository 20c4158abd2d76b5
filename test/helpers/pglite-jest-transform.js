/**
 * Jest transform for PGlite's CommonJS build.
 *
 * PGlite loads Node built-ins with dynamic `import("fs/promises")` etc. Code that Jest runs inside its
 * VM sandbox may only use dynamic import when Node runs with --experimental-vm-modules, so without
 * this every PGlite test fails with "A dynamic import callback was invoked without
 * --experimental-vm-modules". Rewriting `import("<builtin>")` to a resolved `require` keeps plain
 * `npx jest path/to/file.test.ts` working. Only string-literal specifiers of built-ins occur in
 * those files; anything else is left untouched. Production code (outside Jest) is not affected.
 */
const crypto = require('crypto');

const VERSION = 'pglite-jest-transform-1';

module.exports = {
  process(source) {
    // Captured at module scope: the Emscripten part declares its own `var require` in a nested scope.
    const code =
      'const __pgliteJestRequire = require;\n' +
      source.replace(/\bimport\(("(?:node:)?[a-z][a-z/_]*")\)/g, 'Promise.resolve(__pgliteJestRequire($1))');
    return { code };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha256').update(VERSION).update(filename).update(source).digest('hex');
  },
};
