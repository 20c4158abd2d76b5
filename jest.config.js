const os = require('os');

/** @type {import('jest').Config} */
module.exports = {
  // Two suites at a time even on two cores (jest's default there is one): most suites wait on child
  // processes, sockets and the database rather than compute, so a second worker fills that time and
  // the suite stays inside CI's time budget.
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
  // Longest suites first, also on a fresh machine without Jest's cache (the file's comment says why).
  testSequencer: '<rootDir>/test/helpers/sequencer.js',
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
