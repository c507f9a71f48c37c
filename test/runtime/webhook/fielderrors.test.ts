// Field errors read as apimachinery's: each constructor's message, the aggregate, the causes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldErrors, field } from '../../../src/runtime/webhook/index.js';
import { fieldErrorString } from '../../../src/runtime/webhook/fielderrors.js';

describe('field errors', () => {
  it('word each type as apimachinery does', () => {
    const cases: [ReturnType<typeof field.required>, string][] = [
      [field.required('spec.a'), 'spec.a: Required value'],
      [field.required('spec.a', 'must name a port'), 'spec.a: Required value: must name a port'],
      [field.invalid('spec.size', 3, 'must be even'), 'spec.size: Invalid value: 3: must be even'],
      [
        field.invalid('spec.name', 'Bad_Name', 'must be a DNS label'),
        'spec.name: Invalid value: "Bad_Name": must be a DNS label',
      ],
      [field.invalid('spec.on', false, 'must be true'), 'spec.on: Invalid value: false: must be true'],
      [field.invalid('spec.x', null, 'must be set'), 'spec.x: Invalid value: null: must be set'],
      [field.invalid('spec.sel', { a: 1 }, 'bad selector'), 'spec.sel: Invalid value: {"a":1}: bad selector'],
      [
        field.notSupported('spec.mode', 'x', ['a', 'b']),
        'spec.mode: Unsupported value: "x": supported values: "a", "b"',
      ],
      [
        field.forbidden('spec.nodeName', 'may not be set by users'),
        'spec.nodeName: Forbidden: may not be set by users',
      ],
      [field.duplicate('spec.ports[1].name', 'http'), 'spec.ports[1].name: Duplicate value: "http"'],
      [field.tooLong('metadata.name', 'x'.repeat(70), 63), 'metadata.name: Too long: may not be more than 63 bytes'],
      [field.tooLong('spec.c', 'xx', 1), 'spec.c: Too long: may not be more than 1 byte'],
      [field.tooMany('spec.items', 5, 3), 'spec.items: Too many: 5: must have at most 3 items'],
      [field.tooMany('spec.items', -1, 1), 'spec.items: Too many: must have at most 1 item'],
      [field.notFound('spec.secretRef', 'creds'), 'spec.secretRef: Not found: "creds"'],
    ];
    for (const [e, text] of cases) assert.equal(fieldErrorString(e), text);
  });

  it('FieldErrors: one error bare, several in brackets, kind.group "name" is invalid, causes and warnings', () => {
    const one = new FieldErrors([field.required('spec.a')], { kind: 'Widget', group: 'example.com', name: 'w' });
    assert.equal(one.message, 'Widget.example.com "w" is invalid: spec.a: Required value');
    const two = new FieldErrors([field.invalid('spec.a', 3, 'must be even'), field.required('spec.b')], {
      kind: 'Pod',
      warnings: ['careful'],
    });
    assert.equal(two.message, 'Pod "" is invalid: [spec.a: Invalid value: 3: must be even, spec.b: Required value]');
    assert.deepEqual(two.causes(), [
      { reason: 'FieldValueInvalid', message: 'Invalid value: 3: must be even', field: 'spec.a' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.b' },
    ]);
    assert.deepEqual(two.warnings, ['careful']);
    assert.ok(two instanceof Error);
    assert.equal(two.name, 'FieldErrors');
    assert.equal(new FieldErrors([field.required('spec.a')]).message, 'spec.a: Required value');
  });
});
