// The public API of @kubeforge/cel, the contract kubeforge depends on: every entry of the
// package's "exports" (`.`, `./re2`, `./apimachinery`), read from its built declaration files
// (packages/cel/dist, what the kubeforge tarball bundles) with the machinery of kubeforge's own
// API report (test/helpers/api-report.ts), and compared with
// packages/cel/test/golden/api-report/<entry>.api.txt: each export's declarations and the
// forgotten exports (a type of the package a public signature names that no entry exports),
// which must be none. UPDATE_GOLDEN=1 rewrites the golden files.
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ts } from 'ts-morph';
import { COMPILER_OPTIONS, exportedSymbols, packageEntries, report } from '../../../test/helpers/api-report.js';
import { assertGoldenText } from '../../../test/helpers/golden.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');
const pkg = join(root, 'packages/cel');
const ENTRIES = packageEntries(pkg);

describe('@kubeforge/cel API report', () => {
  it('has the three entries kubeforge imports', () => {
    assert.deepEqual(Object.keys(ENTRIES).sort(), ['apimachinery', 're2', 'root']);
  });

  const files = Object.values(ENTRIES).map((f) => join(pkg, f));
  const program = ts.createProgram(files, COMPILER_OPTIONS);
  const exported = exportedSymbols(program, files);
  for (const [name, file] of Object.entries(ENTRIES)) {
    it(`@kubeforge/cel${name === 'root' ? '' : `/${name}`}'s declarations are what test/golden/api-report/${name}.api.txt records, with no forgotten export`, () => {
      const text = report(program, join(pkg, file), exported, join(pkg, 'dist'), '@kubeforge/cel');
      assertGoldenText(text, join(pkg, 'test/golden/api-report', `${name}.api.txt`));
      const forgotten = text.slice(text.indexOf('// Forgotten exports')).split('\n').slice(1).filter(Boolean);
      assert.deepEqual(forgotten, []);
    });
  }

  it('a type a public signature names without exporting it is reported (so the check can fail)', () => {
    const text = report(program, join(pkg, ENTRIES.root), new Set(), join(pkg, 'dist'), '@kubeforge/cel');
    assert.match(text, /^\/\/ {3}RuleSchema \(types\.d\.ts\): named by /m);
  });
});
