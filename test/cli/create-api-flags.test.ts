/**
 * `kubeforge create api --controller-name` and the --external-api-* flags through the CLI:
 * Kubebuilder's own command sequences work; bad input exits 1 with a located message and leaves
 * the project exactly as it was.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubeforgeIn } from '../helpers/cli.js';
import { snapshot } from '../helpers/tree.js';

const dir = mkdtempSync(join(tmpdir(), 'kf-cli-api-flags-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const kubeforge = (...args: string[]) => kubeforgeIn(dir, ...args);

const CAPTAIN = ['create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain', '--make=false'];

describe('kubeforge create api --controller-name (CLI)', () => {
  before(async () => {
    const init = await kubeforge(
      'init',
      '--domain',
      'testproject.org',
      '--project-name',
      'project-v4',
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    assert.equal(init.code, 0, init.err);
  });

  it("runs Kubebuilder's generate.sh sequence: --controller-name=captain, the API again with --force, then a second controller", async () => {
    for (const args of [
      [...CAPTAIN, '--controller=true', '--resource=true', '--controller-name=captain'],
      [...CAPTAIN, '--controller=true', '--resource=true', '--force'],
      [...CAPTAIN, '--controller=true', '--resource=false', '--controller-name=captain-backup'],
    ]) {
      const r = await kubeforge(...args);
      assert.equal(r.code, 0, `${args.join(' ')}\n${r.err}`);
    }
    const project = readFileSync(join(dir, 'PROJECT'), 'utf8');
    assert.match(project, /^ {2}controllers:\n {2}- name: captain\n {2}- name: captain-backup\n/m);
    assert.doesNotMatch(project, /controller: true/);
    const backup = readFileSync(join(dir, 'src/controller/captain_backup_controller.ts'), 'utf8');
    assert.match(backup, /export class CaptainBackupReconciler \{/);
    assert.match(backup, /\.named\('captain-backup'\)/);
    assert.match(
      readFileSync(join(dir, 'test/controller/captain_backup_controller.both.test.ts'), 'utf8'),
      /new CaptainBackupReconciler\(/,
    );
    const main = readFileSync(join(dir, 'src/main.ts'), 'utf8');
    assert.match(main, /import \{ CaptainBackupReconciler \} from '\.\/controller\/captain_backup_controller\.js';/);
    assert.match(
      main,
      /new CaptainBackupReconciler\(mgr\.getClient\(\), mgr\.getEventRecorder\('captain-backup-controller'\)\)\.setupWithManager\(mgr\);/,
    );
  });

  it('bad names, a name already used and --controller=false exit 1 with a located message; the project is unchanged', async () => {
    const before = snapshot(dir);
    const invalid = await kubeforge(...CAPTAIN, '--resource=false', '--controller-name', 'Captain_Backup');
    assert.equal(invalid.code, 1);
    assert.match(invalid.err, /KF1001 +invalid controller name "Captain_Backup"/);
    const digit = await kubeforge(...CAPTAIN, '--resource=false', '--controller-name', '2nd');
    assert.equal(digit.code, 1);
    assert.match(
      digit.err,
      /KF1090 +invalid --controller-name "2nd": it must start with a letter \(it names the class 2ndReconciler\)/,
    );
    const used = await kubeforge(...CAPTAIN, '--resource=false', '--controller-name', 'captain-backup');
    assert.equal(used.code, 1);
    assert.match(
      used.err,
      /PROJECT:\d+.*KF1092 +Captain \(v1\) already has a controller named captain-backup in PROJECT/,
    );
    assert.match(used.err, /hint: pick another --controller-name, or pass --force/);
    const close = await kubeforge(...CAPTAIN, '--resource=false', '--controller-name', 'captainbackup');
    assert.equal(close.code, 1);
    assert.match(
      close.err,
      /KF1092 +--controller-name captainbackup and the controller captain-backup of Captain \(v1\) differ only in "-"/,
    );
    const theDefault = await kubeforge(...CAPTAIN, '--resource=false', '--controller-name', 'captain');
    assert.equal(theDefault.code, 1);
    assert.match(theDefault.err, /KF1042 +the controller for Captain \(crew\.testproject\.org\/v1\) already exists/);
    const off = await kubeforge(...CAPTAIN, '--controller=false', '--controller-name', 'captain-audit');
    assert.equal(off.code, 1);
    assert.match(
      off.err,
      /KF1091 +--controller-name captain-audit names a controller, and --controller=false scaffolds none/,
    );
    assert.deepEqual(snapshot(dir), before);
    // The same controller again with --force plans nothing.
    const again = await kubeforge(...CAPTAIN, '--resource=false', '--controller-name', 'captain-backup', '--force');
    assert.equal(again.code, 0, again.err);
    assert.equal(again.out, 'Nothing to change.\n');
  });
});

describe('kubeforge create api / create webhook --external-api-* (CLI)', () => {
  const cert = ['create', 'api', '--group', 'cert-manager', '--version', 'v1', '--kind', 'Certificate', '--make=false'];
  it('refuses what cannot be an external Kind: exit 1, a located message, the project unchanged', async () => {
    const before = snapshot(dir);
    const withResource = await kubeforge(...cert, '--external-api-path', 'src/external/certmanager/v1.ts');
    assert.equal(withResource.code, 1);
    assert.match(
      withResource.err,
      /KF1094 +--external-api-path, --external-api-domain and --external-api-module are for a Kind another project owns; --resource=true scaffolds an API of this project/,
    );
    const noPath = await kubeforge(...cert, '--resource=false', '--external-api-module', '@acme/cert-types@1.0.0');
    assert.equal(noPath.code, 1);
    assert.match(noPath.err, /KF1094 +--external-api-domain and --external-api-module need --external-api-path/);
    const missing = await kubeforge(
      ...cert,
      '--resource=false',
      '--external-api-path',
      'src/external/certmanager/v1.ts',
    );
    assert.equal(missing.code, 1);
    assert.match(
      missing.err,
      /src\/external\/certmanager\/v1\.ts.*KF1095 +--external-api-path src\/external\/certmanager\/v1\.ts: there is no such file in the project/,
    );
    const versioned = await kubeforge(
      ...cert,
      '--resource=false',
      '--external-api-path',
      'github.com/cert-manager/cert-manager@v1.20.2/pkg/apis/certmanager/v1',
    );
    assert.equal(versioned.code, 1);
    assert.match(
      versioned.err,
      /KF1095 +invalid --external-api-path "github\.com\/cert-manager\/cert-manager@v1\.20\.2\/pkg\/apis\/certmanager\/v1": a version belongs in --external-api-module/,
    );
    const domain = await kubeforge(
      ...cert,
      '--resource=false',
      '--external-api-path',
      'github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
      '--external-api-domain',
      'Not_A_Domain',
    );
    assert.equal(domain.code, 1);
    assert.match(domain.err, /KF1095 +invalid --external-api-domain "Not_A_Domain"/);
    const ours = await kubeforge(
      ...CAPTAIN,
      '--resource=false',
      '--controller-name',
      'captain-ext',
      '--external-api-path',
      'github.com/x/y/v1',
    );
    assert.equal(ours.code, 1);
    assert.match(ours.err, /KF1094 .*Captain \(crew\/v1\) is an API of this project \(PROJECT records it\)/);
    const webhook = await kubeforge(
      'create',
      'webhook',
      '--group',
      'crew',
      '--version',
      'v1',
      '--kind',
      'Captain',
      '--defaulting',
      '--external-api-path',
      'github.com/x/y/v1',
      '--make=false',
    );
    assert.equal(webhook.code, 1);
    assert.match(webhook.err, /KF1094 .*Captain \(crew\/v1\) is an API of this project/);
    assert.deepEqual(snapshot(dir), before);
  });

  it("runs Kubebuilder's commands for cert-manager's Certificate and Issuer: recorded as external, no roles or samples", async () => {
    const certManager = [
      '--external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
      '--external-api-domain=io',
      '--external-api-module=github.com/cert-manager/cert-manager@v1.20.2',
    ];
    const api = await kubeforge(...cert, '--controller=true', '--resource=false', ...certManager);
    assert.equal(api.code, 0, api.err);
    assert.match(
      api.err,
      /warning: --external-api-module github\.com\/cert-manager\/cert-manager@v1\.20\.2 is not an npm package/,
    );
    const webhook = await kubeforge(
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
      '--make=false',
    );
    assert.equal(webhook.code, 0, webhook.err);
    const project = readFileSync(join(dir, 'PROJECT'), 'utf8');
    assert.match(
      project,
      /^- controller: true\n {2}domain: io\n {2}external: true\n {2}group: cert-manager\n {2}kind: Certificate\n {2}module: github\.com\/cert-manager\/cert-manager@v1\.20\.2\n {2}path: github\.com\/cert-manager\/cert-manager\/pkg\/apis\/certmanager\/v1\n {2}version: v1$/m,
    );
    assert.match(
      project,
      /^- domain: io\n {2}external: true\n {2}group: cert-manager\n {2}kind: Issuer\n[\s\S]*?webhooks:\n {4}defaulting: true\n {4}webhookVersion: v1$/m,
    );
    const controller = readFileSync(join(dir, 'src/controller/certificate_controller.ts'), 'utf8');
    assert.match(controller, /@Rbac\(\{ groups: \['cert-manager\.io'\], resources: \['certificates'\]/);
    assert.match(
      controller,
      /export const Certificate: TypeDescriptor = \{ apiVersion: 'cert-manager\.io\/v1', kind: 'Certificate' \};/,
    );
    assert.match(
      readFileSync(join(dir, 'src/webhook/v1/issuer_webhook.ts'), 'utf8'),
      /groups: \['cert-manager\.io'\],\n {2}resources: \['issuers'\],/,
    );
    assert.ok(
      !snapshot(dir)['config/rbac/certificate_editor_role.yaml'],
      'no editor role for a Kind of another project',
    );
  });
});

describe('--help lists the new flags', () => {
  it('create api, create webhook and manifests', async () => {
    const api = await kubeforge('create', 'api', '--help');
    for (const flag of [
      '--controller-name <name>',
      '--external-api-path <path>',
      '--external-api-domain <domain>',
      '--external-api-module <module>',
    ])
      assert.ok(api.out.includes(flag), `create api --help: ${flag}`);
    const webhook = await kubeforge('create', 'webhook', '--help');
    for (const flag of [
      '--external-api-path <path>',
      '--external-api-domain <domain>',
      '--external-api-module <module>',
    ])
      assert.ok(webhook.out.includes(flag), `create webhook --help: ${flag}`);
    assert.match((await kubeforge('manifests', '--help')).out, /--max-desc-len <n> +cut every description/);
  });
});
