// The repository's docs name files and functions; those names must exist. A doc that names a file
// which moved, or a function that was renamed, fails here instead of misleading its reader.
// Checked: every backticked repository path (src/..., test/..., scripts/..., bench/...,
// templates/..., docs/..., testdata/...) exists in the repository, or, for the paths of a generated
// project (src/api/..., src/controller/...), in the committed sample project testdata/project or
// under a folder only a generated project has (an example's own file); and
// every backticked call `name()` or `a.b()` names a function defined or called somewhere in the
// sources, tests, scripts or templates.
// ARCHITECTURE.md, which describes what the code is, is held closer: every file it names, by a
// repository path (backticked or not), by a path inside a folder (`machinery/runner.ts`,
// `informer.ts`) or in its Layout tree, exists; and every code symbol it backticks (`InformerCache`, `k8sModelSchemaShared`,
// `YamlWriter.intern`, `getIndexer()`) is declared in the repository's code (a function, class,
// interface, type, const, enum, method, property or export), bar a listed few that name other
// projects' code. A failure names each stale reference with its line.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/util/package-root.js';
import { must } from '../helpers/must.js';

const root = packageRoot();
const DOCS = [
  'README.md',
  'ARCHITECTURE.md',
  // ARCHITECTURE.md's design notes, beside the code they describe.
  'src/scaffolds/README.md',
  'src/manifests/README.md',
  'src/runtime/README.md',
  'test/README.md',
  'bench/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
].filter((d) => existsSync(join(root, d)));
const PATH = /^(src|test|scripts|bench|templates|docs|testdata|bin)\/[\w./-]+$/;
const CALL = /^(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)\(\)$/;

/** Paths a generated project has, which the doc may name as a project's (the sample project is checked). */
const PROJECT = join(root, 'testdata/project');

/**
 * A file of a user's project given as an example (`src/controller/memcached_controller.ts`): its
 * folder is one a generated project has and kubeforge's own repository does not.
 */
function projectExample(path: string): boolean {
  const folder = path.split('/').slice(0, 2).join('/');
  return existsSync(join(PROJECT, folder)) && !existsSync(join(root, folder));
}

/**
 * The text of every file under `roots` (folders of the repository) whose name matches `names`,
 * skipping folders named in `skip`.
 */
function readSources(roots: readonly string[], names: RegExp, skip: readonly string[]): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (skip.includes(name)) continue;
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (names.test(name)) texts.push(readFileSync(p, 'utf8'));
    }
  };
  for (const d of roots) if (existsSync(join(root, d))) walk(join(root, d));
  return texts.join('\n');
}

/** Folders no source text is read from: dependencies, outputs, fixtures, goldens, generated data. */
const NOT_SOURCES = ['node_modules', 'out', 'fixtures', 'golden', 'data'];

/** The code and templates the docs may name: kubeforge's own (and its workspace packages'), its templates and testdata. */
function sources(): string {
  return readSources(
    ['src', 'packages', 'scripts', 'bin', 'templates', 'test', 'bench', 'testdata'],
    /\.(ts|cts|mjs|js|hbs)$/,
    NOT_SOURCES,
  );
}

/** Backticked spans of a Markdown text, outside fenced code blocks, with their line numbers. */
function spans(text: string): { span: string; line: number }[] {
  const out: { span: string; line: number }[] = [];
  for (const { text: line, line: n } of unfencedLines(text))
    for (const m of line.matchAll(/`([^`]+)`/g)) out.push({ span: m[1], line: n });
  return out;
}

/** The lines of a Markdown text outside fenced code blocks, with their 1-based numbers. */
function unfencedLines(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let fenced = false;
  text.split('\n').forEach((raw, i) => {
    if (/^\s*```/.test(raw)) fenced = !fenced;
    else if (!fenced) out.push({ text: raw, line: i + 1 });
  });
  return out;
}

