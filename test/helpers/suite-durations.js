#!/usr/bin/env node
/**
 * `npm run test:durations -- REPORT.json`: rewrite test/suite-durations.json (what
 * test/helpers/sequencer.js orders a cold run by) from a `jest --json --outputFile=REPORT.json` run:
 * every suite of 8 s or more, in seconds, longest first.
 */
const fs = require('fs');
const path = require('path');

const report = process.argv[2];
if (!report) {
  console.error('usage: npm run test:durations -- REPORT.json   (from: npx jest --json --outputFile=REPORT.json)');
  process.exit(2);
}
const ROOT = path.resolve(__dirname, '../..');
const { testResults } = JSON.parse(fs.readFileSync(report, 'utf8'));
const rows = testResults
  .map((t) => [path.relative(ROOT, t.name).split(path.sep).join('/'), Math.round((t.endTime - t.startTime) / 1000)])
  .filter(([, seconds]) => seconds >= 8)
  .sort((a, b) => b[1] - a[1]);
fs.writeFileSync(path.join(ROOT, 'test/suite-durations.json'), `${JSON.stringify(Object.fromEntries(rows), null, 2)}\n`);
console.log(`test/suite-durations.json: ${rows.length} suites`);
