#!/usr/bin/env node
require('../dist/lib/cli/main.js').main();
