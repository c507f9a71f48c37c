import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { countChanges, createTgz, unifiedDiff } from '../../src/scaffold/index.js';

describe('diff', () => {
  it('counts added and removed lines', () => {
    assert.deepEqual(countChanges('a\nb\nc\n', 'a\nx\nc\ny\n'), { added: 2, removed: 1 });
    assert.deepEqual(countChanges('', 'a\n'), { added: 1, removed: 0 });
  });

  it('prints a unified diff with hunk headers', () => {
    const before = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const after = before.replace('l5\n', 'L5\n');
    assert.equal(
      unifiedDiff(before, after, { from: 'golden', to: 'actual' }),
      ['--- golden', '+++ actual', '@@ -2,7 +2,7 @@', ' l2', ' l3', ' l4', '-l5', '+L5', ' l6', ' l7', ' l8', ''].join('\n'),
    );
    assert.equal(unifiedDiff('a\n', 'a\n', { from: 'x', to: 'y' }), '');
  });
});

describe('createTgz', () => {
  it('writes a tarball that tar reads back, byte for byte the same each time', () => {
    const long = `package/${'d'.repeat(60)}/${'e'.repeat(60)}/file.txt`;
    const entries = [
      { path: 'package/package.json', data: Buffer.from('{"name":"x","version":"1.0.0"}\n') },
      { path: 'package/bin/x.js', data: Buffer.from('#!/usr/bin/env node\n'), mode: 0o755 },
      { path: long, data: Buffer.alloc(1500, 'a') },
    ];
    const a = createTgz(entries);
    assert.ok(a.equals(createTgz([...entries].reverse())), 'deterministic and order-independent');
    const dir = mkdtempSync(join(tmpdir(), 'kf-tar-'));
    try {
      writeFileSync(join(dir, 'x.tgz'), a);
      const listing = execFileSync('tar', ['tzvf', join(dir, 'x.tgz')], { encoding: 'utf8' }).trim().split('\n');
      assert.equal(listing.length, 3);
      assert.match(listing[0], /^-rwxr-xr-x 0\/0\s+20 1985-10-26 \d\d:\d\d package\/bin\/x\.js$/);
      assert.ok(listing[1].endsWith(long), listing[1]);
      assert.ok(listing[2].endsWith('package/package.json'));
      execFileSync('tar', ['xzf', join(dir, 'x.tgz'), '-C', dir]);
      assert.equal(execFileSync('cat', [join(dir, long)], { encoding: 'utf8' }), 'a'.repeat(1500));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
