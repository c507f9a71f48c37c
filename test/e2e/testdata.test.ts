/**
 * testdata/project, the Kubebuilder book's CronJob tutorial, is what `npm run generate:testdata`
 * makes with this kubeforge: regenerated into a temporary folder, it must be the committed tree
 * byte for byte (a change to the templates, the CLI or the manifests generators shows up here,
 * and is committed by running the script). Then, as CI would: the regenerated project installs
 * (kubeforge from `npm pack` of this checkout), its manifests are up to date, it builds, and its
 * own tests (the reconciler, the webhooks and the conversion on a real API server) pass.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertAllPassed, MINUTES, ok, packKubeforge, repo, sh, KUBEFORGE_TEST } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-testdata-'));
const project = join(work, 'project');
const committed = join(repo, 'testdata/project');

/** Every file under `dir`, as sorted paths relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

describe('e2e: testdata/project is what npm run generate:testdata makes, and it builds and passes its tests', {
  timeout: 10 * MINUTES,
}, () => {
  before(() => {
    ok(
      sh(process.execPath, [join(repo, 'scripts/generate-testdata.mjs'), '--out', project, '--quiet'], repo),
      'generate-testdata',
    );
  });

  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('regenerating gives the committed tree, byte for byte', () => {
    const want = files(committed);
    const got = files(project);
    const hint = 'run `npm run generate:testdata` and commit testdata/project';
    assert.deepEqual(got, want, `the regenerated project has other files than testdata/project: ${hint}`);
    const differing = want.filter((f) => !readFileSync(join(project, f)).equals(readFileSync(join(committed, f))));
    assert.deepEqual(differing, [], `these files differ from testdata/project: ${hint}`);
  });

  it('installs against this kubeforge, its manifests are up to date and it builds', { timeout: 5 * MINUTES }, () => {
    const tarball = packKubeforge(work);
    const pkgFile = join(project, 'package.json');
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { dependencies: Record<string, string> };
    pkg.dependencies.kubeforge = `file:${tarball}`;
    writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
    ok(sh('npm', ['install', '--no-audit', '--no-fund'], project), 'npm install');
    assert.match(
      ok(
        sh(join(project, 'node_modules/.bin/kubeforge'), ['manifests', '--check'], project),
        'kubeforge manifests --check',
      ),
      /manifests are up to date/,
    );
    ok(sh('npm', ['run', 'build'], project), 'npm run build');
    // The book's code passes the project's own linter (make lint: tsc + Biome).
    ok(sh('npm', ['run', 'lint'], project), 'npm run lint');
  });

  it('kubectl kustomize config/default renders the operator with its webhooks, certificates and conversion', () => {
    const yaml = ok(sh('kubectl', ['kustomize', 'config/default'], project), 'kubectl kustomize config/default');
    const kinds = new Set([...yaml.matchAll(/^kind: (\S+)$/gm)].map((m) => m[1]));
    for (const kind of [
      'CustomResourceDefinition',
      'Deployment',
      'MutatingWebhookConfiguration',
      'ValidatingWebhookConfiguration',
      'Certificate',
      'Issuer',
    ]) {
      assert.ok(kinds.has(kind), `config/default renders a ${kind}`);
    }
    assert.match(yaml, /^ {4}strategy: Webhook$/m, 'the CRD converts through the webhook');
  });

  it("the sample's own tests pass on a real API server", { timeout: 5 * MINUTES }, () => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (npm test sets it)',
    );
    const r = sh('node', [...KUBEFORGE_TEST], project);
    const out = ok(r, 'the sample tests');
    assertAllPassed(out, 'the sample tests');
    // The controller's and the webhooks' unit tests ran first, on no control plane.
    assert.match(r.stderr, /^test: unit tier: 2 test file\(s\) in \d+ process\(es\), no control plane$/m);
    // The controller's one test body (cronjob_controller.both.test.ts): the unit tier, then the full one.
    assert.equal(
      out.match(/^ok \d+ - CronJob controller$/gm)?.length,
      2,
      'the CronJob controller test ran on both tiers',
    );
    assert.match(out, /^ok \d+ - CronJob webhook, called directly$/m);
    for (const name of [
      'waits for the scheduled time, then creates the Job of the run with a controller reference',
      'deletes the finished Jobs beyond the history limits, oldest first',
      'creates nothing while suspended',
      'Forbid: skips the next run while it is active',
      'Replace: deletes it and starts the next run',
      'the API server refuses a CronJob the validator denies, with the fields named',
      'cronJobConversion (v2) round-trips v1 -> v2 -> v1 and splits the schedule into its fields',
      'a CronJob v1 read as v2 through the API server has its schedule split by the webhook',
    ]) {
      assert.match(
        out,
        new RegExp(`^ +ok \\d+ - ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
        `test "${name}" passed`,
      );
    }
  });
});
