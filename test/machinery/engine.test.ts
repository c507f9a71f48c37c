import assert from 'node:assert/strict';
import {
  chmodSync,
  closeSync,
  mkdtempSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import {
  applySpecs,
  commit,
  compileSimple,
  deleteStaleManaged,
  hasManagedHeader,
  managedHeader,
  compileTemplate,
  DiskHost,
  formatPlan,
  MemoryHost,
  normalizePath,
  TemplateRenderer,
  Tree,
  withManagedHeader,
} from '../../src/machinery/index.js';
import { must } from '../helpers/must.js';

describe('Tree', () => {
  it('records creates, updates and deletes, sorted by path, and nothing for identical bytes', () => {
    const host = new MemoryHost({ 'same.txt': 'x\n', 'old.txt': 'a\nb\n', 'gone.txt': 'bye\n' });
    const tree = new Tree(host);
    tree.write('z/new.txt', 'n\n');
    tree.write('same.txt', 'x\n');
    tree.write('old.txt', 'a\nc\nd\n');
    tree.delete('gone.txt');
    tree.delete('never-existed.txt');
    assert.deepEqual(
      tree.changes().map((c) => `${c.kind} ${c.path}`),
      ['delete gone.txt', 'update old.txt', 'create z/new.txt'],
    );
    assert.equal(tree.readText('z/new.txt'), 'n\n');
    assert.equal(tree.read('gone.txt'), undefined);
    // Nothing reached the host.
    assert.deepEqual(Object.keys(host.snapshot()), ['gone.txt', 'old.txt', 'same.txt']);
  });

  it('forgets a pending change written back to the host bytes', () => {
    const host = new MemoryHost({ 'a.txt': 'one\n' });
    const tree = new Tree(host);
    tree.write('a.txt', 'two\n');
    tree.write('a.txt', 'one\n');
    assert.deepEqual(tree.changes(), []);
  });

  it('readTextOrThrow names the missing file', () => {
    const tree = new Tree(new MemoryHost({ 'a.txt': 'a\n' }));
    assert.equal(tree.readTextOrThrow('a.txt'), 'a\n');
    assert.throws(
      () => tree.readTextOrThrow('src/main.ts', 'run kubeforge init first'),
      (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        assert.deepEqual(
          [e.diagnostics[0].code, e.diagnostics[0].message, e.diagnostics[0].hint],
          ['KF1104', 'src/main.ts not found in memory:', 'run kubeforge init first'],
        );
        return true;
      },
    );
  });

  it('rejects paths that leave the project folder', () => {
    for (const p of ['../x', '/etc/passwd'])
      assert.throws(
        () => normalizePath(p),
        (e: unknown) =>
          e instanceof DiagnosticError &&
          e.diagnostics[0]?.code === 'KF1101' &&
          /leaves the project folder/.test(e.diagnostics[0].message),
      );
    assert.equal(normalizePath('./a//b/'), 'a/b');
  });
});

describe('formatPlan', () => {
  it('prints CREATE/UPDATE/DELETE with line counts', () => {
    const host = new MemoryHost({ 'b.txt': 'a\nb\nc\n', 'c.txt': 'x\ny\n' });
    const tree = new Tree(host);
    tree.write('a.txt', 'one\ntwo\n');
    tree.write('b.txt', 'a\nB\nc\nd\n');
    tree.delete('c.txt');
    tree.write('d.bin', Buffer.from([0, 1, 2]));
    assert.equal(
      formatPlan(tree.changes()),
      [
        'CREATE a.txt (+2 lines)',
        'UPDATE b.txt (+2 -1 lines)',
        'DELETE c.txt (-2 lines)',
        'CREATE d.bin (binary, 3 bytes)',
        '',
      ].join('\n'),
    );
    assert.equal(formatPlan([]), 'Nothing to change.\n');
  });

  it('colours the verb only when asked', () => {
    const tree = new Tree(new MemoryHost());
    tree.write('a', 'x\n');
    assert.equal(formatPlan(tree.changes(), { color: true }), '\u001b[32mCREATE\u001b[0m a (+1 line)\n');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no terminal escape at all is what this asserts
    assert.doesNotMatch(formatPlan(tree.changes(), { color: false }), /\u001b/);
  });
});

describe('commit', () => {
  it('writes every change to the host', () => {
    const host = new MemoryHost({ 'old.txt': 'a\n', 'gone.txt': 'x\n' });
    const tree = new Tree(host);
    tree.write('dir/new.txt', 'n\n');
    tree.write('old.txt', 'b\n');
    tree.delete('gone.txt');
    commit(host, tree.changes());
    assert.deepEqual(host.snapshot(), { 'dir/new.txt': 'n\n', 'old.txt': 'b\n' });
  });

  it('validates all changes first: one unwritable path means nothing is written', () => {
    const host = new MemoryHost({ config: 'a file where a folder is needed\n' });
    host.readOnly.add('locked');
    const tree = new Tree(host);
    tree.write('a.txt', 'a\n');
    tree.write('config/x.yaml', 'x\n');
    tree.write('locked/y.txt', 'y\n');
    assert.throws(
      () => commit(host, tree.changes()),
      (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        const messages = e.diagnostics.map((d) => `${d.code} ${d.message}`);
        assert.deepEqual(messages, [
          'KF1101 cannot create config/x.yaml: config is a file, so config/x.yaml cannot be created below it',
          'KF1101 cannot create locked/y.txt: locked/y.txt is read-only',
        ]);
        return true;
      },
    );
    assert.deepEqual(host.snapshot(), { config: 'a file where a folder is needed\n' });
  });

  it('puts back what it wrote when a write fails halfway', () => {
    class FailingHost extends MemoryHost {
      override write(path: string, data: Buffer): void {
        if (path === 'm.txt') throw new Error('disk full');
        super.write(path, data);
      }
    }
    const host = new FailingHost({ 'b.txt': 'before\n' });
    const tree = new Tree(host);
    tree.write('a/new.txt', 'new\n');
    tree.write('b.txt', 'after\n');
    tree.write('m.txt', 'boom\n');
    assert.throws(() => commit(host, tree.changes()), /KF1102 writing failed: disk full/);
    assert.deepEqual(host.snapshot(), { 'b.txt': 'before\n' });
  });

  it('on disk: refuses a path below a file and leaves the folder untouched', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-commit-'));
    try {
      writeFileSync(join(dir, 'config'), 'file\n');
      const host = new DiskHost(dir);
      const tree = new Tree(host);
      tree.write('a.txt', 'a\n');
      tree.write('config/default/k.yaml', 'k\n');
      assert.throws(() => commit(host, tree.changes()), /config is a file/);
      assert.deepEqual(readdirSync(dir), ['config']);
      // A good commit creates folders as needed.
      const ok = new Tree(host);
      ok.write('deep/er/file.txt', 'x\n');
      commit(host, ok.changes());
      assert.equal(host.read('deep/er/file.txt')?.toString(), 'x\n');
      mkdirSync(join(dir, 'adir'));
      assert.match(host.whyNotWritable('adir') ?? '', /is a folder/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('DiskHost writes', () => {
  it('replaces a file atomically: a reader holding the old file still reads all of it; mode kept; no temporary left', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-atomic-'));
    try {
      const host = new DiskHost(dir);
      host.write('bin/run.sh', Buffer.from('#!/bin/sh\necho old\n'));
      chmodSync(join(dir, 'bin/run.sh'), 0o755);
      const before = statSync(join(dir, 'bin/run.sh'));
      const fd = openSync(join(dir, 'bin/run.sh'), 'r');
      try {
        host.write('bin/run.sh', Buffer.from('#!/bin/sh\necho new\n'));
        const after = statSync(join(dir, 'bin/run.sh'));
        assert.notEqual(after.ino, before.ino, 'the file was rewritten in place, not renamed into place');
        assert.equal(after.mode & 0o777, 0o755);
        const old = Buffer.alloc(64);
        assert.equal(old.subarray(0, readSync(fd, old, 0, 64, 0)).toString(), '#!/bin/sh\necho old\n');
      } finally {
        closeSync(fd);
      }
      assert.equal(readFileSync(join(dir, 'bin/run.sh'), 'utf8'), '#!/bin/sh\necho new\n');
      assert.deepEqual(readdirSync(join(dir, 'bin')), ['run.sh']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes through a symbolic link (the link stays) and cleans up when the rename fails', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-atomic-'));
    try {
      writeFileSync(join(dir, 'real.txt'), 'old\n');
      symlinkSync('real.txt', join(dir, 'link.txt'));
      const host = new DiskHost(dir);
      host.write('link.txt', Buffer.from('new\n'));
      assert.equal(readFileSync(join(dir, 'real.txt'), 'utf8'), 'new\n');
      assert.ok(statSync(join(dir, 'link.txt')).isFile() && host.read('link.txt')?.toString() === 'new\n');
      mkdirSync(join(dir, 'adir'));
      assert.throws(() => host.write('adir', Buffer.from('x\n')));
      assert.deepEqual(readdirSync(dir).sort(), ['adir', 'link.txt', 'real.txt']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('readHead returns the first bytes, all of a short file, nothing for a folder or a missing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-head-'));
    try {
      writeFileSync(join(dir, 'a.txt'), 'abcdef');
      mkdirSync(join(dir, 'sub'));
      for (const host of [new DiskHost(dir), new MemoryHost({ 'a.txt': 'abcdef', 'sub/x': '' })]) {
        assert.equal(host.readHead('a.txt', 3)?.toString(), 'abc');
        assert.equal(host.readHead('a.txt', 100)?.toString(), 'abcdef');
        assert.equal(host.readHead('missing.txt', 3), undefined);
        assert.equal(host.readHead('sub', 3), undefined);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('managed files', () => {
  it('hasManagedHeader recognises the header of the named tool only, on the first line', () => {
    const host = new MemoryHost({
      'ours.yaml': '# Code generated by gen. DO NOT EDIT.\n---\n',
      'other.yaml': '# Code generated by kubeforge. DO NOT EDIT.\n---\n',
      'later.yaml': '---\n# Code generated by gen. DO NOT EDIT.\n',
      'partial.yaml': '# Code generated by gen. DO NOT EDIT.',
      'x.json': '{}',
    });
    assert.equal(managedHeader('a.yaml', 'gen'), '# Code generated by gen. DO NOT EDIT.');
    assert.equal(managedHeader('a.json', 'gen'), undefined);
    assert.deepEqual(
      ['ours.yaml', 'other.yaml', 'later.yaml', 'partial.yaml', 'x.json', 'missing.yaml'].filter((p) =>
        hasManagedHeader(host, p, 'gen'),
      ),
      ['ours.yaml'],
    );
  });

  it('deleteStaleManaged deletes only our files that are no longer produced, never a user file', () => {
    const header = '# Code generated by gen. DO NOT EDIT.\n';
    const host = new MemoryHost({
      'out/a.yaml': `${header}a: 1\n`,
      'out/b.yaml': `${header}b: 1\n`,
      'out/mine.yaml': 'mine: 1\n',
    });
    const tree = new Tree(host);
    tree.write('out/a.yaml', `${header}a: 2\n`);
    const stale = deleteStaleManaged(
      tree,
      ['out/mine.yaml', 'out/b.yaml', 'out/a.yaml', 'out/none.yaml'],
      ['out/a.yaml'],
      'gen',
    );
    assert.deepEqual(stale, ['out/b.yaml']);
    assert.equal(formatPlan(tree.changes()), 'UPDATE out/a.yaml (+1 -1 line)\nDELETE out/b.yaml (-2 lines)\n');
  });
});

describe('templates and specs', () => {
  const templates = new MemoryHost({
    'hello.hbs': 'Hello {{name}}!\r\n\n\n',
    'missing.hbs': 'Hello {{nobody}}\n',
    'cond.hbs': 'a\n{{#if on}}\nb\n{{/if}}\nc\n',
  });

  it('renders with LF and one trailing newline; unknown variables are errors', async () => {
    const r = new TemplateRenderer(templates);
    assert.equal(await r.render('hello.hbs', { name: 'kube' }), 'Hello kube!\n');
    assert.equal(await r.render('cond.hbs', { on: false }), 'a\nc\n');
    await assert.rejects(r.render('missing.hbs', {}), /template missing\.hbs: "nobody" not defined/);
    await assert.rejects(r.render('nope.hbs', {}), /template nope\.hbs not found/);
    const fn = await compileTemplate('<{{x}}>');
    assert.equal(fn({ x: '&' }), '<&>', 'no HTML escaping');
  });

  it('scaffolded files are never overwritten without force; conflicts are all collected', async () => {
    const host = new MemoryHost({ 'a.txt': 'mine\n', 'b.txt': 'mine too\n', 'same.txt': 'Hello x!\n' });
    const specs = [
      { path: 'a.txt', policy: 'scaffolded' as const, content: 'theirs\n' },
      { path: 'b.txt', policy: 'scaffolded' as const, content: 'theirs\n' },
      { path: 'same.txt', policy: 'scaffolded' as const, template: 'hello.hbs', data: { name: 'x' } },
      { path: 'new.txt', policy: 'scaffolded' as const, content: 'n\n' },
    ];
    const tree = new Tree(host);
    await assert.rejects(applySpecs(tree, specs, new TemplateRenderer(templates)), (e: unknown) => {
      assert.ok(e instanceof DiagnosticError);
      assert.deepEqual(
        e.diagnostics.map((d) => [d.code, d.file]),
        [
          ['KF1103', 'a.txt'],
          ['KF1103', 'b.txt'],
        ],
      );
      assert.match(e.diagnostics[0].hint ?? '', /--force/);
      return true;
    });
    const forced = new Tree(host);
    await applySpecs(forced, specs, new TemplateRenderer(templates), { force: true });
    assert.deepEqual(
      forced.changes().map((c) => `${c.kind} ${c.path}`),
      ['update a.txt', 'update b.txt', 'create new.txt'],
    );
  });

  it('managed files get a DO-NOT-EDIT header in the comment syntax of their format and are regenerated', async () => {
    assert.equal(withManagedHeader('x.yaml', 'a: 1\n'), '# Code generated by kubeforge. DO NOT EDIT.\na: 1\n');
    assert.equal(
      withManagedHeader('src/x.ts', 'export {};\n'),
      '// Code generated by kubeforge. DO NOT EDIT.\nexport {};\n',
    );
    assert.equal(
      withManagedHeader('x.yaml', withManagedHeader('x.yaml', 'a: 1\n')),
      '# Code generated by kubeforge. DO NOT EDIT.\na: 1\n',
    );
    assert.throws(() => withManagedHeader('x.json', '{}'), /needs a format with comments/);
    const host = new MemoryHost({ 'gen.yaml': '# Code generated by kubeforge. DO NOT EDIT.\nold: 1\n' });
    const tree = new Tree(host);
    await applySpecs(tree, [{ path: 'gen.yaml', policy: 'managed', content: 'new: 2\n' }], undefined);
    assert.equal(tree.readText('gen.yaml'), '# Code generated by kubeforge. DO NOT EDIT.\nnew: 2\n');
  });
});

describe('simple templates skip handlebars', () => {
  it('renders exactly what handlebars renders, for every template under templates/', async () => {
    const { DiskHost: Disk } = await import('../../src/machinery/index.js');
    const { packageRoot } = await import('../../src/util/package-root.js');
    const { compileSimple } = await import('../../src/machinery/render.js');
    const { join } = await import('node:path');
    const templates = new Disk(join(packageRoot(), 'templates'));
    const walk = (dir: string): string[] =>
      templates
        .list(dir)
        .flatMap((n) => (templates.kind(`${dir}/${n}`) === 'directory' ? walk(`${dir}/${n}`) : [`${dir}/${n}`]));
    const files = walk('init');
    // Data with every name the templates use, as values that would show any difference.
    const data: Record<string, unknown> = {};
    for (const f of files) {
      for (const m of must(templates.read(f), 'templates .read(f)')
        .toString('utf8')
        .matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)) {
        const keys = m[1].split('.');
        let at = data;
        for (const k of keys.slice(0, -1)) {
          at[k] ??= {};
          at = at[k] as Record<string, unknown>;
        }
        at[keys[keys.length - 1]] = `<${m[1]}>\n`;
      }
    }
    let simple = 0;
    for (const f of files) {
      const source = must(templates.read(f), 'templates.read(f)').toString('utf8');
      const fast = compileSimple(source);
      if (!fast) continue;
      simple++;
      assert.equal(fast(data), (await compileTemplate(source, f))(data), f);
    }
    assert.ok(simple >= 30, `most init templates are simple (${simple} of ${files.length})`);
  });

  it('leaves blocks, helpers, comments and escapes to handlebars; a missing name is an error', async () => {
    for (const t of ['{{#if a}}x{{/if}}', '{{json a}}', '{{! note }}', '\\{{a}}', '{{> part}}', '{{{a}}}'])
      assert.equal(compileSimple(t), undefined, t);
    const fn = must(compileSimple('a={{a}} b={{x.y}}'), "compileSimple('a={{a}} b={{x.y}}')");
    assert.equal(fn({ a: 1, x: { y: null } }), 'a=1 b=');
    assert.throws(() => fn({ a: 1 }), /"x" not defined in x\.y/);
    assert.throws(() => fn({ x: { y: 1 } }), /"a" not defined in the data/);
  });
});
