#!/usr/bin/env node
// CommonJS (bin/package.json): an ES module entry point alone costs Node 20 a tenth of its start.
// dist/cli/start.cjs is the CLI's start-up graph in one file (scripts/bundle-cli.mjs); when it is
// missing or older than the last tsc build of dist/ (a build without the bundling step), the ES
// modules it was made from run instead, slower to start and otherwise the same.
'use strict';
const { statSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
const mtime = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
};
const bundled = mtime(join(dist, 'cli', 'start.cjs'));
const built = mtime(join(dist, '.tsbuildinfo')) ?? 0;
if (bundled !== undefined && bundled >= built) require(join(dist, 'cli', 'start.cjs')).run(process.argv);
else import('../dist/cli/index.js').then((cli) => cli.run(process.argv));
