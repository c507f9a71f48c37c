/**
 * Line diffs: counts for the plan (`UPDATE path (+3 -1 lines)`) and unified diffs for failing
 * golden files. A plain LCS table: the files kubeforge writes are small.
 */
export type DiffOp = { op: ' ' | '+' | '-'; line: string };

/** Splits text into lines; a trailing newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function diffLines(before: string, after: string): DiffOp[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // Trim the common head and tail so the table only covers what changed.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
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

export function countChanges(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const d of diffLines(before, after)) {
    if (d.op === '+') added++;
    else if (d.op === '-') removed++;
  }
  return { added, removed };
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
