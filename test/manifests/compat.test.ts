/**
 * `kubeforge manifests --check-compat`: the corpus of before/after CRD pairs
 * (test/fixtures/compat/corpus, each with its expected verdict: rule names, severities, versions,
 * paths), the located diagnostics through the TypeScript of a project (testdata/project copied,
 * its git history as the base), a folder base, --allow, and the refusals (nothing written).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { run } from '../../src/cli/index.js';
import { validateObject } from '@kubeforge/cel';
import { COMPAT_RULES, checkCompat, diffCRDs, generatedRuleKey, type CompatBase } from '../../src/manifests/compat.js';
import type { CRDManifest } from '../../src/manifests/crd.js';
import { treeHash } from '../helpers/tree.js';
import { linkKubeforgeDependencies } from '../helpers/cli.js';
import { must } from '../helpers/must.js';

const repo = process.env.KUBEFORGE_REPO_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = join(repo, 'test/fixtures/compat/corpus');

type Obj = Record<string, unknown>;
interface Expected {
  rule: string;
  severity: string;
  version?: string;
  path?: string;
}

const key = (f: Expected) => `${f.rule} ${f.severity} ${f.version ?? '-'} ${f.path ?? '-'}`;

describe('check-compat corpus: before/after CRD pairs', () => {
  const files = readdirSync(corpus)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  it('holds at least 40 pairs, and every rule is met by one', () => {
    assert.ok(files.length >= 40, `${files.length} pairs`);
    const met = new Set(
      files.flatMap((f) =>
        ((parse(readFileSync(join(corpus, f), 'utf8')) as { expect: Expected[] }).expect ?? []).map((e) => e.rule),
      ),
    );
    const unmet = COMPAT_RULES.map((r) => r.name).filter((n) => !met.has(n) && n !== 'crd-removed');
    assert.deepEqual(unmet, [], 'rules no corpus pair shows');
  });
  for (const f of files) {
    it(f, () => {
      const c = parse(readFileSync(join(corpus, f), 'utf8')) as { expect: Expected[]; before: Obj; after: Obj };
      const found = diffCRDs(c.before, c.after);
      assert.deepEqual(
        found.map((x) => key({ rule: x.rule, severity: x.severity, version: x.version, path: x.path })).sort(),
        c.expect.map(key).sort(),
      );
      for (const x of found) assert.ok(x.message.length > 20, `a message says why: ${x.message}`);
    });
  }
  it("controller-gen's one-of rule forms that compare equal give the same verdict on every object (CEL evaluation)", () => {
    const c = parse(
      readFileSync(
        join(
          corpus,
          must(
            files.find((f) => f.includes('cel-oneof-generator-forms')),
            'the cel-oneof-generator-forms case',
          ),
        ),
        'utf8',
      ),
    ) as {
      before: Obj;
      after: Obj;
    };
    const spec = (crd: Obj) =>
      (crd as { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: Obj } } } }[] } }).spec.versions[0]
        .schema.openAPIV3Schema.properties.spec;
    const rules = (crd: Obj) => (spec(crd)['x-kubernetes-validations'] as { rule: string }[]).map((r) => r.rule);
    const [old, now] = [rules(c.before), rules(c.after)];
    assert.equal(old.length, 3);
    for (let i = 0; i < old.length; i++) {
      assert.equal(generatedRuleKey(old[i]), generatedRuleKey(now[i]));
      assert.notEqual(generatedRuleKey(old[i]), undefined);
      for (let bits = 0; bits < 8; bits++) {
        const value = Object.fromEntries(['a', 'b', 'c'].filter((_, k) => bits & (1 << k)).map((f) => [f, 'x']));
        const verdict = (rule: string) =>
          validateObject({ ...spec(c.after), 'x-kubernetes-validations': [{ rule }] } as never, value).length === 0;
        assert.equal(verdict(old[i]), verdict(now[i]), `${old[i]} vs ${now[i]} on ${JSON.stringify(value)}`);
      }
    }
    // Not every rule has a key: a hand-written one, or the same shape over other fields, differs.
    assert.equal(generatedRuleKey('self.a == self.b'), undefined);
    assert.notEqual(generatedRuleKey('has(self.a)||has(self.b)'), generatedRuleKey('has(self.a)||has(self.c)'));
  });

  it('a renamed field: the message names the likely new name', () => {
    const c = parse(
      readFileSync(
        join(
          corpus,
          must(
            files.find((f) => f.includes('field-renamed')),
            'the field-renamed case',
          ),
        ),
        'utf8',
      ),
    ) as {
      before: Obj;
      after: Obj;
    };
    assert.match(diffCRDs(c.before, c.after)[0].message, /renamed to \.spec\.title\?/);
  });
  it('a CRD of the base that is no longer generated is crd-removed (not with --paths), and --allow downgrades errors and drops warnings', () => {
    // The corpus' `after` stands for a generated CRD.
    const c = parse(
      readFileSync(
        join(
          corpus,
          must(
            files.find((f) => f.includes('several-changes')),
            'the several-changes case',
          ),
        ),
        'utf8',
      ),
    ) as {
      before: Obj;
      after: CRDManifest;
    };
    const other = structuredClone(c.before) as { spec: { names: { kind: string } } };
    other.spec.names.kind = 'Gadget';
    const base: CompatBase = {
      label: 'v1.0.0',
      kind: 'folder',
      crds: [
        { crd: c.before, source: 'a.yaml' },
        { crd: other as unknown as Obj, source: 'b.yaml' },
      ],
    };
    const all = checkCompat(base, [c.after]);
    assert.deepEqual(
      all
        .map(
          (d) => `${d.code} ${d.severity} ${must(/^\[([a-z-]+)\]/.exec(d.message), `the [rule] of ${d.message}`)[1]}`,
        )
        .sort(),
      [
        'KF4710 error enum-narrowed',
        'KF4710 error field-removed',
        'KF4710 error maximum-tightened',
        'KF4711 error crd-removed',
      ],
    );
    assert.equal(checkCompat(base, [c.after], { partial: true }).length, 3);
    const allowed = checkCompat(base, [c.after], { allow: new Set(['field-removed', 'crd-removed']) });
    assert.deepEqual(
      allowed.filter((d) => d.severity === 'warning').map((d) => d.code),
      ['KF4712', 'KF4712'],
    );
    assert.ok(allowed.filter((d) => d.severity === 'warning').every((d) => d.message.endsWith('(allowed by --allow)')));
  });
});

// ---------------------------------------------------------------------------------------------
// Through the CLI, on a copy of testdata/project with its own git history.

const staged: string[] = [];
after(() => {
  for (const d of staged) rmSync(d, { recursive: true, force: true });
});

function git(dir: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args],
    { encoding: 'utf8' },
  );
}

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-compat-'));
  staged.push(dir);
  cpSync(join(repo, 'testdata/project'), dir, { recursive: true });
  linkKubeforgeDependencies(repo, dir);
  mkdirSync(join(dir, 'node_modules/.bin'));
  symlinkSync(join(repo, 'bin/kubeforge.js'), join(dir, 'node_modules/.bin/kubeforge'));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'release');
  git(dir, 'tag', 'v1.0.0');
  return dir;
}

async function cli(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

function diagnosticLines(
  stderr: string,
): { file: string; line: number; column: number; code: string; message: string }[] {
  const out = [];
  for (const l of stderr.split('\n')) {
    const m = /^(\S+):(\d+):(\d+) {2}(KF\d{4}) {2}(.*)$/.exec(l);
    if (m) out.push({ file: m[1], line: Number(m[2]), column: Number(m[3]), code: m[4], message: m[5] });
  }
  return out;
}

const TYPES = 'src/api/v1/cronjob_types.ts';

function edit(dir: string, from: string, to: string): void {
  const p = join(dir, TYPES);
  const text = readFileSync(p, 'utf8');
  assert.ok(text.includes(from), `${from} in ${TYPES}`);
  writeFileSync(p, text.replace(from, to));
}

/** 1-based line and column of the first occurrence of `needle` in the project's types file. */
function lineOf(dir: string, needle: string): { line: number; column: number } {
  const lines = readFileSync(join(dir, TYPES), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, needle);
  return { line: i + 1, column: lines[i].indexOf(needle.trim()) + 1 };
}

