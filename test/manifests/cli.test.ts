/**
 * `kubeforge manifests` end to end through the CLI: in process via `run(argv, ctx)` with a
 * capturing context, and as a real subprocess through bin/kubeforge.js. Fixture projects are
 * copied to a temporary folder whose node_modules links kubeforge and @kubernetes/client-node
 * back to this repository.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { GENERATED_HEADER } from '../../src/manifests/managed-files.js';
import { treeHash } from '../helpers/tree.js';
import { linkKubeforgeDependencies } from '../helpers/cli.js';

const repo = process.env.KUBEFORGE_REPO_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = join(repo, 'test/fixtures/manifests');

const staged: string[] = [];
after(() => {
  for (const d of staged) rmSync(d, { recursive: true, force: true });
});

/** Copies a fixture project to a temporary folder and links its dependencies. */
function stage(fixture: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-cli-'));
  staged.push(dir);
  cpSync(join(fixtures, fixture), dir, { recursive: true });
  linkKubeforgeDependencies(repo, dir);
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

function bin(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [join(repo, 'bin/kubeforge.js'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', KUBEFORGE_GENERATOR_VERSION: 'test' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Runs bin/kubeforge.js with a module-resolve hook; returns its exit code and the npm packages it resolved. */
function binPackages(args: string[], cwd: string): { code: number | null; packages: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'kf-loaded-'));
  staged.push(dir);
  const log = join(dir, 'packages.txt');
  const hooks = `
    import { appendFileSync } from 'node:fs';
    export async function resolve(specifier, context, nextResolve) {
      const result = await nextResolve(specifier, context);
      const parts = result.url.split('/node_modules/');
      if (parts.length > 1) {
        const p = parts[parts.length - 1].split('/');
        appendFileSync(${JSON.stringify(log)}, (p[0].startsWith('@') ? p[0] + '/' + p[1] : p[0]) + '\\n');
      }
      return result;
    }`;
  // ES modules through the resolve hook; CommonJS require() (ts-morph is loaded with it) through Module._resolveFilename.
  const requires = `
    import Module from 'node:module';
    import { appendFileSync } from 'node:fs';
    const resolveFilename = Module._resolveFilename;
    Module._resolveFilename = function (...args) {
      const file = resolveFilename.apply(this, args);
      const parts = String(file).split('/node_modules/');
      if (parts.length > 1) {
        const p = parts[parts.length - 1].split('/');
        appendFileSync(${JSON.stringify(log)}, (p[0].startsWith('@') ? p[0] + '/' + p[1] : p[0]) + '\\n');
      }
      return file;
    };`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)}); ${requires}`;
  const r = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, join(repo, 'bin/kubeforge.js'), ...args],
    {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
  return { code: r.status, packages: [...new Set(text.split('\n').filter(Boolean))].sort() };
}

/** The `file:line:col  CODE  message` lines of a diagnostics report. */
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

describe('kubeforge manifests (CLI)', () => {
  it('--help lists the flags with examples', async () => {
    const { code, out } = await cli(['manifests', '--help'], repo);
    assert.equal(code, 0);
    for (const flag of [
      '--check',
      '--dry-run',
      '--paths',
      '--project',
      '--generator-version',
      'Examples:',
      'kubeforge manifests --check',
    ]) {
      assert.ok(out.includes(flag), `--help does not mention ${flag}`);
    }
  });

  it('fails with a located error when the project folder has no tsconfig.json, writing nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-cli-empty-'));
    staged.push(dir);
    const { code, err } = await cli(['manifests', '--project', dir], repo);
    assert.equal(code, 1);
    assert.match(err, /KF4504 {2}no tsconfig\.json in /);
    assert.match(err, /hint: run kubeforge manifests from the project root, or pass --project <dir>/);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('the real binary exits 1 on a missing project folder', () => {
    const r = bin(['manifests', '--project', join(tmpdir(), 'kf-does-not-exist')], repo);
    assert.equal(r.code, 1);
    assert.match(r.err, /KF4503 {2}project folder .* does not exist/);
  });

  it('RBAC: writes the merged ClusterRole and namespaced Role; a second run and --check find nothing to do', async () => {
    const dir = stage('rbac/valid');
    const first = await cli(['manifests', '--generator-version', 'test'], dir);
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /CREATE config\/rbac\/role\.yaml/);
    assert.equal(
      readFileSync(join(dir, 'config/rbac/role.yaml'), 'utf8'),
      `${GENERATED_HEADER}---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- nonResourceURLs:
  - /metrics
  verbs:
  - get
- apiGroups:
  - ""
  resources:
  - events
  verbs:
  - create
  - patch
- apiGroups:
  - fixtures.kubeforge.io
  resources:
  - widgets
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - fixtures.kubeforge.io
  resources:
  - widgets/finalizers
  verbs:
  - update
