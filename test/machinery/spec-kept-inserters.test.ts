// The 'kept' if-exists policy of a file spec and the typed inserters (applyInserters).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { error } from '../../src/diagnostics/index.js';
import { applyInserters, applySpecs, type FileInserter, MemoryHost, Tree } from '../../src/machinery/index.js';

describe("FileSpec policy 'kept'", () => {
  it('writes a missing file, and leaves one that exists as it is, even with force', async () => {
    const host = new MemoryHost({ 'shared.yaml': 'mine\n' });
    const tree = new Tree(host);
    const replaced = await applySpecs(
      tree,
      [
        { path: 'shared.yaml', policy: 'kept', content: 'scaffold\n' },
        { path: 'new.yaml', policy: 'kept', content: 'scaffold\n' },
      ],
      undefined,
      { force: true },
    );
    assert.deepEqual(replaced, []);
    assert.equal(tree.readText('shared.yaml'), 'mine\n');
    assert.equal(tree.readText('new.yaml'), 'scaffold\n');
    assert.deepEqual(
      tree.changes().map((c) => `${c.kind} ${c.path}`),
      ['create new.yaml'],
    );
  });

  it('is not rendered when the file exists (a template that would fail is not asked for)', async () => {
    const tree = new Tree(new MemoryHost({ 'a.ts': 'x\n' }));
    await applySpecs(tree, [{ path: 'a.ts', policy: 'kept', template: 'no/such/template.hbs' }], undefined);
    assert.deepEqual(tree.changes(), []);
  });
});

describe('applyInserters', () => {
  const missing = (path: string) => error('KF1047', `${path} is missing`, { file: path });
  it('inserts above the markers, once, and collects a missing file and a missing marker', () => {
    const host = new MemoryHost({ 'k.yaml': 'resources:\n# +kubebuilder:scaffold:x\n', 'nomarker.yaml': 'a\n' });
    const tree = new Tree(host);
    const inserters: FileInserter[] = [
      {
        path: 'k.yaml',
        insertions: [{ marker: '+kubebuilder:scaffold:x', fragment: '- a.yaml' }],
        missing: missing('k.yaml'),
      },
      {
        path: 'gone.yaml',
        insertions: [{ marker: '+kubebuilder:scaffold:x', fragment: '- a.yaml' }],
        missing: missing('gone.yaml'),
      },
      {
        path: 'nomarker.yaml',
        insertions: [{ marker: '+kubebuilder:scaffold:y', fragment: 'b' }],
        missing: missing('nomarker.yaml'),
      },
    ];
    const problems: ReturnType<typeof missing>[] = [];
    applyInserters(tree, inserters, problems);
    assert.equal(tree.readText('k.yaml'), 'resources:\n- a.yaml\n# +kubebuilder:scaffold:x\n');
    assert.deepEqual(
      problems.map((p) => `${p.code} ${p.file}`),
      ['KF1047 gone.yaml', 'KF1201 nomarker.yaml'],
    );
    // Again: the fragment is there, nothing changes.
    const again: ReturnType<typeof missing>[] = [];
    applyInserters(tree, inserters.slice(0, 1), again);
    assert.equal(tree.readText('k.yaml'), 'resources:\n- a.yaml\n# +kubebuilder:scaffold:x\n');
    assert.deepEqual(again, []);
  });
});
