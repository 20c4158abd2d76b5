// ESLint flat config: the recommended rules of ESLint and typescript-eslint, with Prettier owning
// layout (eslint-config-prettier turns off every rule that would fight it).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/', 'dist-bench/', 'node_modules/', 'coverage/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', Buffer: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: {
      // `_name` marks a parameter that a signature requires but the body does not use.
      // `{ id, ...rest } = row` leaves `id` out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // The engine's validators match control characters on purpose (ASCII, IA5String and DN checks).
    files: ['lib/x509/**/*.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // CommonJS entry points and the Jest transform.
    files: ['**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
