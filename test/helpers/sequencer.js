/**
 * Jest's order of the suites, longest first, also on a fresh machine. Jest sorts by the durations it
 * cached on earlier runs; CI starts with no cache, and Jest then sorts by file size, which can leave a
 * suite of minutes (the hostile-input campaign) to start last, with the other worker idle meanwhile.
 * test/suite-durations.json holds measured seconds of the slow suites (`npm run test:durations`
 * rewrites it from a `jest --json` report) for the suites Jest has no time of its own for.
 */
const path = require('path');
const Sequencer = require('@jest/test-sequencer').default;
const ESTIMATES = require('../suite-durations.json');

const ROOT = path.resolve(__dirname, '../..');

class LongestFirst extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const seconds = ESTIMATES[path.relative(ROOT, test.path).split(path.sep).join('/')];
    return seconds == null ? undefined : seconds * 1000;
  }
}

module.exports = LongestFirst;
