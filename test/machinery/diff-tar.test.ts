import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  countChanges,
  countLines,
  createTgz,
  diffLines,
  merge3,
  splitLines,
  unifiedDiff,
} from '../../src/machinery/index.js';

/** The counts read off the LCS table's edit script (what the plan printed before countChanges had its own algorithm). */
function tableCounts(before: string, after: string): { added: number; removed: number } {
  const ops = diffLines(before, after);
  return { added: ops.filter((o) => o.op === '+').length, removed: ops.filter((o) => o.op === '-').length };
}

/** A small deterministic PRNG (mulberry32), so that a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('diff', () => {
  it('counts added and removed lines', () => {
    assert.deepEqual(countChanges('a\nb\nc\n', 'a\nx\nc\ny\n'), { added: 2, removed: 1 });
    assert.deepEqual(countChanges('', 'a\n'), { added: 1, removed: 0 });
  });

  it('counts exactly what a shortest edit script has: moved and repeated lines included', () => {
    // A moved line is one removal and one addition (a multiset count would see no change).
    assert.deepEqual(countChanges('a\nb\nc\n', 'c\na\nb\n'), { added: 1, removed: 1 });
    assert.deepEqual(countChanges('x\nx\ny\n', 'y\nx\nx\nx\n'), { added: 2, removed: 1 });
    assert.deepEqual(countChanges('a\n', ''), { added: 0, removed: 1 });
    assert.deepEqual(countChanges('same\n', 'same\n'), { added: 0, removed: 0 });
    const random = prng(42);
    for (let round = 0; round < 400; round++) {
      // Few distinct lines, so that repeats, moves and partial matches are common.
      const text = () =>
        Array.from({ length: Math.floor(random() * 25) }, () => `l${Math.floor(random() * 5)}\n`).join('');
      const before = text();
      const after = round % 3 === 0 ? before.replace(/l1\n/g, 'l7\n') : text();
      assert.deepEqual(countChanges(before, after), tableCounts(before, after), JSON.stringify({ before, after }));
    }
  });

  it('counts large files in linear memory (a 40 000-line file with scattered edits)', () => {
    // The LCS table over the changed region would hold ~1.6e9 cells here.
    const before = Array.from({ length: 40_000 }, (_, i) => `  line ${i}: value\n`).join('');
    const lines = before.split('\n');
    for (let i = 3; i < 39_990; i += 130) lines[i] = `  line ${i}: edited`;
    lines.splice(20_000, 0, '  inserted');
    const after = lines.join('\n');
    assert.deepEqual(countChanges(before, after), { added: 309, removed: 308 });
  });

  it('countLines counts bytes as splitLines counts text', () => {
    for (const t of ['', '\n', 'a', 'a\n', 'a\nb', 'a\n\nb\n\n', 'é\nü\n', 'x\r\ny\r\n']) {
      assert.equal(countLines(Buffer.from(t, 'utf8')), splitLines(t).length, JSON.stringify(t));
    }
  });

  it('prints a unified diff with hunk headers', () => {
    const before = `${Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n')}\n`;
    const after = before.replace('l5\n', 'L5\n');
    assert.equal(
      unifiedDiff(before, after, { from: 'golden', to: 'actual' }),
      ['--- golden', '+++ actual', '@@ -2,7 +2,7 @@', ' l2', ' l3', ' l4', '-l5', '+L5', ' l6', ' l7', ' l8', ''].join(
        '\n',
      ),
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
      const listing = execFileSync('tar', ['tzvf', join(dir, 'x.tgz')], { encoding: 'utf8' })
        .trim()
        .split('\n');
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

describe('merge3 (three-way merge of lines)', () => {
  const lines = (...l: string[]) => `${l.join('\n')}\n`;
  const base = lines('a', 'b', 'c', 'd', 'e', 'f', 'g');

  it('applies the other side to a file with changes of its own elsewhere', () => {
    const mine = lines('a', 'B', 'c', 'd', 'e', 'f', 'g', 'h');
    const theirs = lines('a', 'b', 'c', 'd', 'x', 'y', 'f', 'g');
    assert.deepEqual(merge3(base, mine, theirs), { merged: lines('a', 'B', 'c', 'd', 'x', 'y', 'f', 'g', 'h') });
    // Insertions and deletions, and the reverse switch: back to the other side exactly.
    const added = lines('a', 'b', 'c', 'new 1', 'new 2', 'd', 'e', 'f', 'g');
    const edited = lines('A', 'b', 'c', 'd', 'e', 'f', 'G');
    const switched = merge3(base, edited, added);
    assert.deepEqual(switched, { merged: lines('A', 'b', 'c', 'new 1', 'new 2', 'd', 'e', 'f', 'G') });
    assert.deepEqual(merge3(added, 'merged' in switched ? switched.merged : '', base), { merged: edited });
  });

  it('no conflict for the same change on both sides; a conflict for changes that touch', () => {
    const same = lines('a', 'b', 'c', 'D', 'e', 'f', 'g');
    assert.deepEqual(merge3(base, same, same), { merged: same });
    assert.deepEqual(
      merge3(base, lines('a', 'b', 'c', 'mine', 'e', 'f', 'g'), lines('a', 'b', 'c', 'theirs', 'e', 'f', 'g')),
      { conflictLine: 4 },
    );
    // Adjacent lines count as touching (as git merges them); the line is mine's, after my earlier changes.
    assert.deepEqual(
      merge3(base, lines('new', 'a', 'b', 'C', 'd', 'e', 'f', 'g'), lines('a', 'b', 'c', 'D', 'e', 'f', 'g')),
      { conflictLine: 4 },
    );
    // Two insertions at the same place.
    assert.deepEqual(
      merge3(
        base,
        lines('a', 'mine', 'b', 'c', 'd', 'e', 'f', 'g'),
        lines('a', 'theirs', 'b', 'c', 'd', 'e', 'f', 'g'),
      ),
      { conflictLine: 2 },
    );
    assert.deepEqual(merge3(base, base, ''), { merged: '' });
  });
});
