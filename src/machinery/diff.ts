/**
 * Line diffs: counts for the plan (`UPDATE path (+3 -1 lines)`) and unified diffs for failing
 * golden files. The unified diff uses a plain LCS table (golden files are small); the plan's
 * counts use a linear-memory algorithm, since generated manifests can be large.
 */
export type DiffOp = { op: ' ' | '+' | '-'; line: string };

/** Splits text into lines; a trailing newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** How many lines the two lists share at their start and, after that, at their end. */
function commonEnds(a: readonly string[], b: readonly string[]): { head: number; tail: number } {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { head, tail };
}

export function diffLines(before: string, after: string): DiffOp[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // Trim the common head and tail so the table only covers what changed.
  const { head, tail } = commonEnds(a, b);
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const n = am.length;
  const m = bm.length;
  const table: Uint32Array[] = [];
  for (let i = 0; i <= n; i++) table.push(new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i][j] = am[i] === bm[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const ops: DiffOp[] = a.slice(0, head).map((line) => ({ op: ' ' as const, line }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && am[i] === bm[j]) {
      ops.push({ op: ' ', line: am[i] });
      i++;
      j++;
    } else if (i < n && (j === m || table[i + 1][j] >= table[i][j + 1])) {
      ops.push({ op: '-', line: am[i++] });
    } else {
      ops.push({ op: '+', line: bm[j++] });
    }
  }
  for (const line of a.slice(a.length - tail)) ops.push({ op: ' ', line });
  return ops;
}

/**
 * Lines added and removed from `before` to `after`, as a shortest edit script has them (the
 * same counts as {@link diffLines}). Computed without the quadratic table, so that files of
 * tens of thousands of lines (generated CRDs) cost time in proportion to their size times the
 * size of the edit: the common head and tail are trimmed, lines that occur on one side only are
 * set aside (they can never be matched, so they are added or removed whatever happens), and
 * the rest goes through Myers' greedy algorithm, which needs one array of n + m numbers.
 */
export function countChanges(before: string, after: string): { added: number; removed: number } {
  const a = splitLines(before);
  const b = splitLines(after);
  const common = commonLineCount(a, b);
  return { added: b.length - common, removed: a.length - common };
}

/** Length of a longest common subsequence of two line lists. */
function commonLineCount(a: readonly string[], b: readonly string[]): number {
  const { head, tail } = commonEnds(a, b);
  // Lines as numbers; a line absent from the other side gets none and is dropped.
  const ids = new Map<string, number>();
  for (let i = head; i < b.length - tail; i++) if (!ids.has(b[i])) ids.set(b[i], ids.size);
  const inA = new Set<number>();
  const am: number[] = [];
  for (let i = head; i < a.length - tail; i++) {
    const id = ids.get(a[i]);
    if (id !== undefined) {
      am.push(id);
      inA.add(id);
    }
  }
  const bm: number[] = [];
  for (let j = head; j < b.length - tail; j++) {
    const id = ids.get(b[j]);
    if (id !== undefined && inA.has(id)) bm.push(id);
  }
  return head + tail + (am.length + bm.length - editDistance(am, bm)) / 2;
}

/** Insertions plus deletions of a shortest edit script (Myers 1986, forward greedy pass). */
function editDistance(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (n === 0 || m === 0) return max;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return d;
    }
  }
  return max;
}

/** A unified diff with `context` lines around each change; empty string when equal. */
export function unifiedDiff(before: string, after: string, labels: { from: string; to: string }, context = 3): string {
  if (before === after) return '';
  const ops = diffLines(before, after);
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`];
  const changed = ops.map((o, k) => (o.op !== ' ' ? k : -1)).filter((k) => k >= 0);
  if (changed.length === 0) {
    // Only the final newline differs.
    out.push('@@ end of file @@', `-${JSON.stringify(before.slice(-20))}`, `+${JSON.stringify(after.slice(-20))}`);
    return `${out.join('\n')}\n`;
  }
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k] - context);
    let end = Math.min(ops.length, changed[k] + context + 1);
    while (k + 1 < changed.length && changed[k + 1] - context <= end) {
      k++;
      end = Math.min(ops.length, changed[k] + context + 1);
    }
    k++;
    let aLine = 1;
    let bLine = 1;
    for (let x = 0; x < start; x++) {
      if (ops[x].op !== '+') aLine++;
      if (ops[x].op !== '-') bLine++;
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.op !== '+').length;
    const bCount = hunk.filter((o) => o.op !== '-').length;
    out.push(`@@ -${aLine},${aCount} +${bLine},${bCount} @@`);
    for (const o of hunk) out.push(`${o.op}${o.line}`);
  }
  return `${out.join('\n')}\n`;
}

/** One change of a line diff: lines [start, end) of the old text replaced by `lines`. */
interface Hunk {
  start: number;
  end: number;
  lines: string[];
}

function hunksOf(ops: readonly DiffOp[]): Hunk[] {
  const out: Hunk[] = [];
  let at = 0;
  let current: Hunk | undefined;
  for (const o of ops) {
    if (o.op === ' ') {
      if (current) out.push(current);
      current = undefined;
      at++;
      continue;
    }
    current ??= { start: at, end: at, lines: [] };
    if (o.op === '-') {
      at++;
      current.end = at;
    } else current.lines.push(o.line);
  }
  if (current) out.push(current);
  return out;
}

/**
 * A three-way merge of lines (diff3): the changes from `base` to `theirs` applied to `mine`, which
 * has changes of its own from `base`. A conflict is a change of each side touching the same or
 * adjacent lines of `base` (the same change on both sides is none); it gives the 1-based line of
 * `mine` where its colliding change starts. Used to switch a scaffolded file to another template
 * while keeping the user's edits elsewhere.
 */
export function merge3(base: string, mine: string, theirs: string): { merged: string } | { conflictLine: number } {
  const baseLines = splitLines(base);
  const ours = hunksOf(diffLines(base, mine));
  const others = hunksOf(diffLines(base, theirs));
  const same = (a: Hunk, b: Hunk) =>
    a.start === b.start &&
    a.end === b.end &&
    a.lines.length === b.lines.length &&
    a.lines.every((l, i) => l === b.lines[i]);
  const apply: Hunk[] = [...ours];
  for (const t of others) {
    const touching = ours.filter((m) => m.start <= t.end && t.start <= m.end);
    if (touching.length === 0) apply.push(t);
    else if (!(touching.length === 1 && same(touching[0], t))) {
      // Where the first colliding change of ours sits in `mine`: its base position moved by our earlier hunks.
      const first = touching[0];
      const shift = ours
        .filter((m) => m.end <= first.start && m !== first)
        .reduce((n, m) => n + m.lines.length - (m.end - m.start), 0);
      return { conflictLine: first.start + shift + 1 };
    }
  }
  apply.sort((a, b) => b.start - a.start || b.end - a.end);
  const out = [...baseLines];
  for (const h of apply) out.splice(h.start, h.end - h.start, ...h.lines);
  return { merged: out.length ? `${out.join('\n')}\n` : '' };
}
