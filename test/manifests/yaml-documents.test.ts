// The one multi-document YAML reader (src/manifests/yaml-documents.ts) that the CRD docs, the
// --check-compat base, the helm chart's input and `kubeforge dev` read manifests through.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readYamlObjects, type YamlSyntaxError } from '../../src/manifests/yaml-documents.js';

const fail = (e: YamlSyntaxError): never => {
  throw Object.assign(new Error(e.message), { at: [e.line, e.column] });
};

describe('readYamlObjects', () => {
  it('returns the mappings with a kind, in order; empty, comment-only, scalar and kind-less documents are dropped', () => {
    const text =
      '# header\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n# only a comment\n---\njust a string\n---\nname: no-kind\n---\napiVersion: v1\nkind: Secret\n';
    assert.deepEqual(
      readYamlObjects(text, { onError: fail }).map((o) => o.kind),
      ['ConfigMap', 'Secret'],
    );
  });

  it('keeps one kind when asked', () => {
    const text = 'kind: CustomResourceDefinition\nspec: {group: a.example.com}\n---\nkind: ClusterRole\n';
    assert.deepEqual(readYamlObjects(text, { kind: 'CustomResourceDefinition' }), [
      { kind: 'CustomResourceDefinition', spec: { group: 'a.example.com' } },
    ]);
  });

  it('hands the first syntax error to the caller with its 1-based line and column', () => {
    const text = 'kind: A\n---\nkind: B\nmetadata:\n  name: [unclosed\n';
    assert.throws(
      () => readYamlObjects(text, { onError: fail }),
      (e: Error & { at?: number[] }) => {
        // The flow sequence is still open at the end of the text: line 6, column 1 (the yaml package's own position).
        assert.equal(e.message, 'Flow sequence in block collection must be sufficiently indented and end with a ]');
        assert.deepEqual(e.at, [6, 1]);
        return true;
      },
    );
  });

  it('without onError, reads a broken document as far as it parses (kubeforge dev)', () => {
    const text = 'kind: A\n---\nkind: B\nmetadata:\n  name: [unclosed\n';
    assert.deepEqual(readYamlObjects(text)[0], { kind: 'A' });
  });
});