- apiGroups:
  - fixtures.kubeforge.io
  resources:
  - widgets/status
  verbs:
  - get
  - patch
  - update
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: manager-role
  namespace: widget-system
rules:
- apiGroups:
  - ""
  resources:
  - secrets
  verbs:
  - get
`,
    );
    assert.ok(!existsSync(join(dir, 'config/webhook/manifests.yaml')), 'no webhook, no webhook manifest');
    const again = await cli(['manifests', '--generator-version', 'test'], dir);
    assert.equal(again.code, 0);
    assert.equal(again.out, 'manifests are up to date\n');
    const check = bin(['manifests', '--check'], dir);
    assert.equal(check.code, 0, check.err);
  });

  it('a run with nothing changed answers from the cache without loading ts-morph', () => {
    const dir = stage('rbac/valid');
    const cold = binPackages(['manifests'], dir);
    assert.equal(cold.code, 0);
    assert.ok(
      cold.packages.includes('ts-morph'),
      `the cold run should load ts-morph (the detection works): ${cold.packages.join(', ')}`,
    );
    const again = binPackages(['manifests'], dir);
    assert.equal(again.code, 0);
    assert.deepEqual(
      again.packages.filter((p) =>
        ['ts-morph', '@ts-morph/common', 'typescript', '@kubernetes/client-node'].includes(p),
      ),
      [],
    );
    const check = binPackages(['manifests', '--check'], dir);
    assert.equal(check.code, 0);
    assert.ok(!check.packages.includes('ts-morph'));
  });

  it('webhooks: one Mutating (named by @WebhookConfiguration) and one Validating configuration', async () => {
    const dir = stage('webhook/valid');
    const r = await cli(['manifests', '--generator-version', 'test'], dir);
    assert.equal(r.code, 0, r.err);
    const text = readFileSync(join(dir, 'config/webhook/manifests.yaml'), 'utf8');
    assert.ok(
      text.startsWith(
        `${GENERATED_HEADER}---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: widget-mutator\n`,
      ),
    );
    assert.match(
      text,
      /\n---\napiVersion: admissionregistration.k8s.io\/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n {2}name: validating-webhook-configuration\n/,
    );
    assert.match(text, / {2}reinvocationPolicy: IfNeeded\n/);
    assert.match(text, / {2}timeoutSeconds: 5\n/);
    assert.match(
      text,
      / {4}service:\n {6}name: webhook-service\n {6}namespace: system\n {6}path: \/validate-fixtures-kubeforge-io-v1-widget\n/,
    );
    // The selectors and conditions of the marker (controller-tools v0.22), keys in controller-gen's order.
    assert.match(
      text,
      / {2}matchConditions:\n {2}- expression: request.namespace != 'kube-system'\n {4}name: not-kube-system\n {2}name: vwidget.kb.io\n {2}namespaceSelector:\n {4}matchExpressions:\n {4}- key: webhooks.fixtures.kubeforge.io\/skip\n {6}operator: DoesNotExist\n {2}objectSelector:\n {4}matchLabels:\n {6}app.kubernetes.io\/managed-by: widgets\n/,
    );
  });

  it('webhooks: admissionReviewVersions without v1 or v1beta1 is refused at its @Webhook (KF4204), exit 1, the disk unchanged; [v1] and [v1beta1, v1] pass', async () => {
    const dir = stage('webhook/valid');
    const file = join(dir, 'src/webhook/widget_webhook.ts');
    const source = readFileSync(file, 'utf8');
    // The second @Webhook (vwidget.kb.io) gets the versions under test.
    const vwidget = source.indexOf('@Webhook({', source.indexOf('@Webhook({') + 1);
    const at = source.slice(0, vwidget).split('\n').length;
    const withVersions = (versions: string) => {
      const i = source.indexOf("admissionReviewVersions: ['v1'],", vwidget);
      writeFileSync(
        file,
        `${source.slice(0, i)}admissionReviewVersions: ${versions},${source.slice(i + "admissionReviewVersions: ['v1'],".length)}`,
      );
    };
    const manifests = join(dir, 'config/webhook/manifests.yaml');

    withVersions("['v1beta1', 'v1']");
    assert.equal((await cli(['manifests', '--generator-version', 'test'], dir)).code, 0);
    assert.match(readFileSync(manifests, 'utf8'), /- admissionReviewVersions:\n {2}- v1beta1\n {2}- v1\n/);
    withVersions("['v1']");
    const v1 = await cli(['manifests', '--generator-version', 'test'], dir);
    assert.equal(v1.code, 0, v1.err);
    const written = readFileSync(manifests, 'utf8');
    assert.doesNotMatch(written, /v1beta1/);

    withVersions("['v2']");
    const before = treeHash(dir);
    for (const r of [await cli(['manifests', '--generator-version', 'test'], dir), bin(['manifests'], dir)]) {
      assert.equal(r.code, 1, r.err);
      assert.equal(r.out, '');
      assert.deepEqual(
        diagnosticLines(r.err).map((l) => [l.file, l.line, l.code, l.message]),
        [
          [
            'src/webhook/widget_webhook.ts',
            at,
            'KF4204',
            `@Webhook 'vwidget.kb.io' on WidgetWebhook: admissionReviewVersions ["v2"] must include at least one of v1, v1beta1: the API server refuses the webhook configuration, as it sends AdmissionReviews in those versions only`,
          ],
        ],
        r.err,
      );
      assert.match(r.err, /^ {2}hint: use admissionReviewVersions: \['v1'\]/m);
      assert.equal(treeHash(dir), before, 'a refused run changed the project');
    }
    assert.equal(readFileSync(manifests, 'utf8'), written);
  });

  const invalid: {
    fixture: string;
    file: string;
    expect: { code: RegExp; message: RegExp; at?: [number, number] }[];
  }[] = [
    {
      fixture: 'rbac/invalid',
      file: 'src/controller/widget_controller.ts',
      expect: [
        { code: /KF4101/, message: /@Rbac on WidgetReconciler grants non-resource URLs in namespace 'system'/ },
        { code: /KF4101/, message: /@Rbac on WidgetReconciler names resources but no API groups/ },
        {
          code: /KF4101/,
          message: /@Rbac on WidgetReconciler mixes 'urls' with 'groups'\/'resources'\/'resourceNames'/,
        },
      ],
    },
    {
      fixture: 'webhook/invalid',
      file: 'src/webhook/widget_webhook.ts',
      expect: [
        {
          code: /KF4201/,
          message:
            /@Webhook 'mwidget\.kb\.io' on WidgetWebhook: `url` or `path` is required and they are mutually exclusive/,
        },
        {
          code: /KF4201/,
          message: /@Webhook 'vwidget\.kb\.io' on WidgetWebhook: reinvocationPolicy applies to mutating webhooks only/,
        },
        { code: /KF4201/, message: /@Webhook 'dwidget\.kb\.io' on WidgetWebhook: SideEffects is required/ },
        {
          code: /KF4201/,
          message: /@Webhook 'dwidget\.kb\.io' on WidgetWebhook: TimeoutSeconds must be between 1 and 30 seconds/,
        },
      ],
    },
  ];

  // The analysis' own invalid inputs (codes and messages from src/manifests/analyze.ts and the
  // schema and marker modules), each with the symbol named and a fix.
  const V1 = 'src/api/v1/widget_types.ts';
  invalid.push(
    {
      fixture: 'invalid-cli/unsupported-type',
      file: V1,
      expect: [
        { code: /KF3004/, message: /field "onReady" of WidgetSpec is a function type/, at: [7, 13] },
        { code: /KF3005/, message: /field "counter" of WidgetSpec has type 'bigint'/, at: [10, 13] },
      ],
    },
    {
      fixture: 'invalid-cli/non-literal-argument',
      file: V1,
      expect: [
        {
          code: /KF2003/,
          message: /@Maximum on field "replicas" of WidgetSpec: .*not a literal: 'Math\.max\(1, 2\)'/,
          at: [10, 12],
        },
        { code: /KF2003/, message: /@MaxLength on field "name" of WidgetSpec: .*'limit' is not a const/, at: [14, 14] },
      ],
    },
    {
      fixture: 'invalid-cli/maximum-on-string',
      file: V1,
      expect: [
        { code: /KF2009/, message: /@Maximum on field "name" of WidgetSpec: .*numeric.*found string/, at: [7, 3] },
      ],
    },
    {
      fixture: 'invalid-cli/listmapkey-without-listtype',
      file: V1,
      expect: [{ code: /KF2009/, message: /@ListMapKey on field "ports" of WidgetSpec/, at: [15, 3] }],
    },
    {
      fixture: 'invalid-cli/missing-groupversion',
      file: 'src/api/v2/gadget_types.ts',
      expect: [
        { code: /KF4001/, message: /Kind Gadget is in .*src\/api\/v2, which has no groupversion\.ts/, at: [13, 14] },
      ],
    },
    {
      fixture: 'invalid-cli/two-storage-versions',
      file: 'src/api/v2/widget_types.ts',
      expect: [
        {
          code: /KF4003/,
          message: /Widget\.fixtures\.kubeforge\.io has more than one storage version: v1, v2/,
          at: [13, 1],
        },
      ],
    },
    {
      fixture: 'invalid-cli/recursive-type',
      file: V1,
      expect: [{ code: /KF3002/, message: /field "children" of TreeNode makes type TreeNode recursive/, at: [9, 14] }],
    },
    {
      // The CRD check (src/manifests/crdcheck): CRDs the API server would refuse are not written.
      fixture: 'invalid-cli/crd-refused',
      file: V1,
      expect: [
        {
          code: /KF4605/,
          message:
            /field "name" of WidgetSpec .*pattern "\^\(\?!admin\)\[a-z\]\+\$" is not a valid RE2 expression.*lookahead/,
          at: [18, 3],
        },
        {
          code: /KF4604/,
          message: /field "ports" of WidgetSpec .*map key 'name' is optional and has no default/,
          at: [22, 3],
        },
        {
          code: /KF4606/,
          message: /field "options" of WidgetSpec .*\.colour is a field the schema does not declare/,
          at: [26, 3],
        },
        { code: /KF4601/, message: /resource plural name 'Widgets' of Kind Widget/, at: [33, 1] },
      ],
    },
    {
      fixture: 'invalid-cli/unknown-decorator-argument',
      file: V1,
      expect: [{ code: /KF2005/, message: /@Resource on Kind Widget: unknown argument 'shortNames'/, at: [13, 13] }],
    },
  );

  for (const c of invalid) {
    it(`${c.fixture}: every problem located (file:line:col code message + hint) in one run, exit 1, nothing written`, async () => {
      const dir = stage(c.fixture);
      const before = treeHash(dir);
      const r = await cli(['manifests'], dir);
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      const lines = diagnosticLines(r.err);
      for (const e of c.expect) {
        const hit = lines.find((l) => e.code.test(l.code) && e.message.test(l.message));
        assert.ok(hit, `missing diagnostic ${e.message} in:\n${r.err}`);
        assert.equal(hit.file, c.file);
        assert.ok(hit.line > 1 && hit.column >= 1);
        if (e.at) assert.deepEqual([hit.line, hit.column], e.at, `wrong location for ${e.message}`);
      }
      assert.equal(lines.length, c.expect.length, `unexpected diagnostics:\n${r.err}`);
      assert.equal((r.err.match(/^ {2}hint: /gm) ?? []).length, c.expect.length, 'every diagnostic carries a fix');
      assert.match(r.err, new RegExp(`\\n${c.expect.length} errors?\\n$`));
      assert.equal(treeHash(dir), before, 'a failed run changed the project');
    });
  }

  it('invalid-cli/everything: all 17 problems of the fixtures above reported in one run, nothing written', async () => {
    const dir = stage('invalid-cli/everything');
    const before = treeHash(dir);
    const r = await cli(['manifests'], dir);
    assert.equal(r.code, 1);
    const lines = diagnosticLines(r.err);
    assert.deepEqual(
      lines.map((l) => l.code).sort(),
      [
        'KF2003',
        'KF2003',
        'KF2005',
        'KF2009',
        'KF2009',
        'KF3002',
        'KF3004',
        'KF3005',
        'KF4001',
        'KF4003',
        'KF4101',
        'KF4101',
        'KF4101',
        'KF4201',
        'KF4201',
        'KF4201',
        'KF4201',
      ],
      r.err,
    );
    // Sorted by file, line, column: the output order does not depend on discovery order.
    const keys = lines.map((l) => `${l.file}\0${String(l.line).padStart(5)}\0${String(l.column).padStart(5)}`);
    assert.deepEqual(keys, [...keys].sort());
    assert.match(r.err, /\n17 errors\n$/);
    assert.equal(treeHash(dir), before);
  });

  it('the real binary reports the same diagnostics and exits 1', () => {
    const dir = stage('rbac/invalid');
    const before = treeHash(dir);
    const r = bin(['manifests'], dir);
    assert.equal(r.code, 1);
    assert.equal(diagnosticLines(r.err).length, 3, r.err);
    assert.equal(treeHash(dir), before);
  });

  it('--dry-run prints the plan and writes nothing; --check fails listing the files', async () => {
    const dir = stage('rbac/valid');
    const before = treeHash(dir);
    const dry = await cli(['manifests', '--dry-run'], dir);
    assert.equal(dry.code, 0, dry.err);
    assert.match(
      dry.out,
      /^CREATE config\/crd\/bases\/fixtures\.kubeforge\.io_widgets\.yaml \(\+\d+ lines\)\nCREATE config\/rbac\/role\.yaml \(\+\d+ lines\)\n$/,
    );
    const check = await cli(['manifests', '--check'], dir);
    assert.equal(check.code, 1);
    assert.match(check.out, /^CREATE config\/crd\/bases\/fixtures\.kubeforge\.io_widgets\.yaml/);
    assert.match(check.err, /KF4501 {2}2 generated manifest files are out of date/);
    assert.equal(treeHash(dir), before);
  });
});