describe('the docs name what exists', () => {
  const code = sources();
  for (const doc of DOCS) {
    it(`${doc}: every named file and function exists`, () => {
      const wrong: string[] = [];
      let checked = 0;
      for (const { span, line } of spans(readFileSync(join(root, doc), 'utf8'))) {
        if (PATH.test(span)) {
          checked++;
          const path = span.replace(/[:#].*$/, '');
          if (!existsSync(join(root, path)) && !existsSync(join(PROJECT, path)) && !projectExample(path))
            wrong.push(`${doc}:${line}: no file ${path}`);
        } else {
          const call = CALL.exec(span);
          if (!call) continue;
          checked++;
          if (!new RegExp(`\\b${call[1].replace(/\$/g, '\\$')}\\b`).test(code))
            wrong.push(`${doc}:${line}: no function ${span}`);
        }
      }
      assert.ok(checked > 0, `${doc} names no file or function: the check would pass on anything`);
      assert.deepEqual(wrong, []);
    });
  }

  it('a named file that does not exist fails the check', () => {
    const [{ span }] = spans('see `src/no/such/file.ts`');
    assert.ok(
      PATH.test(span) && !existsSync(join(root, span)) && !existsSync(join(PROJECT, span)) && !projectExample(span),
    );
    assert.ok(projectExample('src/controller/memcached_controller.ts') && !projectExample('src/runtime/nothing.ts'));
  });
});

/** Every file of the repository (relative paths), outside node_modules and build outputs. */
function repositoryFiles(): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel))) {
      if (['node_modules', 'build', 'dist', 'out', '.git', 'coverage'].includes(name)) continue;
      const p = rel ? `${rel}/${name}` : name;
      if (statSync(join(root, p)).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk('');
  return out;
}

/** The code a symbol may be declared in: kubeforge's own (and its workspace packages'), and the generated sample project's. */
function declarationSources(): string {
  return readSources(['src', 'packages', 'scripts', 'bin', 'test', 'bench', 'testdata/project'], /\.(ts|cts|mjs|js)$/, [
    ...NOT_SOURCES,
    'build',
    'dist',
  ]);
}

/**
 * Backticked names in ARCHITECTURE.md that are other projects' code, not kubeforge's, so no
 * declaration of ours can hold them: name -> whose it is.
 */
const FOREIGN_SYMBOLS: Record<string, string> = {
  'reflect.Value': "Go's reflect package",
  'etcdmain.Main': "etcd's Go entry point",
  OnlyMetadata: "controller-runtime's builder option",
  UnsafeDisableDeepCopy: "controller-runtime's cache option",
  'JSON.stringify': 'JavaScript',
  setSecureContext: "Node's tls.Server method",
  optMap: 'a CEL macro',
  optFlatMap: 'a CEL macro',
  sendInitialEvents: 'the Kubernetes list parameter (streaming lists)',
  cliVersion: "a key of Kubebuilder's PROJECT file, kept as read",
};

const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?$/;
const FILE = /\.(?:ts|mjs|js|json|hbs|go|sh|md|yaml|txt)$/;

/** A backticked identifier that reads as code: a call, a dotted name, camelCase or PascalCase. */
function isCodeSymbol(span: string): boolean {
  if (!IDENT.test(span) || FILE.test(span) || /\.(?:crt|key|pem|tgz)$/.test(span)) return false;
  return span.endsWith('()') || span.includes('.') || /[a-z][A-Z]/.test(span) || /^[A-Z][a-z]/.test(span);
}

/** Whether `name` is declared in `code`: function, class, interface, type, const..., method, property, export. */
function declares(code: string, name: string): boolean {
  const n = name.replace(/\$/g, '\\$');
  return (
    new RegExp(`\\b(?:function\\*?|class|interface|type|const|let|var|enum|namespace)\\s+${n}\\b`).test(code) ||
    new RegExp(
      `^\\s*(?:(?:export|public|private|protected|static|readonly|async|get|set|override|declare|abstract)\\s+)*${n}\\s*[?!]?\\s*[:(<=]`,
      'm',
    ).test(code) ||
    new RegExp(`\\bexport\\s*\\{[^}]*\\b${n}\\b`).test(code) ||
    new RegExp(`['"]${n}['"]\\s*:`).test(code)
  );
}

/** The stale references of an architecture text: files that are not there, symbols nothing declares. */
export function staleReferences(text: string, files: string[], code: string, doc = 'ARCHITECTURE.md'): string[] {
  const wrong: string[] = [];
  const fileSet = new Set(files);
  const named = (path: string) =>
    fileSet.has(path) || files.some((f) => f.endsWith(`/${path}`)) || files.some((f) => f.startsWith(`${path}/`));
  for (const { span, line } of spans(text)) {
    // A file of kubeforge's (not one a run writes into a user's node_modules or .kubeforge/).
    if (FILE.test(span) && /^[\w./-]+$/.test(span) && !/^(?:\.|node_modules\/)/.test(span) && !PATH.test(span)) {
      if (!named(span)) wrong.push(`${doc}:${line}: no file ${span} (nor any path ending in it)`);
    } else if (isCodeSymbol(span) && !(span in FOREIGN_SYMBOLS)) {
      const parts = span.replace(/\(\)$/, '').split('.');
      const last = parts[parts.length - 1];
      // `YamlWriter.intern`: the class and its member; `cache.syncTimeoutMs`: the member (an option's path).
      const missing = [last, ...(parts.length > 1 && /^[A-Z]/.test(parts[0]) ? [parts[0]] : [])].filter(
        (p) => !declares(code, p),
      );
      if (missing.length > 0) wrong.push(`${doc}:${line}: \`${span}\`: nothing declares ${missing.join(', ')}`);
    }
  }
  // Repository paths written without backticks (`in src/loader/program.ts`), outside code blocks.
  let fenced = false;
  text.split('\n').forEach((raw, i) => {
    if (/^\s*```/.test(raw)) fenced = !fenced;
    if (fenced || /^\s*```/.test(raw)) return;
    for (const m of raw
      .replace(/`[^`]*`/g, '')
      .matchAll(/(?<![\w/.-])((?:src|test|templates|scripts|bench|docs|testdata|bin)\/[\w./-]*\w)/g)) {
      if (!named(m[1])) wrong.push(`${doc}:${i + 1}: no file ${m[1]}`);
    }
  });
  return wrong;
}

/** Paths the Layout tree of ARCHITECTURE.md names (folders end in `/`), from its indentation. */
export function layoutPaths(text: string): { path: string; line: number }[] {
  const lines = text.split('\n');
  const start = lines.indexOf('## Layout');
  const open = lines.findIndex((l, i) => i > start && l.startsWith('```'));
  const out: { path: string; line: number }[] = [];
  const stack: string[] = [];
  for (let i = open + 1; i < lines.length && !lines[i].startsWith('```'); i++) {
    const m = /^( *)(\S+(?: \S+\/)*)(?: {2,}|$)/.exec(lines[i]);
    if (!m || m[1].length >= 20) continue; // a description's continuation line
    const depth = m[1].length / 2;
    stack.length = depth;
    const tokens = m[2].split(' ');
    for (const token of tokens) {
      if (token.includes('<')) continue; // a pattern (`commands/<name>.ts`)
      out.push({ path: [...stack, token].join('').replace(/\/$/, ''), line: i + 1 });
    }
    // A lone folder is the parent of the lines indented below it (`client/ cache/` are siblings).
    if (tokens.length === 1 && tokens[0].endsWith('/')) stack[depth] = tokens[0];
  }
  return out;
}

/** ARCHITECTURE.md's design notes, beside the code they describe (held as close as it is). */
const NOTES = [
  'src/scaffolds/README.md',
  'src/manifests/README.md',
  'src/runtime/README.md',
  'packages/cel/README.md',
  'test/README.md',
];
/** ARCHITECTURE.md stays a map (issue #41): layers, flows, decisions; the detail is in the notes. */
const ARCHITECTURE_MAX_LINES = 300;

describe('ARCHITECTURE.md names what the code is', () => {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
  const files = repositoryFiles();

  it('every file and symbol it and its design notes name exists', () => {
    const code = declarationSources();
    let symbols = 0;
    const wrong: string[] = [];
    for (const doc of ['ARCHITECTURE.md', ...NOTES]) {
      const t = doc === 'ARCHITECTURE.md' ? text : readFileSync(join(root, doc), 'utf8');
      symbols += spans(t).filter(({ span }) => isCodeSymbol(span) || FILE.test(span)).length;
      wrong.push(...staleReferences(t, files, code, doc));
    }
    assert.ok(
      symbols > 100,
      `ARCHITECTURE.md and its notes name ${symbols} files and symbols: the check would pass on anything`,
    );
    assert.deepEqual(wrong, []);
  });

  it(`is at most ${ARCHITECTURE_MAX_LINES} lines, and links each design note`, () => {
    const lines = text.split('\n').length - 1;
    assert.ok(
      lines <= ARCHITECTURE_MAX_LINES,
      `ARCHITECTURE.md has ${lines} lines; move detail to a design note or a module header`,
    );
    for (const note of NOTES) assert.ok(text.includes(`](${note})`), `ARCHITECTURE.md links ${note}`);
  });

  it('every folder and file of its Layout tree exists', () => {
    const paths = layoutPaths(text);
    assert.ok(paths.length > 25, `the Layout tree names ${paths.length} paths`);
    const wrong = paths
      .filter(({ path }) => !existsSync(join(root, path)))
      .map(({ path, line }) => `ARCHITECTURE.md:${line}: Layout names ${path}, which does not exist`);
    assert.deepEqual(wrong, []);
  });

  it('lists only foreign names it still uses', () => {
    const used = new Set(
      [text, ...NOTES.map((n) => readFileSync(join(root, n), 'utf8'))].flatMap((t) => spans(t).map(({ span }) => span)),
    );
    assert.deepEqual(
      Object.keys(FOREIGN_SYMBOLS).filter((n) => !used.has(n)),
      [],
    );
  });

  it('a renamed file or symbol fails with its name and line', () => {
    const code = 'export class YamlWriter {\n  intern(x: unknown) {}\n}\nexport function planDiskRun() {}\n';
    const doc =
      'x\n`YamlWriter.intern` and `planDiskRun()`, `planManifestsRun()`, `k8sModelSchemaShared`, `stage.ts`, `gone.ts`\nin src/manifests/stage.ts and src/manifests/gone.ts.\n';
    assert.deepEqual(staleReferences(doc, ['src/manifests/stage.ts'], code), [
      'ARCHITECTURE.md:2: `planManifestsRun()`: nothing declares planManifestsRun',
      'ARCHITECTURE.md:2: `k8sModelSchemaShared`: nothing declares k8sModelSchemaShared',
      'ARCHITECTURE.md:2: no file gone.ts (nor any path ending in it)',
      'ARCHITECTURE.md:3: no file src/manifests/gone.ts',
    ]);
    assert.deepEqual(
      layoutPaths(
        '## Layout\n\n```\nsrc/\n  cli/                  x\n    commands/<name>.ts  y\n                        z\n  client/ cache/      w\n```\n',
      ).map((p) => p.path),
      ['src', 'src/cli', 'src/client', 'src/cache'],
    );
  });
});

// --- Behavioural claims name the test that holds them (issue #41, point 10) ---
// The convention (test/README.md, "Docs name the test that holds a claim"): a claim is followed by
// `(held by `test/x.test.ts`: "an it() title")`, or a section ends with a `Held by:` line listing
// test files, each with the quoted titles of its tests that hold the section's claims:
//   Held by: `test/a.test.ts` ("title one"; "title two"), `test/b.test.ts`.
// Checked here: every backticked test file a doc names exists; every quoted title after it is the
// literal first argument of an `it(` / `test(` / `describe(` call in that file (a template
// literal's `${...}` parts match anything; a title quoted with a trailing `…` is a prefix of one);
// and every section (a heading of level 1 to 3 to the next) of the pages in CLAIM_PAGES names at
// least one test file, bar the headings listed in NO_CLAIM_SECTIONS and an "Untested claims" note.

/** The pages of behaviour whose every section must name a test that holds it. */
const CLAIM_PAGES = [
  'docs/scaling.md',
  'docs/observability.md',
  'docs/testing.md',
  'docs/webhooks.md',
  'docs/controllers.md',
  'docs/manifests.md',
  'docs/commands.md',
  'docs/kubebuilder.md',
  'docs/memcached.md',
  'docs/demo.md',
  'README.md',
];

/** Sections of CLAIM_PAGES that make no claim of behaviour of their own: page -> heading -> why. */
const NO_CLAIM_SECTIONS: Record<string, Record<string, string>> = {
  'docs/controllers.md': { 'Writing controllers': 'one line naming what the page covers' },
  'README.md': {
    kubeforge: 'the tagline; each of its claims is a section below',
    Contents: 'links to the sections',
    Documentation: 'a table of the pages',
    Testing: 'no test holds it: its claims are under Untested claims',
  },
  'docs/testing.md': { 'Testing operators': 'one line naming what the page covers' },
  'docs/manifests.md': { 'Manifests: compatibility, marker discovery, checks': 'one line naming what the page covers' },
};

/** A backticked test file, then optionally `: "title"` or ` ("title"; "title")`. */
const TEST_REF =
  /`((?:packages\/[\w-]+\/)?test\/[\w./-]+\.test\.ts)`((?::\s*|\s*\()"[^"\n]+"(?:\s*[;,]\s*"[^"\n]+")*\)?)?/g;

export interface TestReference {
  file: string;
  titles: string[];
  line: number;
}

/** The test references of a Markdown text, outside fenced code blocks. */
export function testReferences(text: string): TestReference[] {
  const out: TestReference[] = [];
  for (const { text: raw, line } of unfencedLines(text))
    for (const m of raw.matchAll(TEST_REF)) {
      const titles = [...(m[2] ?? '').matchAll(/"([^"\n]+)"/g)].map((t) => must(t[1], 'a quoted title'));
      out.push({ file: must(m[1], 'the test file of a reference'), titles, line });
    }
  return out;
}

/**
 * The titles a test file declares: the first argument of each `it(`, `test(`, `describe(` call (and
 * `.skip`/`.only`/`.todo` forms, and `t.test(`) when it is a string literal; a template literal's
 * `${...}` parts become wildcards.
 */
export function declaredTitles(code: string): { parts: string[]; re: RegExp }[] {
  const out: { parts: string[]; re: RegExp }[] = [];
  // `it(`, `describe.skip(`, a subtest's `t.test(`; not `re.test('...')`.
  const call = /(?:(?<![\w$.])(?:it|test|describe)|\bt\.test)(?:\.(?:skip|only|todo))?\(\s*(['"`])/g;
  for (let m = call.exec(code); m; m = call.exec(code)) {
    const quote = must(m[1], 'the quote of a title');
    const parts: string[] = [''];
    let i = call.lastIndex;
    for (; i < code.length && code[i] !== quote; i++) {
      if (code[i] === '\\') parts[parts.length - 1] += code[++i] === 'n' ? '\n' : code[i];
      else if (quote === '`' && code[i] === '$' && code[i + 1] === '{') {
        let depth = 0;
        for (; i < code.length; i++) {
          if (code[i] === '{') depth++;
          else if (code[i] === '}' && --depth === 0) break;
        }
        parts.push('');
      } else parts[parts.length - 1] += code[i];
    }
    call.lastIndex = i + 1;
    out.push({ parts, re: new RegExp(`^${parts.map(escapeRegExp).join('.*')}$`, 's') });
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether a title quoted in a doc is one `declared` holds. With `…` at its end it is a prefix: of a
 * title's text before its first `${...}`, or longer than a whole template title it starts with.
 */
function titleDeclared(title: string, declared: { parts: string[]; re: RegExp }[]): boolean {
  if (!title.endsWith('…')) return declared.some(({ re }) => re.test(title));
  const prefix = title.slice(0, -1);
  return declared.some(
    ({ parts, re }) =>
      (parts[0] ?? '').startsWith(prefix) || (parts.length > 1 && new RegExp(re.source.slice(0, -1), 's').test(prefix)),
  );
}

/** The sections of a Markdown text: each heading of level 1 to 3, outside code blocks, to the next one. */
export function sections(text: string): { heading: string; line: number; body: string }[] {
  const out: { heading: string; line: number; body: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((raw, i) => {
    if (/^\s*```/.test(raw)) fenced = !fenced;
    const h = fenced ? null : /^#{1,3} (.+)$/.exec(raw);
    const last = out.at(-1);
    if (h) out.push({ heading: (h[1] ?? '').trim(), line: i + 1, body: '' });
    else if (last) last.body += `${raw}\n`;
  });
  return out;
}

/**
 * What is wrong with a doc's test references: a named test file that does not exist, a quoted title
 * its file does not declare, and (when `requireSections`) a section that names no test file.
 */
export function claimProblems(
  doc: string,
  text: string,
  readTest: (file: string) => string | undefined | null,
  requireSections: boolean,
  noClaim: Record<string, string> = {},
): string[] {
  const wrong: string[] = [];
  for (const { file, titles, line } of testReferences(text)) {
    const code = readTest(file);
    if (code === null) continue; // a generated project's test, named as an example
    if (code === undefined) {
      wrong.push(`${doc}:${line}: no test file ${file}`);
      continue;
    }
    const declared = declaredTitles(code);
    for (const t of titles)
      if (!titleDeclared(t, declared)) wrong.push(`${doc}:${line}: ${file} has no test titled "${t}"`);
  }
  if (requireSections) {
    for (const { heading, line, body } of sections(text)) {
      if (heading in noClaim || /^Untested claims\b/.test(heading)) continue;
      if (!testReferences(body).some(({ file }) => readTest(file) !== null))
        wrong.push(`${doc}:${line}: section "${heading}" names no test that holds its claims`);
    }
  }
  return wrong;
}

describe('the docs name the tests that hold their claims', () => {
  // A test of kubeforge's; null for a generated project's (`test/controller/..._controller.test.ts`).
  const readTest = (file: string) =>
    existsSync(join(root, file))
      ? readFileSync(join(root, file), 'utf8')
      : existsSync(join(PROJECT, file)) || projectExample(file)
        ? null
        : undefined;

  for (const doc of DOCS) {
    it(`${doc}: every named test file and test title exists${CLAIM_PAGES.includes(doc) ? ', every section names one' : ''}`, () => {
      const text = readFileSync(join(root, doc), 'utf8');
      const required = CLAIM_PAGES.includes(doc);
      assert.deepEqual(claimProblems(doc, text, readTest, required, NO_CLAIM_SECTIONS[doc]), []);
      if (required) {
        const refs = testReferences(text);
        assert.ok(
          refs.some((r) => r.titles.length > 0),
          `${doc} quotes no test title: the title check would pass on anything`,
        );
      }
    });
  }

  it('lists only pages that exist and exempt sections that still exist', () => {
    for (const page of CLAIM_PAGES) assert.ok(DOCS.includes(page), `${page} is not a doc`);
    for (const [page, headings] of Object.entries(NO_CLAIM_SECTIONS)) {
      const present = sections(readFileSync(join(root, page), 'utf8')).map((s) => s.heading);
      for (const h of Object.keys(headings)) assert.ok(present.includes(h), `${page} has no section "${h}"`);
    }
  });

  it('a missing test file, a missing title and a section naming no test fail the check', () => {
    const files: Record<string, string> = {
      'test/a.test.ts':
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a test file's text, with a template-literal title
        "describe('the a', () => {\n  it('keeps its word', () => {});\n  it(`checks ${kind} twice`, () => {});\n  assert.ok(/x/.test('keeps its promise'));\n});\n",
    };
    const doc = [
      '# Page',
      'It keeps its word (held by `test/a.test.ts`: "keeps its word").',
      '## Good',
      'Held by: `test/a.test.ts` ("checks Memcached twice"; "the a"; "keeps its…").',
      '## Bad title',
      'Held by: `test/a.test.ts`: "keeps its promise".',
      '## Bad file',
      'Held by: `test/gone.test.ts`.',
      '## No reference',
      'It does what it says, held by nothing.',
      '```',
      '## not a heading, inside a fence: `test/fenced.test.ts`',
      '```',
      '## Untested claims',
      '- it is fast',
    ].join('\n');
    assert.deepEqual(
      claimProblems('doc.md', doc, (f) => files[f], true),
      [
        'doc.md:6: test/a.test.ts has no test titled "keeps its promise"',
        'doc.md:8: no test file test/gone.test.ts',
        'doc.md:9: section "No reference" names no test that holds its claims',
      ],
    );
    // Without the section rule only the references are checked; an exempt heading is skipped.
    assert.deepEqual(claimProblems('doc.md', doc, (f) => files[f], false).length, 2);
    assert.deepEqual(claimProblems('doc.md', doc, (f) => files[f], true, { 'No reference': 'x' }).length, 2);
  });
});
