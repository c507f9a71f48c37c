// `kubeforge docs`: the API reference written from the CRDs `manifests` wrote. Golden pages for the
// conformance fixtures and the validation / kinds / types goldens (every marker kind: bounds, enums,
// patterns, defaults, CEL rules, printer columns, several versions); then what the command owes
// the disk: the same bytes twice, stale pages removed, a user's file never replaced, --check.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { code, planDocs, readCRDs, renderKindPage } from '../../src/manifests/docs.js';
import { MemoryHost } from '../../src/machinery/index.js';
import { run } from '../../src/cli/index.js';
import { assertGoldenFile } from '../helpers/golden.js';
import { packageRoot } from '../../src/util/package-root.js';
import { must } from '../helpers/must.js';
import type { Obj } from '../helpers/chart.js';

const root = packageRoot();
const SOURCES = [
  ...[
    'bar.example.com_foos',
    'plural.example.com_testquotas',
    'testdata.kubebuilder.io_enums',
    'testdata.kubebuilder.io_externaldocs',
    'testdata.kubebuilder.io_jobs',
    'testdata.kubebuilder.io_versionedresources',
  ].map((n) => `test/fixtures/manifests/conformance/${n}/expected.yaml`),
  ...['kinds', 'types', 'validation'].map((n) => `test/fixtures/manifests/golden/${n}/expected.yaml`),
];

function hostWithCRDs(): MemoryHost {
  const host = new MemoryHost();
  for (const [i, src] of SOURCES.entries())
    host.write(`config/crd/bases/${String(i).padStart(2, '0')}.yaml`, readFileSync(join(root, src)));
  return host;
}

/** The text of each CommonMark code span in `md` (backtick strings of equal length; one space stripped each side when both are spaces). */
function codeSpans(md: string): string[] {
  const out: string[] = [];
  const re = /(`+)([\s\S]*?[^`])\1(?!`)/g;
  for (const m of md.matchAll(re)) {
    let t = m[2];
    if (t.length > 2 && t.startsWith(' ') && t.endsWith(' ') && t.trim() !== '') t = t.slice(1, -1);
    out.push(t);
  }
  return out;
}

describe('code spans show their text exactly', () => {
  it('a backtick in an enum value, a pattern or a CEL rule stays a backtick (it was shown as an apostrophe)', () => {
    for (const s of ['a`b', '`a', 'b`', 'a``b`c', '`', ' lead', 'self.`x-y` > 0', "it's"]) {
      const md = `text ${code(s)} more`;
      assert.deepEqual(codeSpans(md), [s], `${s} -> ${md}`);
    }
  });

  it('in a page: the enum value and the rule as the CRD has them', () => {
    const crd = readCRDs(hostWithCRDs())[0] as unknown as Obj;
    const version = crd.versions[0];
    version.schema.properties.spec ??= { type: 'object', properties: {} };
    const spec = version.schema.properties.spec;
    spec.properties = {
      ...(spec.properties ?? {}),
      quoted: { type: 'string', enum: ['a`b', '`edge'], 'x-kubernetes-validations': [{ rule: 'self != `x`' }] },
    };
    const page = renderKindPage(crd as never);
    const spans = codeSpans(page);
    assert.ok(spans.includes('"a`b"'), page);
    assert.ok(spans.includes('"`edge"'));
    assert.ok(spans.includes('self != `x`'));
    assert.doesNotMatch(page, /"a'b"/);
  });
});

