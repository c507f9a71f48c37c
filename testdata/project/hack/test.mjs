// `npm test`: runs the compiled tests (build/test/**/*.test.js, or the files given) with Node's
// test runner, one file at a time, TAP on stdout. A script rather than `node --test build/test/`
// because Node 20 searches a folder argument while Node 22 and later only take files and globs.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';

const root = 'build/test';
let files = process.argv.slice(2);
if (files.length === 0) {
  try {
    files = readdirSync(root, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.test.js'))
      .map((f) => join(root, f))
      .sort();
  } catch {
    files = [];
  }
}
if (files.length === 0) {
  console.error(`no *.test.js files under ${root}: run npm run build first`);
  process.exit(1);
}

run({ files, concurrency: 1 })
  .on('test:fail', () => {
    process.exitCode = 1;
  })
  .compose(tap)
  .pipe(process.stdout);
