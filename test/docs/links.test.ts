// The README stays a front page (at most 400 lines, the references live in docs/), and the docs'
// relative links lead somewhere: every `[text](path)` and `[text](path#anchor)` of README.md,
// ARCHITECTURE.md, bench/README.md and docs/*.md names a file of the repository and, with an
// anchor, a heading of that file (GitHub's heading ids). The README is also read inside the
// installed package (npm shows it, and it sits in node_modules/kubeforge), so package.json's
// "files" ships docs/, ARCHITECTURE.md and bench/README.md with it, and the links of every doc
// the package ships must name files it ships: `npm pack`'s list, computed as kubeforge computes
// it, bar one listed folder.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { DiskHost } from '../../src/machinery/host.js';
import { packFileList } from '../../src/scaffolds/kubeforge-source.js';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();
/** Files a shipped doc links to that the package leaves out, and why the link stays. */
const NOT_SHIPPED: Record<string, string> = {
  'testdata/project':
    "the tutorial's finished project: a repository folder of its own, too large to ship; the tutorial names its path",
};
const README_MAX_LINES = 400;
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

/** Lines of a Markdown text outside fenced code blocks, with their numbers (1-based). */
function prose(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) out.push({ text: line, line: i + 1 });
  });
  return out;
}

/** Relative link targets of a Markdown text (inline code removed first), with their line numbers. */
export function links(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  for (const { text: line, line: n } of prose(text)) {
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z+.-]*:/i.test(m[1])) out.push({ target: m[1], line: n });
    }
  }
  return out;
}

/** GitHub's id of a heading: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2... */
export function headingIds(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of prose(text)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = h[1]
      .toLowerCase()
      .replace(/<[^>]*>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** What is wrong with the links of `doc` (a repository path), one line each naming the link. */
function brokenLinks(doc: string, text = readFileSync(join(root, doc), 'utf8')): string[] {
  const wrong: string[] = [];
  for (const { target, line } of links(text)) {
    const [path, anchor] = target.split('#', 2);
    const file = path === '' ? doc : normalize(join(dirname(doc), decodeURI(path)));
    if (file.startsWith('..')) {
      wrong.push(`${doc}:${line}: ${target} leaves the repository`);
      continue;
    }
    if (!existsSync(join(root, file))) {
      wrong.push(`${doc}:${line}: ${target}: no file ${file}`);
      continue;
    }
    if (anchor === undefined || statSync(join(root, file)).isDirectory() || !file.endsWith('.md')) continue;
    if (!headingIds(readFileSync(join(root, file), 'utf8')).has(anchor))
      wrong.push(`${doc}:${line}: ${target}: ${file} has no heading #${anchor}`);
  }
  return wrong;
}

describe('the docs link to what exists', () => {
  it(`README.md has at most ${README_MAX_LINES} lines (references belong in docs/)`, () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n').length - 1;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`);
  });

  for (const doc of DOCS) {
    it(`${doc}: every relative link resolves to a file and heading`, () => {
      assert.deepEqual(brokenLinks(doc), []);
    });
  }

  it('the docs the package ships link only to files it ships', () => {
    const shipped = new Set(packFileList(new DiskHost(root)));
    const isShipped = (file: string) => shipped.has(file) || [...shipped].some((s) => s.startsWith(`${file}/`));
    const docs = DOCS.filter(isShipped);
    assert.ok(docs.includes('README.md') && docs.includes('docs/commands.md'), `the package ships ${docs.join(', ')}`);
    const missing: string[] = [];
    for (const doc of docs) {
      for (const { target, line } of links(readFileSync(join(root, doc), 'utf8'))) {
        const path = target.split('#')[0];
        if (path === '') continue;
        const file = normalize(join(dirname(doc), decodeURI(path))).replace(/\/$/, '');
        if (!isShipped(file) && !(file in NOT_SHIPPED))
          missing.push(`${doc}:${line}: ${target} (${file} is not in the package)`);
      }
    }
    assert.deepEqual(missing, [], 'add the files to package.json "files", or link otherwise');
    const linked = new Set(
      docs.flatMap((d) =>
        links(readFileSync(join(root, d), 'utf8')).map((l) => normalize(join(dirname(d), l.target.split('#')[0]))),
      ),
    );
    assert.deepEqual(
      Object.keys(NOT_SHIPPED).filter((f) => !linked.has(f)),
      [],
      'NOT_SHIPPED lists a file no doc links to',
    );
  });

  it('the checks catch a wrong file, a wrong anchor and a link out of the repository', () => {
    assert.deepEqual(
      links('[a](docs/x.md) `[b](not/a/link.md)` [c](https://example.com) [d](#here)').map((l) => l.target),
      ['docs/x.md', '#here'],
    );
    const ids = headingIds(
      '# Ship it with Helm\n## The inner loop: `kubeforge dev`\n## Upgrading a project (`alpha update`)\n# Ship it with Helm\n```\n# not a heading\n```\n',
    );
    assert.deepEqual(
      [...ids],
      ['ship-it-with-helm', 'the-inner-loop-kubeforge-dev', 'upgrading-a-project-alpha-update', 'ship-it-with-helm-1'],
    );
    assert.deepEqual(
      brokenLinks(
        'docs/x.md',
        '[a](nope.md) [b](commands.md#no-such-heading) [c](../../outside.md) [d](commands.md#ship-it-with-helm) [e](../README.md)',
      ),
      [
        'docs/x.md:1: nope.md: no file docs/nope.md',
        'docs/x.md:1: commands.md#no-such-heading: docs/commands.md has no heading #no-such-heading',
        'docs/x.md:1: ../../outside.md leaves the repository',
      ],
    );
  });
});
