// ProjectFile: PROJECT's text, its typed config, where each entry is, and the rewrite of one entry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { parseProject, ProjectFile, serializeProject } from '../../src/project/index.js';
import { pluginConfig, withPlugin } from '../../src/project/plugins.js';

const TEXT = `domain: example.com
layout:
- typescript.kubeforge.io/v1
projectName: demo
repo: demo
resources:
- api:
    crdVersion: v1
    namespaced: true
  controller: true
  domain: example.com
  group: batch
  kind: CronJob
  path: src/api/v1/cronjob_types.ts
  version: v1
- api:
    crdVersion: v1
  domain: example.com
  group: batch
  kind: Job
  path: src/api/v1/job_types.ts
  version: v1
version: "3"
`;

describe('ProjectFile', () => {
  it('parses as parseProject does, and locates each entry at its line', () => {
    const p = ProjectFile.parse(TEXT);
    assert.deepEqual(p.config, parseProject(TEXT));
    assert.equal(p.text, TEXT);
    assert.deepEqual(p.locate(p.config.resources[0]), { file: 'PROJECT', line: 7 });
    assert.deepEqual(p.locate(p.config.resources[1]), { file: 'PROJECT', line: 16 });
    assert.equal(p.lineOf({ group: 'batch', version: 'v1', kind: 'Job' }), 16);
    assert.equal(p.lineOf({ group: 'batch', version: 'v2', kind: 'Job' }), undefined);
    // An entry not of this file: PROJECT, no line.
    assert.deepEqual(p.locate({ group: 'x', version: 'v1', kind: 'Y' }), { file: 'PROJECT' });
  });

  it('replaces an entry in place or appends one, and reads back what it wrote', () => {
    const p = ProjectFile.parse(TEXT);
    const job = { ...p.config.resources[1], controller: true };
    const replaced = ProjectFile.parse(p.withResource(job));
    assert.deepEqual(
      replaced.config.resources.map((r) => [r.kind, r.controller === true]),
      [
        ['CronJob', true],
        ['Job', true],
      ],
    );
    const added = ProjectFile.parse(p.withResource({ group: 'batch', version: 'v2', kind: 'Job' }));
    assert.deepEqual(
      added.config.resources.map((r) => `${r.kind}/${r.version}`),
      ['CronJob/v1', 'Job/v1', 'Job/v2'],
    );
    // Unchanged entries: the same bytes as serializing the config.
    assert.equal(p.withResource(p.config.resources[0]), serializeProject(p.config));
  });

  it('KF1040 when the folder has no PROJECT; the parse error names the file', () => {
    assert.throws(
      () => ProjectFile.read({ read: () => undefined }, '/tmp/empty'),
      (e: unknown) =>
        e instanceof DiagnosticError &&
        e.diagnostics[0].code === 'KF1040' &&
        e.diagnostics[0].message.includes('/tmp/empty'),
    );
    assert.throws(
      () => ProjectFile.read({ read: () => Buffer.from('domain: [unclosed\n') }, '/p'),
      /KF1010 PROJECT is not valid YAML/,
    );
  });
});

describe('plugin records', () => {
  it('reads a known plugin typed, an absent one as undefined, a malformed one as empty', () => {
    const extra = withPlugin({}, 'deploy-image.go.kubebuilder.io/v1-alpha', {
      resources: [{ group: 'g', version: 'v1', kind: 'K' }],
    });
    assert.deepEqual(pluginConfig({ extra }, 'deploy-image.go.kubebuilder.io/v1-alpha')?.resources?.[0].kind, 'K');
    assert.equal(pluginConfig({ extra }, 'grafana.kubebuilder.io/v1-alpha'), undefined);
    assert.deepEqual(
      pluginConfig(
        { extra: { plugins: { 'grafana.kubebuilder.io/v1-alpha': 'x' } } },
        'grafana.kubebuilder.io/v1-alpha',
      ),
      {},
    );
  });
});
