// Offline: readCRDFiles parses a file once per process (the unit tier's files each start a
// FakeAPIServer on the same CRDs) without sharing objects between callers or missing an edit.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readCRDFiles } from '../../src/testing/crds.js';

const crd = (plural: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.example.com
spec:
  group: example.com
  names: { kind: Widget, plural: ${plural} }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object } }
`;

describe('readCRDFiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeforge-crd-files-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives every call its own objects, equal to a first parse', () => {
    writeFileSync(join(dir, 'a.yaml'), crd('widgets'));
    const first = readCRDFiles([dir]);
    first[0].spec.names.plural = 'changed by a caller';
    const second = readCRDFiles([dir]);
    assert.equal(second[0].spec.names.plural, 'widgets');
    assert.notEqual(second[0], first[0]);
  });

  it('parses a file again when its text changed, and reports its errors each time', () => {
    writeFileSync(join(dir, 'a.yaml'), crd('gadgets'));
    assert.deepEqual(
      readCRDFiles([dir]).map((c) => c.spec.names.plural),
      ['gadgets'],
    );
    writeFileSync(join(dir, 'a.yaml'), 'kind: CustomResourceDefinition\n  bad: [\n');
    for (let i = 0; i < 2; i++) assert.throws(() => readCRDFiles([dir]), /a\.yaml:\d+: YAML syntax error/);
  });
});
