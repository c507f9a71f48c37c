#!/usr/bin/env node
// The floor plan's measurements (issue #41, "Measured before -> after"), printed for a checkout:
// `node scripts/floorplan.mjs [repo root]`. Run it on the commit before a redesign and after it,
// and compare. What it counts, and how:
// - long lines: lines of src/**/*.ts over 120 characters;
// - long functions: functions, methods, accessors and arrow functions of src/ over 120 lines;
// - `as` casts per top-level folder of src/ (`as const` not counted);
// - implementations of the API server's rules: files of src/ that carry their own copy of each,
//   found by a mark each copy has (the DNS-1123 label pattern, a translation of RE2 syntax to a
//   JavaScript RegExp, a table of the built-in Kinds' groups and plurals, a structural-schema
//   value walk); a file listed is a place to look, the count is the figure;
// - folders of src/ (two levels), import arrows between them, arrows that close a cycle (a folder
//   importing one that imports it back, directly or not) and the cycles themselves (strongly
//   connected groups of folders);
// - ARCHITECTURE.md's length in lines.
// The workspace packages' sources (packages/<name>/src, e.g. @kubeforge/cel, which was src/cel)
// count with src/ in every figure, each package as one folder (`packages/<name>`), its imports by
// name (`@kubeforge/<name>`) as arrows to it; the first line also reports them apart.
// The `duplicates` pairs and the fast lane's time come from their own commands (`duplicates
// --repo src --most 200`, `npm run test:fast`): this script prints how to get them.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ts } from 'ts-morph';

const root = resolve(process.argv[2] ?? process.cwd());
const SRC = join(root, 'src');

/** @param {string} dir @returns {string[]} */
function files(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? files(p) : /\.(c|m)?ts$/.test(n) && !n.endsWith('.d.ts') ? [p] : [];
    });
}

const PACKAGES = join(root, 'packages');
/** The workspace packages that have sources: `packages/<name>` -> its src folder. */
const packageSrcs = existsSync(PACKAGES)
  ? readdirSync(PACKAGES)
      .sort()
      .map((n) => join(PACKAGES, n, 'src'))
      .filter((d) => existsSync(d))
  : [];
/** `packages/<name>` for a file of a workspace package's sources, else undefined. */
const packageOf = (/** @type {string} */ f) => {
  const d = packageSrcs.find((p) => f.startsWith(`${p}/`));
  return d ? relative(root, dirname(d)) : undefined;
};
const all = [...files(SRC), ...packageSrcs.flatMap((d) => files(d))];
/** @type {Map<string, string>} */
const texts = new Map(all.map((f) => [f, readFileSync(f, 'utf8')]));
const top = (/** @type {string} */ f) =>
  packageOf(f) ??
  relative(SRC, f)
    .split('/')[0]
    .replace(/\.(c|m)?ts$/, '');
const folderOf = (/** @type {string} */ f) => {
  const pkg = packageOf(f);
  if (pkg) return pkg;
  const parts = relative(SRC, f).split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts.length === 2 ? parts[0] : '.';
};

// Lines, functions and casts.
let longLines = 0;
let longFunctions = 0;
/** @type {Map<string, number>} */
const casts = new Map();
for (const [f, text] of texts) {
  for (const line of text.split('\n')) if (line.length > 120) longLines++;
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
  /** @param {import('ts-morph').ts.Node} node */
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > 120) longFunctions++;
    }
    if (ts.isAsExpression(node) && node.type.getText(sf) !== 'const') casts.set(top(f), (casts.get(top(f)) ?? 0) + 1);
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

