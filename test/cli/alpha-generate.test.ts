/**
 * `kubeforge alpha generate`: a project made by a sequence of commands and the one regenerated
 * from its PROJECT file are identical, file for file; the user's own code is carried over; the
 * keys of other tools in PROJECT are kept; the deploy-image plugin's Kinds are scaffolded again by
 * it, from the flags PROJECT records; a non-empty output folder is refused.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { packageVersion } from '../../src/util/package-root.js';
import { snapshot } from '../helpers/tree.js';

const root = mkdtempSync(join(tmpdir(), 'kf-cli-generate-'));
after(() => rmSync(root, { recursive: true, force: true }));

async function kubeforge(cwd: string, ...args: string[]) {
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
  assert.equal(code, 0, `kubeforge ${args.join(' ')}:\n${out}${err}`);
  return { out, err };
}

const NO_MAKE = '--make=false';

describe('kubeforge alpha generate', () => {
  it('re-scaffolds a project identical to the one its commands made, with the user code copied over', async () => {
    const original = join(root, 'original');
    mkdirSync(original);
    await kubeforge(
      original,
      'init',
      '--domain',
      'example.com',
      '--owner',
      'Acme Corp',
      '--skip-install',
      '--kubeforge-source',
      'link',
      '--plugins',
      'grafana',
    );
    // The order alpha generate replays: every API, then the webhooks of each resource in one command.
    await kubeforge(original, 'create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob', NO_MAKE);
    await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v2',
      '--kind',
      'CronJob',
      '--controller=false',
      NO_MAKE,
    );
    await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'Fleet',
      '--namespaced=false',
      '--plural',
      'fleetz',
      NO_MAKE,
    );
    await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'apps',
      '--version',
      'v1',
      '--kind',
      'Deployment',
      '--resource=false',
      NO_MAKE,
    );
    // Two Kinds of the deploy-image plugin: every flag, and only --image (PROJECT records the flags).
    await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'Memcached',
      '--plugins',
      'deploy-image/v1-alpha',
      '--image',
      'memcached:1.6.26-alpine3.19',
      '--image-container-command',
      'memcached,--memory-limit=64,-o,modern,-v',
      '--image-container-port',
      '11211',
      '--run-as-user',
      '1001',
      NO_MAKE,
    );
    await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'Busybox',
      '--plugins',
      'deploy-image.go.kubebuilder.io/v1-alpha',
      '--image',
      'busybox:1.36.1',
      NO_MAKE,
    );
    // Named controllers, as Kubebuilder's generate.sh makes them.
    await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'Captain',
      '--controller-name=captain',
      NO_MAKE,
    );
    await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'Captain',
      '--force',
      NO_MAKE,
    );
    await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'Captain',
      '--resource=false',
      '--controller-name=captain-backup',
      NO_MAKE,
    );
    // A controller for a Kind of another project, typed by a file of the project.
    mkdirSync(join(original, 'src/external/certmanager'), { recursive: true });
    writeFileSync(
      join(original, 'src/external/certmanager/v1.ts'),
      "import type { KubernetesObject } from '@kubernetes/client-node';\n\nexport interface Certificate extends KubernetesObject {\n  spec?: { secretName?: string };\n}\n",
    );
    await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'cert-manager',
      '--version',
      'v1',
      '--kind',
      'Certificate',
      '--resource=false',
      '--external-api-path',
      'src/external/certmanager/v1.ts',
      '--external-api-domain',
      'io',
      NO_MAKE,
    );
    await kubeforge(
      original,
      'create',
      'webhook',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'CronJob',
      '--defaulting',
      '--programmatic-validation',
      '--conversion',
      '--spoke',
      'v2',
      NO_MAKE,
    );
    await kubeforge(
      original,
      'create',
      'webhook',
      '--group',
      'core',
      '--version',
      'v1',
      '--kind',
      'Pod',
      '--defaulting',
      '--validation-path',
      '/check-pods',
      '--programmatic-validation',
      NO_MAKE,
    );
    // A webhook for a Kind of another project, with Kubebuilder's own flags (a Go import path).
    const certManager = [
      '--external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
      '--external-api-domain=io',
      '--external-api-module=github.com/cert-manager/cert-manager@v1.20.2',
    ];
    await kubeforge(
      original,
      'create',
      'webhook',
      '--group',
      'cert-manager',
      '--version',
      'v1',
      '--kind',
      'Issuer',
      '--defaulting',
      ...certManager,
      NO_MAKE,
    );
    // A kubeforge before PROJECT's manifests record kept `--max-desc-len 40` in the manifests script.
    writeFileSync(
      join(original, 'package.json'),
      readFileSync(join(original, 'package.json'), 'utf8').replace(
        '"kubeforge manifests"',
        '"kubeforge manifests --max-desc-len 40"',
      ),
    );
    // The user's own code, and a key of another tool in PROJECT.
    appendFileSync(join(original, 'src/controller/cronjob_controller.ts'), '\n// The user reconciles CronJobs here.\n');
    writeFileSync(
      join(original, 'grafana/custom-metrics/config.yaml'),
      'customMetrics:\n  - metric: cronjob_runs_total\n    type: counter\n',
    );
    writeFileSync(
      join(original, 'PROJECT'),
      readFileSync(join(original, 'PROJECT'), 'utf8').replace('cliVersion:', 'acmeTool: kept\ncliVersion:'),
    );

    const regenerated = join(root, 'regenerated');
    const r = await kubeforge(
      original,
      'alpha',
      'generate',
      '--output-dir',
      regenerated,
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    assert.match(r.out, /Re-scaffolded original into \.\.\/regenerated with 10 resources from PROJECT/);
    const a = snapshot(original);
    const b = snapshot(regenerated);
    assert.deepEqual(Object.keys(b), Object.keys(a), 'the same files');
    // The script's flag moves into PROJECT's manifests record (the script is the plain one kubeforge scaffolds).
    const moved = (text: string | undefined) =>
      text?.replace('"kubeforge manifests --max-desc-len 40"', '"kubeforge manifests"');
    const unrecorded = (text: string | undefined) =>
      text?.replace(/\n {2}manifests\.kubeforge\.io\/v1-alpha:\n {4}maxDescLen: 40(?=\n)/, '');
    assert.match(b.PROJECT, /\n {2}manifests\.kubeforge\.io\/v1-alpha:\n {4}maxDescLen: 40\n/);
    assert.match(b['package.json'], /"manifests": "kubeforge manifests",/);
    const differ = Object.keys(a).filter(
      (p) => (p === 'package.json' ? moved(a[p]) : a[p]) !== (p === 'PROJECT' ? unrecorded(b[p]) : b[p]),
    );
    // The custom-metrics dashboard is regenerated from the config on the next `edit --plugins grafana`, as in the original.
    assert.deepEqual(
      differ,
      [],
      `the same bytes; first difference:\n${differ.map((p) => `${p}:\n${a[p]}\n---\n${b[p]}`)[0] ?? ''}`,
    );
    assert.match(b['src/controller/cronjob_controller.ts'], /The user reconciles CronJobs here/);
    assert.match(b.PROJECT, /^acmeTool: kept$/m);
    // The kubeforge that re-scaffolded it (here the same one that made the original).
    assert.match(b.PROJECT, new RegExp(`^cliVersion: ${packageVersion().replace(/\./g, '\\.')}$`, 'm'));
    assert.match(b.PROJECT, /^ {2}controllers:\n {2}- name: captain\n {2}- name: captain-backup$/m);
    assert.match(
      b.PROJECT,
      /^ {2}external: true\n {2}group: cert-manager\n {2}kind: Issuer\n {2}module: github\.com\/cert-manager\/cert-manager@v1\.20\.2$/m,
    );
    assert.match(b.PROJECT, /^ {2}grafana\.kubebuilder\.io\/v1-alpha: \{\}$/m);
    assert.match(
      b.PROJECT,
      /^ {2}deploy-image\.go\.kubebuilder\.io\/v1-alpha:\n {4}resources:\n {4}- domain: example\.com\n {6}group: batch\n {6}kind: Memcached\n {6}options:\n {8}containerCommand: memcached,--memory-limit=64,-o,modern,-v\n {8}containerPort: "11211"\n {8}image: memcached:1\.6\.26-alpine3\.19\n {8}runAsUser: "1001"\n/m,
    );
    assert.match(
      b['config/manager/manager.yaml'],
      /- name: BUSYBOX_IMAGE\n {10}value: busybox:1\.36\.1\n {8}- name: MEMCACHED_IMAGE\n/,
    );
    assert.match(
      b['src/controller/memcached_controller.ts'],
      /command: \['memcached', '--memory-limit=64', '-o', 'modern', '-v'\],/,
    );
    // Only the script the flag moved out of: the user's other changes to it (none here) are theirs to merge.
    assert.match(
      r.out,
      /^Moved --max-desc-len 40 from package\.json's "manifests" script into PROJECT \(plugins\.manifests\.kubeforge\.io\/v1-alpha\), where kubeforge manifests reads it\.$/m,
    );
    assert.match(
      r.out,
      /^Review \(scaffolded files that differ from your project; merge your own changes by hand\): package\.json$/m,
    );
    // Only alpha generate's own lines: the replayed commands' hints are not the user's to follow.
    assert.doesNotMatch(r.err, /Next:|Skipped kubeforge manifests/);
  });

  it('lists the scaffolded files that differ, and refuses a non-empty output folder', async () => {
    const original = join(root, 'edited');
    mkdirSync(original);
    await kubeforge(
      original,
      'init',
      '--domain',
      'example.com',
      '--license',
      'none',
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    appendFileSync(join(original, 'src/main.ts'), '// a hand edit\n');
    const out = join(root, 'edited-new');
    const r = await kubeforge(
      original,
      'alpha',
      'generate',
      '--output-dir',
      out,
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    assert.match(
      r.out,
      /Review \(scaffolded files that differ from your project; merge your own changes by hand\): src\/main\.ts$/m,
    );
    let err = '';
    const code = await run(['node', 'kubeforge', 'alpha', 'generate', '--output-dir', out, '--skip-install'], {
      cwd: original,
      color: false,
      out: () => {},
      err: (t) => {
        err += t;
      },
    });
    assert.equal(code, 1);
    assert.match(err, /KF1073/);
  });

  it('re-scaffolds a namespaced project (init --namespaced) identically', async () => {
    const original = join(root, 'scoped');
    mkdirSync(original);
    await kubeforge(
      original,
      'init',
      '--domain',
      'example.com',
      '--namespaced',
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    await kubeforge(original, 'create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob', NO_MAKE);
    const fleet = await kubeforge(
      original,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'Fleet',
      '--namespaced=false',
      NO_MAKE,
    );
    assert.match(
      fleet.err,
      /warning: Fleet is cluster-scoped, but this project's manager is namespace-scoped \(PROJECT: namespaced: true\): its Role cannot grant fleets\.batch\.example\.com/,
    );
    const regenerated = join(root, 'scoped-new');
    await kubeforge(
      original,
      'alpha',
      'generate',
      '--output-dir',
      regenerated,
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    const a = snapshot(original);
    const b = snapshot(regenerated);
    assert.deepEqual(Object.keys(b), Object.keys(a), 'the same files');
    const differ = Object.keys(a).filter((p) => a[p] !== b[p]);
    assert.deepEqual(
      differ,
      [],
      `the same bytes; first difference:\n${differ.map((p) => `${p}:\n${a[p]}\n---\n${b[p]}`)[0] ?? ''}`,
    );
    assert.match(b.PROJECT, /^namespaced: true$/m);
    assert.match(b['config/rbac/role_binding.yaml'], /^kind: RoleBinding$/m);
    assert.match(b['config/rbac/cronjob_viewer_role.yaml'], /^kind: Role$/m);
  });
});
