// ESLint flat config: the recommended rules of ESLint and typescript-eslint, without type information
// so that a whole-tree run stays fast. Prettier owns layout: eslint-config-prettier, last, turns off
// every rule that would fight it.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Build output and local scratch folders (ESLint does not read .gitignore, unlike Prettier).
  { ignores: ['dist/', 'dist-bench/', 'coverage/', '.ca-data/', '.scratch/', '**/*.d.ts'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    // Everything here runs on Node: the library, its adapters, examples, bench, CLI and tests.
    languageOptions: { globals: globals.node },
    rules: {
      // `_name` marks a parameter that a signature requires but the body does not use.
      // `{ id, ...rest } = row` leaves `id` out on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Plain .js files are CommonJS (no "type" in package.json): bin/ca-admin.js, jest.config.js and the
    // Jest transform. require() is how CommonJS imports, so the TypeScript-only ban does not apply.
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      // `const crypto = require('crypto')` shadows Node's Web Crypto global inside its own module scope on purpose.
      'no-redeclare': ['error', { builtinGlobals: false }],
    },
  },
  {
    files: ['test/**'],
    languageOptions: { globals: globals.jest },
  },
  {
    // The engine's validators match control characters on purpose (ASCII, IA5String and DN checks).
    files: ['lib/x509/**/*.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  prettier,
);