describe('kubeforge docs', () => {
  const work = mkdtempSync(join(tmpdir(), 'kf-docs-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('renders every Kind of the fixtures as test/golden/docs has it (fields, types, defaults, bounds, rules, columns, versions)', () => {
    const host = hostWithCRDs();
    const changes = planDocs(host).changes();
    assert.ok(changes.length >= 10, `${changes.length} pages`);
    for (const c of changes)
      assertGoldenFile(
        must(c.content, `the content of ${c.path}`).toString('utf8'),
        join('docs', c.path.replace(/^docs\/reference\//, '')),
      );
    const validation = changes.map((c) => must(c.content, `the content of ${c.path}`).toString('utf8')).join('\n');
    for (const shown of [
      /Checked: .*>= \d/,
      /one of `"/,
      /matches `/,
      /Default: `/,
      /rule `self/,
      /`kubectl get` shows:/,
      /\| Version \| Served \| Storage \| Deprecated \|/,
    ])
      assert.match(validation, shown);
  });

  it('is deterministic, and a second run after the first plans nothing', () => {
    const a = hostWithCRDs();
    const b = hostWithCRDs();
    const first = planDocs(a).changes();
    assert.deepEqual(
      planDocs(b)
        .changes()
        .map((c) => [c.path, must(c.content, `the content of ${c.path}`).toString('utf8')]),
      first.map((c) => [c.path, must(c.content, `the content of ${c.path}`).toString('utf8')]),
    );
    for (const c of first) a.write(c.path, must(c.content, `the content of ${c.path}`));
    assert.deepEqual(planDocs(a).changes(), []);
    // the CRD of a Kind removed: its page goes, the rest stays
    const crds = readCRDs(a);
    a.remove('config/crd/bases/00.yaml');
    const gone = planDocs(a).changes();
    assert.deepEqual(
      gone.filter((c) => c.kind === 'delete').map((c) => c.path),
      [
        `docs/reference/${
          must(
            crds.find((c) => c.kind === 'Foo'),
            'the Foo CRD',
          ).group
        }_foos.md`,
      ],
    );
    assert.deepEqual(
      gone.filter((c) => c.kind !== 'delete').map((c) => c.path),
      ['docs/reference/README.md'],
    );
  });

  it('refuses to replace a file it did not write (KF4512), and needs CRDs (KF4510)', () => {
    const host = hostWithCRDs();
    host.write('docs/reference/README.md', Buffer.from('# my own notes\n'));
    assert.throws(
      () => planDocs(host),
      (e: unknown) =>
        e instanceof DiagnosticError &&
        e.diagnostics[0].code === 'KF4512' &&
        /docs\/reference\/README\.md exists and was not written by kubeforge docs/.test(e.diagnostics[0].message),
    );
    assert.throws(
      () => planDocs(new MemoryHost()),
      (e: unknown) =>
        e instanceof DiagnosticError &&
        e.diagnostics[0].code === 'KF4510' &&
        /run kubeforge manifests/.test(e.diagnostics[0].hint ?? ''),
    );
  });

  it('the command writes the pages, --check fails on a stale page (KF4513) and passes once written', async () => {
    const project = join(work, 'project');
    mkdirSync(join(project, 'config/crd/bases'), { recursive: true });
    cpSync(join(root, 'testdata/project/config/crd/bases'), join(project, 'config/crd/bases'), { recursive: true });
    const cli = async (...args: string[]) => {
      let out = '';
      let err = '';
      const code = await run(['node', 'kubeforge', ...args], {
        cwd: project,
        color: false,
        out: (t) => {
          out += t;
        },
        err: (t) => {
          err += t;
        },
      });
      return { code, out, err };
    };
    const check1 = await cli('docs', '--check');
    assert.equal(check1.code, 1);
    assert.match(check1.err, /KF4513/);
    assert.equal(existsSync(join(project, 'docs')), false, '--check writes nothing');
    const wrote = await cli('docs');
    assert.equal(wrote.code, 0, wrote.err);
    assert.match(wrote.out, /^CREATE docs\/reference\/batch\.tutorial\.kubebuilder\.io_cronjobs\.md/m);
    assert.equal((await cli('docs', '--check')).code, 0);
    const page = join(project, 'docs/reference/batch.tutorial.kubebuilder.io_cronjobs.md');
    writeFileSync(page, readFileSync(page, 'utf8').replace('# CronJob', '# CronJob (edited)'));
    assert.equal((await cli('docs', '--check')).code, 1, 'an edited page is stale');
    const md = renderKindPage(readCRDs(new (await import('../../src/machinery/index.js')).DiskHost(project))[0]);
    assert.match(md, /^# CronJob$/m);
  });
});