describe('kubeforge manifests --check-compat (CLI, testdata/project)', () => {
  it('testdata/project against its own committed CRDs (git ref and folder): no findings, exit 0', async () => {
    const dir = project();
    const byRef = await cli(['manifests', '--check-compat', 'v1.0.0', '--check'], dir);
    assert.equal(byRef.code, 0, byRef.err);
    assert.match(byRef.out, /check-compat: 1 CRD compared with v1\.0\.0: no incompatible change/);
    const byFolder = await cli(
      ['manifests', '--check-compat', join(repo, 'testdata/project/config/crd/bases'), '--check'],
      dir,
    );
    assert.equal(byFolder.code, 0, byFolder.err);
    assert.match(byFolder.out, /no incompatible change/);
    // The project's Makefile: make check-compat compares with the latest tag, writing nothing.
    const make = spawnSync('make', ['check-compat'], { cwd: dir, encoding: 'utf8' });
    assert.equal(make.status, 0, make.stderr);
    assert.match(make.stdout, /check-compat: 1 CRD compared with v1\.0\.0: no incompatible change/);
  });

  it('make check-compat fails on a breaking change, and says so when there is no tag', async () => {
    const dir = project();
    edit(dir, '  @Minimum(0)\n  startingDeadlineSeconds?: int64;', '  @Minimum(5)\n  startingDeadlineSeconds?: int64;');
    const before = treeHash(dir, ['node_modules', '.git']);
    const make = spawnSync('make', ['check-compat'], { cwd: dir, encoding: 'utf8' });
    assert.notEqual(make.status, 0);
    assert.match(make.stderr, /KF4710 {2}\[minimum-tightened\]/);
    assert.equal(treeHash(dir, ['node_modules', '.git']), before);
    git(dir, 'tag', '-d', 'v1.0.0');
    const untagged = spawnSync('make', ['check-compat'], { cwd: dir, encoding: 'utf8' });
    assert.equal(untagged.status, 0, untagged.stderr);
    assert.match(untagged.stdout, /no git tag and no COMPAT_BASE=<git-ref\|dir>: nothing to compare with/);
  });

  it('breaking edits of the types: errors located at the TypeScript fields, exit 1, nothing written', async () => {
    const dir = project();
    edit(dir, '  @Minimum(0)\n  startingDeadlineSeconds?: int64;', '  @Minimum(5)\n  startingDeadlineSeconds?: int64;');
    edit(
      dir,
      "export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';",
      "export type ConcurrencyPolicy = 'Allow' | 'Forbid';",
    );
    edit(dir, '  suspend?: boolean;\n', '');
    edit(dir, '  MinLength,\n  Minimum,', '  Maximum,\n  MinLength,\n  Minimum,');
    edit(
      dir,
      '  @Minimum(0)\n  failedJobsHistoryLimit?: int32;',
      '  @Minimum(0)\n  @Maximum(10)\n  failedJobsHistoryLimit?: int32;',
    );
    const before = treeHash(dir, ['node_modules', '.git']);
    const r = await cli(['manifests', '--check-compat', 'v1.0.0'], dir);
    assert.equal(r.code, 1, r.out);
    const found = diagnosticLines(r.err).filter((d) => d.code.startsWith('KF47'));
    const at = (rule: string) => found.find((d) => d.message.startsWith(`[${rule}]`));
    const the = (rule: string) => must(at(rule), `a [${rule}] diagnostic`);
    const deadline = lineOf(dir, 'startingDeadlineSeconds?: int64;');
    assert.deepEqual(
      { ...at('minimum-tightened'), message: undefined },
      { file: TYPES, ...deadline, code: 'KF4710', message: undefined },
    );
    assert.match(the('minimum-tightened').message, /\.spec\.startingDeadlineSeconds: minimum >= 0 -> >= 5/);
    const policy = lineOf(dir, 'concurrencyPolicy?: ConcurrencyPolicy;');
    assert.deepEqual([the('enum-narrowed').line, the('enum-narrowed').column], [policy.line, policy.column]);
    assert.match(the('enum-narrowed').message, /"Replace" removed/);
    const failed = lineOf(dir, 'failedJobsHistoryLimit?: int32;');
    assert.deepEqual([the('maximum-tightened').line, the('maximum-tightened').column], [failed.line, failed.column]);
    // A removed field is located at the object that held it: the spec field of the Kind.
    const spec = lineOf(dir, 'spec!: CronJobSpec;');
    assert.deepEqual([the('field-removed').line, the('field-removed').column], [spec.line, spec.column]);
    assert.match(the('field-removed').message, /\.spec\.suspend is removed/);
    assert.equal(found.length, 4, r.err);
    assert.equal(treeHash(dir, ['node_modules', '.git']), before, 'nothing written');

    // --allow by rule name: the errors become warnings, the run writes.
    const allowed = await cli(
      [
        'manifests',
        '--check-compat',
        'v1.0.0',
        '--allow',
        'minimum-tightened',
        '--allow',
        'enum-narrowed',
        '--allow',
        'field-removed',
        '--allow',
        'maximum-tightened',
      ],
      dir,
    );
    assert.equal(allowed.code, 0, allowed.err);
    assert.equal(diagnosticLines(allowed.err).filter((d) => d.code === 'KF4712').length, 4);
    assert.match(allowed.out, /UPDATE config\/crd\/bases\/batch\.tutorial\.kubebuilder\.io_cronjobs\.yaml/);
    assert.match(allowed.out, /check-compat: 1 CRD compared with v1\.0\.0: 4 findings/);
  });

  it('compatible edits (a new optional field, a loosened bound) pass and write', async () => {
    const dir = project();
    edit(
      dir,
      '  @Minimum(0)\n  startingDeadlineSeconds?: int64;',
      '  @Minimum(-1)\n  startingDeadlineSeconds?: int64;\n\n  /** A new field. */\n  paused?: boolean;',
    );
    const r = await cli(['manifests', '--check-compat', 'v1.0.0'], dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /no incompatible change/);
    assert.match(
      readFileSync(join(dir, 'config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml'), 'utf8'),
      /paused:/,
    );
  });

  it('a Kind class renamed: crd-removed at the released file; scope changed at @Resource', async () => {
    const dir = project();
    edit(
      dir,
      "@Resource({ shortName: ['cj'], categories: ['all'] })",
      "@Resource({ shortName: ['cj'], categories: ['all'], scope: 'Cluster' })",
    );
    const r = await cli(['manifests', '--check-compat', 'v1.0.0', '--check'], dir);
    assert.equal(r.code, 1);
    const d = must(
      diagnosticLines(r.err).find((x) => x.message.startsWith('[scope-changed]')),
      'a [scope-changed] diagnostic',
    );
    assert.deepEqual(
      [d.file, d.line, d.column],
      [TYPES, lineOf(dir, '@Resource(').line, lineOf(dir, '@Resource(').column],
    );
  });

  it('the status subresource removed: status-subresource-removed at the Kind class, exit 1', async () => {
    const dir = project();
    edit(dir, '@SubresourceStatus()\n', '');
    const r = await cli(['manifests', '--check-compat', 'v1.0.0', '--check'], dir);
    assert.equal(r.code, 1, r.out);
    const found = diagnosticLines(r.err).filter((d) => d.code.startsWith('KF47'));
    assert.deepEqual(
      found.map((d) => d.code),
      ['KF4710'],
      r.err,
    );
    assert.match(
      found[0].message,
      /^\[status-subresource-removed\] CronJob \(batch\.tutorial\.kubebuilder\.io\) v1: version v1 no longer has the status subresource: reads and writes of \/status get 404/,
    );
    const kind = lineOf(dir, 'export class CronJob {');
    assert.deepEqual([found[0].file, found[0].line], [TYPES, kind.line]);
  });

  it('refusals: unknown ref, unknown rule, --allow alone, a folder without CRDs; each with its code and nothing written', async () => {
    const dir = project();
    const before = treeHash(dir, ['node_modules', '.git']);
    const cases: [string[], RegExp][] = [
      [['--check-compat', 'v9.9.9'], /KF4700 {2}--check-compat v9\.9\.9: no such folder, and no such git ref/],
      [
        ['--check-compat', 'v1.0.0', '--allow', 'no-such-rule'],
        /KF4702 {2}--allow no-such-rule: no compatibility rule has this name/,
      ],
      [['--allow', 'field-removed'], /KF4703 {2}--allow names compatibility rules and needs --check-compat/],
      [['--check-compat', 'src'], /KF4701 {2}--check-compat src: no CustomResourceDefinition/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(['manifests', ...args], dir);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.err, message);
      assert.match(r.err, /hint: /);
    }
    const notGit = mkdtempSync(join(tmpdir(), 'kf-compat-nogit-'));
    staged.push(notGit);
    cpSync(join(repo, 'testdata/project'), notGit, { recursive: true });
    const r = await cli(['manifests', '--check-compat', 'v1.0.0'], notGit);
    assert.equal(r.code, 1);
    assert.match(r.err, /KF4700 {2}--check-compat v1\.0\.0: not a folder, and .* is not in a git repository/);
    assert.equal(treeHash(dir, ['node_modules', '.git']), before);
  });

  it('a git ref without CRDs under config/crd/bases is KF4701, exit 1 and nothing written: not a silent pass', async () => {
    const dir = project();
    // A commit before the CRDs existed: config/crd/bases gone (one file of another kind left there).
    git(dir, 'rm', '-q', '-r', 'config/crd/bases');
    mkdirSync(join(dir, 'config/crd/bases'), { recursive: true });
    writeFileSync(join(dir, 'config/crd/bases/notes.yaml'), 'kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: x\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'no CRDs yet');
    git(dir, 'tag', 'v0.1.0');
    git(dir, 'checkout', '-q', 'v1.0.0', '--', 'config/crd/bases');
    rmSync(join(dir, 'config/crd/bases/notes.yaml'));
    const before = treeHash(dir, ['node_modules', '.git']);
    const r = await cli(['manifests', '--check-compat', 'v0.1.0'], dir);
    assert.equal(r.code, 1, r.err);
    assert.match(
      r.err,
      /KF4701 {2}--check-compat v0\.1\.0: no CustomResourceDefinition under config\/crd\/bases at v0\.1\.0 \(1 \.yaml file, none a CRD\): nothing to compare with/,
    );
    assert.match(r.err, /hint: /);
    assert.equal(treeHash(dir, ['node_modules', '.git']), before);
  });

  it('a base file that is not YAML is KF4701 at the file', async () => {
    const dir = project();
    const base = join(dir, 'released');
    mkdirSync(base);
    writeFileSync(join(base, 'bad.yaml'), 'kind: [unclosed\n');
    const r = await cli(['manifests', '--check-compat', 'released'], dir);
    assert.equal(r.code, 1);
    assert.match(r.err, /released\/bad\.yaml:\d+:\d+ {2}KF4701 {2}.* is not valid YAML/);
  });
});

describe('docs/manifests.md: CRD compatibility', () => {
  it('lists every rule with its severity and summary, as COMPAT_RULES has them', () => {
    const doc = readFileSync(join(repo, 'docs/manifests.md'), 'utf8');
    const start = doc.indexOf('## CRD compatibility (`manifests --check-compat`)');
    assert.ok(start >= 0, 'docs/manifests.md has no CRD compatibility section');
    const section = doc.slice(start);
    for (const r of COMPAT_RULES)
      assert.ok(section.includes(`| \`${r.name}\` | ${r.severity} | ${r.summary.replace(/\|/g, '\\|')} |`), r.name);
  });
});
