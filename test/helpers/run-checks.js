#!/usr/bin/env node
/**
 * The static checks of `npm test` — ESLint, Prettier's check, the type-check — run side by side
 * (each is single-threaded; on two cores this takes half the time, which CI's 25 minutes need). Each
 * one's output is printed when it ends, whole; the exit code is non-zero if any failed.
 */
const { spawn } = require('child_process');

const CHECKS = [
  ['lint (eslint)', 'eslint', ['.']],
  ['format (prettier --check)', 'prettier', ['--check', '.']],
  ['typecheck (tsc)', 'tsc', ['-p', 'tsconfig.json', '--noEmit']],
];

const runs = CHECKS.map(
  ([name, command, args]) =>
    new Promise((resolve) => {
      const started = Date.now();
      const child = spawn('npx', ['--no-install', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (code) => {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        process.stdout.write(`\n> ${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s\n${out}`);
        resolve(code === 0);
      });
    }),
);

Promise.all(runs).then((results) => process.exit(results.every(Boolean) ? 0 : 1));
