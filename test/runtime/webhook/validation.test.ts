// A validating webhook with apimachinery's helpers: field paths, validation messages and the
// 422 they become. (The messages themselves are judged by apimachinery in
// test/oracle/apimachinery.test.ts; here, how a validator uses them.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ErrorList,
  FieldErrors,
  field,
  isDNS1123Label,
  validateAnnotations,
  validateLabelSelector,
  validateLabels,
} from '../../../src/runtime/webhook/index.js';

describe('validation helpers in a validator', () => {
  it('field.newPath builds the paths Go prints; constructors take a Path or its text', () => {
    const p = field.newPath('spec', 'template').child('ports').index(0).key('a/b');
    assert.equal(p.toString(), 'spec.template.ports[0][a/b]');
    assert.equal(field.invalid(p, 'x', 'bad').field, 'spec.template.ports[0][a/b]');
    assert.equal(field.required('spec.size').field, 'spec.size');
    assert.equal(field.newPath('spec').root().toString(), 'spec');
  });

  it('the errors of the helpers become a 422 with one cause each, in the API server words', () => {
    const spec = field.newPath('spec');
    const errs: ErrorList = [
      ...isDNS1123Label('Bad_Name').map((m) => field.invalid(spec.child('target'), 'Bad_Name', m)),
      ...validateLabels({ 'bad key': 'v' }, spec.child('labels')),
      ...validateLabelSelector({ matchExpressions: [{ key: 'app', operator: 'In' }] }, spec.child('selector')),
      ...validateAnnotations({ ok: 'x'.repeat(256 * 1024) }, field.newPath('metadata', 'annotations')),
    ];
    const e = new FieldErrors(errs, { kind: 'Widget', group: 'example.com', name: 'w' });
    assert.deepEqual(
      e.causes().map((c) => [c.reason, c.field]),
      [
        ['FieldValueInvalid', 'spec.target'],
        ['FieldValueInvalid', 'spec.labels'],
        ['FieldValueRequired', 'spec.selector.matchExpressions[0].values'],
        ['FieldValueTooLong', 'metadata.annotations'],
      ],
    );
    assert.match(
      e.message,
      /^Widget\.example\.com "w" is invalid: \[spec\.target: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of/,
    );
    assert.match(
      e.message,
      /spec\.selector\.matchExpressions\[0\]\.values: Required value: must be specified when `operator` is 'In' or 'NotIn'/,
    );
    assert.match(e.message, /metadata\.annotations: Too long: may not be more than 262144 bytes\]$/);
  });

  it('a message repeated in the list is printed once, as ToAggregate does', () => {
    const e = new FieldErrors([field.required('spec.a'), field.required('spec.a')]);
    assert.equal(e.message, 'spec.a: Required value');
    assert.equal(e.causes().length, 2, 'the causes keep every error');
  });
});