// The API server's rules, each by the mark its copies carry.
/** @type {Record<string, (text: string) => boolean>} */
const RULES = {
  'DNS-1123 names': (t) => /\[a-z0-9\]\(\[-a-z0-9\]\*\[a-z0-9\]\)\?/.test(t),
  // A pattern given at run time (a CRD's `pattern`, CEL's matches()) compiled by JavaScript's
  // RegExp, or run by an RE2 engine.
  'regular expressions (run-time patterns)': (t) => /new RegExp\([A-Za-z_(]/.test(t) || /from ['"]re2js['"]/.test(t),
  "built-in Kinds' table (groups, plurals)": (t) => /['"]rbac\.authorization\.k8s\.io['"]\s*[,:\]]/.test(t),
  // A walk that checks values against a structural schema's bounds.
  'structural-schema value validation': (t) =>
    /multipleOf/.test(t) && /maxProperties/.test(t) && /\.length\s*[<>]/.test(t),
};
const rules = Object.entries(RULES).map(([name, re]) => {
  const where = all.filter((f) => re(texts.get(f) ?? ''));
  return { name, count: where.length, where: where.map((f) => relative(root, f)) };
});

// Folder graph.
/** @type {Map<string, Set<string>>} */
const arrows = new Map();
const importRe =
  /(?:^|\n)\s*(?:import|export)[^'"\n;]*?from\s*['"]((?:\.|@kubeforge\/)[^'"]+)['"]|import\(\s*['"]((?:\.|@kubeforge\/)[^'"]+)['"]\s*\)/g;
for (const [f, text] of texts) {
  for (const m of text.matchAll(importRe)) {
    const spec = m[1] ?? m[2];
    const a = folderOf(f);
    // A workspace package imported by its name: an arrow to the package.
    const named = /^@kubeforge\/([^/]+)/.exec(spec);
    if (named) {
      if (!packageSrcs.includes(join(PACKAGES, named[1], 'src')) || a === `packages/${named[1]}`) continue;
      if (!arrows.has(a)) arrows.set(a, new Set());
      arrows.get(a)?.add(`packages/${named[1]}`);
      continue;
    }
    const target = resolve(dirname(f), spec).replace(/\.(c|m)?js$/, '.ts');
    if (!target.startsWith(SRC) && !packageOf(target)) continue;
    const b = folderOf(existsSync(target) ? target : target.replace(/\.ts$/, '.cts'));
    if (a === b) continue;
    if (!arrows.has(a)) arrows.set(a, new Set());
    arrows.get(a)?.add(b);
  }
}
const folders = [...new Set(all.map(folderOf))].sort();
// Tarjan's strongly connected components.
let index = 0;
/** @type {Map<string, number>} */
const idx = new Map();
/** @type {Map<string, number>} */
const low = new Map();
/** @type {string[]} */
const stack = [];
const on = new Set();
/** @type {string[][]} */
const sccs = [];
/** @param {string} v */
const strong = (v) => {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of arrows.get(v) ?? []) {
    if (!idx.has(w)) {
      strong(w);
      low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v) ?? 0, idx.get(w) ?? 0));
  }
  if (low.get(v) === idx.get(v)) {
    /** @type {string[]} */
    const c = [];
    /** @type {string} */
    let w;
    do {
      w = /** @type {string} */ (stack.pop());
      on.delete(w);
      c.push(w);
    } while (w !== v);
    if (c.length > 1) sccs.push(c.sort());
  }
};
for (const v of folders) if (!idx.has(v)) strong(v);
const inCycle = new Map(sccs.flatMap((c, i) => c.map((f) => [f, i])));
let arrowCount = 0;
let cycleArrows = 0;
for (const [a, bs] of arrows)
  for (const b of bs) {
    arrowCount++;
    if (inCycle.has(a) && inCycle.get(a) === inCycle.get(b)) cycleArrows++;
  }

const arch = join(root, 'ARCHITECTURE.md');
const archLines = existsSync(arch) ? readFileSync(arch, 'utf8').split('\n').length - 1 : 0;

const out = [];
const lineCount = (/** @type {string[]} */ fs) => fs.reduce((n, f) => n + (texts.get(f) ?? '').split('\n').length, 0);
const apart = packageSrcs.map((d) => {
  const own = all.filter((f) => f.startsWith(`${d}/`));
  return `${relative(root, dirname(d))}: ${own.length} files, ${lineCount(own)} lines`;
});
out.push(
  `src files: ${all.length}, lines: ${lineCount(all)}${apart.length ? ` (workspace packages included; ${apart.join('; ')})` : ''}`,
);
out.push(`lines over 120 characters: ${longLines}`);
out.push(`functions over 120 lines: ${longFunctions}`);
out.push(
  `as casts: ${[...casts.values()].reduce((a, b) => a + b, 0)} (${[...casts.entries()]
    .sort()
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')})`,
);
for (const r of rules) out.push(`implementations of ${r.name}: ${r.count}\n  ${r.where.join('\n  ')}`);
out.push(
  `folders: ${folders.length}, import arrows between them: ${arrowCount}, arrows inside cycles: ${cycleArrows}, cycles: ${sccs.length}${sccs.length ? ` (${sccs.map((c) => c.join(' <-> ')).join('; ')})` : ''}`,
);
out.push(`ARCHITECTURE.md: ${archLines} lines`);
out.push(
  'duplicates pairs: `duplicates --repo src --most 200` and `duplicates --repo templates --most 200` (first line)',
);
out.push('fast lane time: `npm run test:fast` (its last line)');
process.stdout.write(`${out.join('\n')}\n`);
