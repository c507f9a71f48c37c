import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { insertAtMarkers } from '../../src/machinery/index.js';

const MAIN = [
  "import { newManager } from 'kubeforge/runtime';",
  '// +kubebuilder:scaffold:imports',
  '',
  'async function main() {',
  '  const mgr = newManager();',
  '  // +kubebuilder:scaffold:builder',
  '}',
  '',
].join('\n');

describe('insertAtMarkers', () => {
  const insertions = [
    {
      marker: '+kubebuilder:scaffold:imports',
      fragment: "import { CronJobReconciler } from './controllers/cronjob.js';",
    },
    { marker: '+kubebuilder:scaffold:builder', fragment: 'await new CronJobReconciler().setupWithManager(mgr);\n' },
  ];

  it('inserts above each marker, with the marker indentation', () => {
    const { text, changed } = insertAtMarkers(MAIN, insertions, 'src/main.ts');
    assert.equal(changed, true);
    assert.equal(
      text,
      [
        "import { newManager } from 'kubeforge/runtime';",
        "import { CronJobReconciler } from './controllers/cronjob.js';",
        '// +kubebuilder:scaffold:imports',
        '',
        'async function main() {',
        '  const mgr = newManager();',
        '  await new CronJobReconciler().setupWithManager(mgr);',
        '  // +kubebuilder:scaffold:builder',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('is idempotent: a second run changes nothing', () => {
    const once = insertAtMarkers(MAIN, insertions).text;
    const twice = insertAtMarkers(once, insertions);
    assert.equal(twice.changed, false);
    assert.equal(twice.text, once);
  });

  it('keeps fragments in the order they were added', () => {
    const a = insertAtMarkers(MAIN, [{ marker: '+kubebuilder:scaffold:imports', fragment: 'import a;' }]).text;
    const b = insertAtMarkers(a, [{ marker: '+kubebuilder:scaffold:imports', fragment: 'import b;' }]).text;
    assert.deepEqual(b.split('\n').slice(1, 4), ['import a;', 'import b;', '// +kubebuilder:scaffold:imports']);
  });

  it('works with # comments (YAML, Makefile)', () => {
    const yaml = 'resources:\n- a.yaml\n# +kubebuilder:scaffold:crdkustomizeresource\n';
    const { text } = insertAtMarkers(yaml, [
      { marker: '+kubebuilder:scaffold:crdkustomizeresource', fragment: '- b.yaml' },
    ]);
    assert.equal(text, 'resources:\n- a.yaml\n- b.yaml\n# +kubebuilder:scaffold:crdkustomizeresource\n');
  });

  it('names the file and the missing marker', () => {
    assert.throws(
      () => insertAtMarkers('nothing here\n', insertions, 'src/main.ts'),
      (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        assert.equal(e.diagnostics.length, 2);
        assert.equal(e.diagnostics[0].code, 'KF1201');
        assert.match(e.diagnostics[0].message, /"\+kubebuilder:scaffold:imports" not found in src\/main\.ts/);
        return true;
      },
    );
  });
});
