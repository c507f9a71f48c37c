// The markers reference (docs/markers.md) is rendered from the definition table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MARKER_DEFINITIONS } from '../../src/markers/definitions.js';
import { assertGoldenText } from '../helpers/golden.js';
import {
  extractReferenceSection,
  REFERENCE_END,
  REFERENCE_START,
  renderMarkersReference,
} from '../../src/markers/reference.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const golden = join(root, 'test/fixtures/manifests/markers-reference.md');

describe('markers reference', () => {
  const text = renderMarkersReference();

  it('is delimited, LF-only, with a trailing newline, and deterministic', () => {
    assert.ok(text.startsWith(REFERENCE_START));
    assert.ok(text.trimEnd().endsWith(REFERENCE_END));
    assert.ok(text.endsWith('\n'));
    assert.doesNotMatch(text, /\r/);
    assert.equal(renderMarkersReference(), text);
  });

  it('documents every marker of the table, with its arguments', () => {
    for (const d of MARKER_DEFINITIONS) {
      const call = d.targets.includes('package') ? d.name : `@${d.name}`;
      assert.ok(text.includes(`\`${call}(`), `${d.name} is missing from the reference`);
      if (d.args.shape === 'object')
        for (const f of d.args.fields)
          assert.ok(text.includes(`| \`${f.name}\` |`), `${d.name}.${f.name} is undocumented`);
    }
  });

  it('matches the committed copy (UPDATE_GOLDEN=1 rewrites it; then copy it into docs/markers.md)', () => {
    assertGoldenText(text, golden);
  });

  it('docs/markers.md carries the current reference', () => {
    const section = extractReferenceSection(readFileSync(join(root, 'docs/markers.md'), 'utf8'));
    assert.notEqual(section, undefined, 'docs/markers.md has no markers reference section');
    assert.equal(
      section,
      text,
      'docs/markers.md markers reference is stale: replace it with test/fixtures/manifests/markers-reference.md',
    );
  });
});
