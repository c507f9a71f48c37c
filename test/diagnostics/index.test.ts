import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeFrame, DiagnosticError, error, formatDiagnostics, sortDiagnostics } from '../../src/diagnostics/index.js';

describe('diagnostics', () => {
  it('formats file:line:col  code  message, a code frame and the hint', () => {
    const d = error('KF2001', '@Maximum on string field "name" of FooSpec', {
      file: '/p/src/api/v1/foo.ts',
      line: 3,
      column: 5,
      hint: 'use @MaxLength for strings',
    });
    const text = formatDiagnostics([d], { cwd: '/p', readSource: () => 'a\nb\nc\nd\ne\nf' });
    assert.equal(
      text,
      [
        'src/api/v1/foo.ts:3:5  KF2001  @Maximum on string field "name" of FooSpec',
        '    1 | a',
        '    2 | b',
        '  > 3 | c',
        '      |     ^',
        '    4 | d',
        '    5 | e',
        '  hint: use @MaxLength for strings',
        '',
        '1 error',
        '',
      ].join('\n'),
    );
  });

  it('sorts by file, line, column so output does not depend on discovery order', () => {
    const a = error('KF1', 'a', { file: 'b.ts', line: 1 });
    const b = error('KF1', 'b', { file: 'a.ts', line: 9 });
    const c = error('KF1', 'c', { file: 'a.ts', line: 2 });
    assert.deepEqual(
      sortDiagnostics([a, b, c]).map((d) => d.message),
      ['c', 'b', 'a'],
    );
  });

  it('DiagnosticError carries every diagnostic', () => {
    const e = new DiagnosticError([error('KF1', 'x'), error('KF2', 'y')]);
    assert.equal(e.diagnostics.length, 2);
    assert.match(e.message, /KF1 x\nKF2 y/);
  });

  it('code frame clamps at the start of the file', () => {
    assert.deepEqual(codeFrame('one\ntwo', 1), ['  > 1 | one', '    2 | two']);
  });
});
