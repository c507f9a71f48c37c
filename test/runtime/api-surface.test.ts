// The exported surface of the entry points users import (kubeforge/runtime and its subpaths,
// kubeforge/testing, kubeforge/markers: every "exports" entry of package.json), read from the declaration files in dist/ (what `npm pack` ships, @internal
// members stripped) and compared with golden files, so the public API changes only on purpose:
//   api-surface/<entry>.txt      every export name with its kind;
//   api-report/<entry>.api.txt   every export's declaration (its signature, members and all), and
//                                the "forgotten exports": kubeforge types that a public signature
//                                names but no entry point exports (a user can meet them and cannot
//                                name them; API Extractor's ae-forgotten-export): there must be none.
// UPDATE_GOLDEN=1 rewrites the golden files.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ts } from 'ts-morph';
import { packageRoot } from '../../src/util/package-root.js';
import { COMPILER_OPTIONS, exportedSymbols, packageEntries, report, surface } from '../helpers/api-report.js';
import { assertGoldenFile } from '../helpers/golden.js';

/** The public entry points: package.json's "exports" but the CLI's own (".") and package.json. */
const ENTRIES: Record<string, string> = packageEntries(packageRoot(), ['.']);

/**
 * The only forgotten exports allowed, with their reason. kubeforge/markers: DecoratorArg and
 * MarkerOptions are type-level functions over the marker definition table (src/markers/
 * definitions.ts); exporting them would export the table's own types (MarkerName, ArgShapeOf,
 * ArgField...) with them. Users never write them: they pass object literals to the decorators.
 */
const KNOWN_FORGOTTEN: Record<string, string[]> = { markers: ['DecoratorArg', 'MarkerOptions'] };

describe('public API surface', () => {
  for (const [name, file] of Object.entries(ENTRIES)) {
    it(`kubeforge/${name} exports what test/golden/api-surface/${name}.txt lists`, () => {
      assertGoldenFile(surface(join(packageRoot(), file)), `api-surface/${name}.txt`);
    });
  }

  it('lists every entry point of kubeforge/runtime, kubeforge/testing and kubeforge/markers', () => {
    assert.deepEqual(Object.keys(ENTRIES).sort(), [
      'markers',
      'runtime',
      'runtime-cache',
      'runtime-client',
      'runtime-controller',
      'runtime-manager',
      'runtime-multicluster',
      'runtime-util',
      'runtime-webhook',
      'testing',
    ]);
  });

  it("each name of kubeforge/runtime's subpaths is exported by exactly one of them; the root's names are among them", () => {
    const names = (entry: string) =>
      surface(join(packageRoot(), ENTRIES[entry]))
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')[0]);
    const home = new Map<string, string[]>();
    for (const entry of Object.keys(ENTRIES).filter((e) => e.startsWith('runtime-'))) {
      for (const n of names(entry)) home.set(n, [...(home.get(n) ?? []), entry]);
    }
    assert.deepEqual(
      [...home].filter(([, where]) => where.length > 1),
      [],
      'names in two subpaths',
    );
    assert.deepEqual(
      names('runtime').filter((n) => !home.has(n)),
      [],
      'root names in no subpath',
    );
    assert.ok(names('runtime').length <= 40, `the root stays curated (${names('runtime').length} names)`);
  });

  describe('API report: signatures and forgotten exports', () => {
    const files = [...Object.values(ENTRIES), 'dist/index.d.ts'].map((f) => join(packageRoot(), f));
    const program = ts.createProgram(files, COMPILER_OPTIONS);
    const exported = exportedSymbols(program, files);
    for (const [name, file] of Object.entries(ENTRIES)) {
      it(`kubeforge/${name}'s declarations are what test/golden/api-report/${name}.api.txt records, with no forgotten export`, () => {
        const text = report(program, join(packageRoot(), file), exported, join(packageRoot(), 'dist'));
        assertGoldenFile(text, `api-report/${name}.api.txt`);
        const forgotten = [...text.slice(text.indexOf('// Forgotten exports')).matchAll(/^\/\/ {3}(\w+) /gm)].map(
          (m) => m[1],
        );
        assert.deepEqual(forgotten, KNOWN_FORGOTTEN[name] ?? [], text.slice(text.indexOf('// Forgotten exports')));
      });
    }

    it('a type a public signature names without exporting it is reported', () => {
      const probe = join(packageRoot(), 'dist/runtime/index.d.ts');
      const text = report(program, probe, new Set(), join(packageRoot(), 'dist'));
      // With nothing counted as exported, every kubeforge type a runtime signature names is forgotten.
      assert.match(text, /^\/\/ {3}Client \(runtime\/contracts\.d\.ts\): named by /m);
    });
  });
});
