/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }],
    // PGlite's dynamic import() of Node built-ins fails inside Jest's VM; see the transform's comment.
    '@electric-sql/pglite/dist/.+\\.cjs$': '<rootDir>/test/helpers/pglite-jest-transform.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!@electric-sql/pglite/)'],
  testTimeout: 60000,
};
