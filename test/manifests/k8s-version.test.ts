/**
 * `kubeforge manifests --k8s-version <minor>`: embedded Kubernetes types follow the Kubernetes minor
 * the project targets. The flag is checked against the supported minors (KF1097, nothing written),
 * part of the cache key, recorded in PROJECT's manifests record like --max-desc-len, and read
 * from there by the in-process runs of create api / create webhook (a recorded minor kubeforge does
 * not support is KF1098 located at PROJECT's key; KF1097 at an older project's manifests script). Which schema each minor gets is judged by
 * controller-gen in test/oracle/controller-gen.test.ts.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { DiagnosticError, Reporter } from '../../src/diagnostics/index.js';
import { K8S_NEWEST_VERSION, K8S_VERSIONS, parseK8sVersion } from '../../src/manifests/k8s-version.js';
import { recordedK8sVersion, recordedManifestsOptions } from '../../src/manifests/script.js';
import { serializeProject } from '../../src/project/index.js';
import { DiskHost, Tree } from '../../src/machinery/index.js';
import { defaultManifestsStep } from '../../src/scaffolds/manifests-step.js';
import { k8sModelSchema } from '../../src/schema/k8s/index.js';
import { treeHash } from '../helpers/tree.js';
import { kubeforgeIn, linkKubeforgeDependencies } from '../helpers/cli.js';
import { must } from '../helpers/must.js';
import type { Obj } from '../helpers/chart.js';

const repo = process.env.KUBEFORGE_REPO_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const work = mkdtempSync(join(tmpdir(), 'kf-k8sversion-'));
after(() => rmSync(work, { recursive: true, force: true }));

const OLDEST = K8S_VERSIONS[0];

function kf1097(e: unknown): DiagnosticError {
  assert.ok(e instanceof DiagnosticError, String(e));
  assert.equal(e.diagnostics[0].code, 'KF1097');
  return e;
}

describe('--k8s-version values', () => {
  it('supports the newest three minors at least, oldest first, the newest the default', () => {
    assert.ok(K8S_VERSIONS.length >= 3);
    assert.equal(K8S_NEWEST_VERSION, K8S_VERSIONS[K8S_VERSIONS.length - 1]);
  });

  it('takes a supported minor, also written v1.N or with a patch release', () => {
    for (const v of K8S_VERSIONS) {
      assert.equal(parseK8sVersion(v, { flag: true }), v);
      assert.equal(parseK8sVersion(`v${v}`, { flag: true }), v);
      assert.equal(parseK8sVersion(`${v}.3`, { flag: true }), v);
    }
  });

  it('refuses anything else with KF1097 naming the supported minors, located where it was given', () => {
    const supported = K8S_VERSIONS.join(', ');
    for (const [value, what] of [
      ['1.20', 'is not one kubeforge has the Kubernetes types of'],
      ['1.99', 'is not one kubeforge has the Kubernetes types of'],
      ['latest', 'is not a Kubernetes minor version'],
      ['1', 'is not a Kubernetes minor version'],
      ['v0.37.2', 'is not a Kubernetes minor version'],
    ] as const) {
      assert.throws(
        () => parseK8sVersion(value, { flag: true }),
        (e: unknown) => {
          const d = kf1097(e).diagnostics[0];
          assert.equal(d.message, `--k8s-version "${value}" ${what} (supported: ${supported})`);
          assert.equal(
            d.hint,
            `pass one of ${supported}, e.g. --k8s-version ${K8S_NEWEST_VERSION} (without the flag kubeforge uses ${K8S_NEWEST_VERSION})`,
          );
          assert.equal(d.file, undefined);
          return true;
        },
      );
    }
    assert.throws(
      () => parseK8sVersion('1.20', { file: '/p/package.json', line: 4 }),
      (e: unknown) => {
        const d = kf1097(e).diagnostics[0];
        assert.deepEqual([d.file, d.line], ['/p/package.json', 4]);
        assert.match(must(d.hint, 'd.hint'), /change --k8s-version in package\.json's "manifests" script to one of /);
        return true;
      },
    );
  });
});

describe("an older project's manifests script: --k8s-version read (legacy, read only)", () => {
  it('reads the flag with its line, from the kubeforge command only', () => {
    const pkg =
      '{\n  "name": "x",\n  "scripts": {\n    "manifests": "kubeforge manifests --max-desc-len 0 --k8s-version 1.35 && echo --k8s-version 1.1",\n    "test": "node --test"\n  }\n}\n';
    assert.deepEqual(recordedK8sVersion(pkg), { value: '1.35', line: 4 });
    assert.equal(recordedK8sVersion(pkg.replace('--k8s-version 1.35 ', '')), undefined, 'not read after &&');
    assert.equal(recordedK8sVersion('{"scripts":{"manifests":"controller-gen crd --k8s-version 1.35"}}'), undefined);
    assert.deepEqual(recordedManifestsOptions(pkg), {
      maxDescLen: 0,
      embeddedObjectMeta: undefined,
      k8sVersion: '1.35',
    });
  });
});

/** A project whose Kind embeds a PodTemplateSpec, Conditions and more (test/fixtures/manifests/golden/k8s). */
function stage(name: string): string {
  const dir = join(work, name);
  cpSync(join(repo, 'test/fixtures/manifests/golden/k8s/src'), join(dir, 'src'), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json'])
    cpSync(join(repo, 'test/fixtures/manifests/maxdesclen', f), join(dir, f));
  writeFileSync(
    join(dir, 'PROJECT'),
    serializeProject({
      version: '3',
      domain: 'kubeforge.io',
      layout: ['typescript.kubeforge.io/v1'],
      projectName: 'fixture-k8s',
      repo: 'fixture-k8s',
      resources: [],
    }),
  );
  linkKubeforgeDependencies(repo, dir);
  return dir;
}

const kubeforge = (cwd: string, ...args: string[]) => kubeforgeIn(cwd, ...args);

const CRD = 'config/crd/bases/k8s.golden.kubeforge.io_deployers.yaml';

const templateOf = (text: string): Obj =>
  (parseAllDocuments(text)[0].toJS() as Obj).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties
    .template;

describe('kubeforge manifests --k8s-version (CLI)', () => {
  it('embeds the types of the minor asked for, changes the cache key, and is recorded in PROJECT', async () => {
    const dir = stage('cli');
    const newest = await kubeforge(dir, 'manifests', '--generator-version', 'test');
    assert.equal(newest.code, 0, newest.err);
    const newestTemplate = templateOf(readFileSync(join(dir, CRD), 'utf8'));
    assert.deepEqual(newestTemplate, {
      ...must(k8sModelSchema('V1PodTemplateSpec'), "k8sModelSchema('V1PodTemplateSpec')"),
      description: 'Pods to run.',
    });

    const old = await kubeforge(dir, 'manifests', '--generator-version', 'test', '--k8s-version', `v${OLDEST}`);
    assert.equal(old.code, 0, old.err);
    assert.match(
      old.out,
      /^UPDATE config\/crd\/bases\/k8s\.golden\.kubeforge\.io_deployers\.yaml/m,
      'a new minor is a new cache key: the CRD is made again',
    );
    assert.ok(
      old.out.includes(`UPDATE PROJECT (plugins.manifests.kubeforge.io/v1-alpha: k8sVersion ${OLDEST})\n`),
      old.out,
    );
    assert.ok(
      readFileSync(join(dir, 'PROJECT'), 'utf8').includes(
        `plugins:\n  manifests.kubeforge.io/v1-alpha:\n    k8sVersion: "${OLDEST}"\n`,
      ),
    );
    assert.equal(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts.manifests, 'kubeforge manifests');
    const oldTemplate = templateOf(readFileSync(join(dir, CRD), 'utf8'));
    assert.deepEqual(oldTemplate, {
      ...must(k8sModelSchema('V1PodTemplateSpec', { kubernetesVersion: OLDEST }), `V1PodTemplateSpec at ${OLDEST}`),
      description: 'Pods to run.',
    });
    assert.notDeepEqual(oldTemplate, newestTemplate, 'the minors differ in the pod template');

    const again = await kubeforge(dir, 'manifests', '--generator-version', 'test', '--k8s-version', OLDEST);
    assert.equal(again.code, 0, again.err);
    assert.equal(again.out, 'manifests are up to date\n');

    // create api / create webhook plan the manifests in-process with what PROJECT records.
    const tree = new Tree(new DiskHost(dir));
    const types = 'src/api/v1/deployer_types.ts';
    tree.write(
      types,
      must(tree.readText(types), types).replace(
        '  ref?: V1ObjectReference;',
        '  ref?: V1ObjectReference;\n  replicas?: number;',
      ),
    );
    await defaultManifestsStep(tree, dir, new Reporter());
    assert.deepEqual(templateOf(must(tree.readText(CRD), CRD)), oldTemplate);

    // A recorded minor kubeforge has no types of: located at PROJECT's key, or at an older
    // project's manifests script.
    const projectPath = join(dir, 'PROJECT');
    const projectText = readFileSync(projectPath, 'utf8');
    writeFileSync(projectPath, projectText.replace(`k8sVersion: "${OLDEST}"`, 'k8sVersion: "1.20"'));
    await assert.rejects(defaultManifestsStep(new Tree(new DiskHost(dir)), dir, new Reporter()), (e: unknown) => {
      assert.ok(e instanceof DiagnosticError, String(e));
      const d = e.diagnostics[0];
      assert.equal(d.code, 'KF1098');
      assert.equal(d.file, projectPath);
      assert.equal(d.line, projectText.split('\n').findIndex((l) => l.includes('k8sVersion:')) + 1);
      assert.match(must(d.hint, 'd.hint'), /k8sVersion: "1\.\d+"/);
      return true;
    });
    writeFileSync(projectPath, projectText);
    const pkgPath = join(dir, 'package.json');
    const pkgText = readFileSync(pkgPath, 'utf8').replace(
      '"kubeforge manifests"',
      '"kubeforge manifests --k8s-version 1.20"',
    );
    writeFileSync(pkgPath, pkgText);
    await assert.rejects(defaultManifestsStep(new Tree(new DiskHost(dir)), dir, new Reporter()), (e: unknown) => {
      const d = kf1097(e).diagnostics[0];
      assert.equal(d.file, pkgPath);
      assert.equal(d.line, pkgText.split('\n').findIndex((l) => l.includes('"manifests"')) + 1);
      return true;
    });
  });

  it('a plain `kubeforge manifests`, `--check` and what its hint says to run use the recorded minor (and --max-desc-len), as make manifests does', async () => {
    const dir = stage('recorded');
    const set = await kubeforge(
      dir,
      'manifests',
      '--generator-version',
      'test',
      '--k8s-version',
      OLDEST,
      '--max-desc-len',
      '40',
    );
    assert.equal(set.code, 0, set.err);
    const recorded = readFileSync(join(dir, CRD), 'utf8');
    for (const args of [['--check'], ['--check', '--no-cache'], []]) {
      const r = await kubeforge(dir, 'manifests', '--generator-version', 'test', ...args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.out}${r.err}`);
      assert.equal(r.out, 'manifests are up to date\n', args.join(' '));
    }
    // A change: --check fails, and the command its hint names writes the recorded minor's CRD.
    const types = join(dir, 'src/api/v1/deployer_types.ts');
    writeFileSync(
      types,
      readFileSync(types, 'utf8').replace(
        '  ref?: V1ObjectReference;',
        '  ref?: V1ObjectReference;\n  replicas?: number;',
      ),
    );
    const check = await kubeforge(dir, 'manifests', '--generator-version', 'test', '--check');
    assert.equal(check.code, 1);
    assert.match(check.err, /hint: run `kubeforge manifests` \(npm run manifests\)/);
    const fix = await kubeforge(dir, 'manifests', '--generator-version', 'test');
    assert.equal(fix.code, 0, fix.err);
    assert.doesNotMatch(fix.out, /package\.json|PROJECT/, 'the record is left as it was');
    const crd = readFileSync(join(dir, CRD), 'utf8');
    assert.deepEqual(
      templateOf(crd),
      templateOf(recorded),
      "the pod template is the recorded minor's, descriptions cut at 40",
    );
    assert.ok(crd.includes('replicas:'));
    assert.equal((await kubeforge(dir, 'manifests', '--generator-version', 'test', '--check')).code, 0);
    // A flag given wins over the recorded one.
    const newest = await kubeforge(
      dir,
      'manifests',
      '--generator-version',
      'test',
      '--k8s-version',
      K8S_NEWEST_VERSION,
      '--check',
    );
    assert.equal(newest.code, 1, 'the newest minor differs from the recorded one');
  });

  it('refuses a minor it has no types of: exit 1, the supported ones named, nothing written', async () => {
    const dir = stage('bad');
    const before = treeHash(dir);
    for (const value of ['1.20', 'next']) {
      const r = await kubeforge(dir, 'manifests', `--k8s-version=${value}`);
      assert.equal(r.code, 1, value);
      assert.match(r.err, new RegExp(`KF1097 +--k8s-version "${value.replace('.', '\\.')}" is not`));
      assert.ok(r.err.includes(`supported: ${K8S_VERSIONS.join(', ')}`), r.err);
    }
    assert.equal(treeHash(dir), before);
  });

  it('--help names the supported minors and the default', async () => {
    const r = await kubeforge(work, 'manifests', '--help');
    assert.equal(r.code, 0);
    const help = r.out.replace(/\s+/g, ' ');
    assert.ok(help.includes(`--k8s-version <minor>`), help);
    assert.ok(help.includes(`${K8S_VERSIONS.join(', ')} (default ${K8S_NEWEST_VERSION})`), help);
  });
});
