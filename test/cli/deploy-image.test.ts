/**
 * `kubeforge create api --plugins deploy-image/v1-alpha` through the CLI: both plugin names, the
 * flags as Kubebuilder spells them, help; bad input exits 1 with the flag, the rule and a fix, and
 * leaves the project exactly as it was.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubeforgeIn } from '../helpers/cli.js';
import { snapshot } from '../helpers/tree.js';

const dir = mkdtempSync(join(tmpdir(), 'kf-cli-deploy-image-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const kubeforge = (...args: string[]) => kubeforgeIn(dir, ...args);

const API = ['create', 'api', '--group', 'example.com', '--version', 'v1alpha1', '--make=false'];

describe('kubeforge create api --plugins deploy-image (CLI)', () => {
  before(async () => {
    const r = await kubeforge(
      'init',
      '--domain',
      'testproject.org',
      '--project-name',
      'memcached-operator',
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    assert.equal(r.code, 0, r.err);
  });

  it('bad flags exit 1 naming the flag, the rule and a fix; nothing is written', async () => {
    const before = snapshot(dir);
    const cases: [string[], RegExp, RegExp][] = [
      [
        ['--kind', 'Memcached', '--plugins', 'deploy-image/v1-alpha'],
        /KF1085 +--image is missing/,
        /hint: pass the Operand image, e.g\. --image memcached:1\.6\.26-alpine3\.19/,
      ],
      [
        [
          '--kind',
          'Memcached',
          '--plugins',
          'deploy-image/v1-alpha',
          '--image',
          'memcached',
          '--image-container-port',
          '70000',
        ],
        /KF1086 +--image-container-port "70000" is not a port: it must be an integer from 1 to 65535/,
        /hint: e\.g\. --image-container-port 11211/,
      ],
      [
        ['--kind', 'Memcached', '--plugins', 'deploy-image/v1-alpha', '--image', 'memcached', '--run-as-user', '10.5'],
        /KF1086 +--run-as-user "10\.5" is not a user id: it must be a non-negative integer/,
        /hint: e\.g\. --run-as-user 1001/,
      ],
      [
        ['--kind', 'Memcached', '--plugins', 'deploy-image/v2-alpha', '--image', 'memcached'],
        /KF1070 +unknown plugin "deploy-image\/v2-alpha" for create api/,
        /hint: create api takes deploy-image\/v1-alpha/,
      ],
      [
        ['--kind', 'Memcached', '--image', 'memcached', '--image-container-port', '11211'],
        /KF1087 +--image, --image-container-port belong to the deploy-image plugin/,
        /hint: add --plugins deploy-image\/v1-alpha/,
      ],
      [
        ['--kind', 'Memcached', '--plugins', 'deploy-image/v1-alpha', '--image', 'memcached', '--namespaced=false'],
        /KF1088 .*--namespaced=false cannot go with it/,
        /hint: leave out --namespaced=false/,
      ],
    ];
    for (const [args, message, hint] of cases) {
      const r = await kubeforge(...API, ...args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.out}${r.err}`);
      assert.match(r.err, message);
      assert.match(r.err, hint);
    }
    assert.deepEqual(snapshot(dir), before, 'nothing written');
  });

  it("takes deploy-image/v1-alpha and deploy-image.go.kubebuilder.io/v1-alpha, and records both under the plugin's full name", async () => {
    const memcached = await kubeforge(
      ...API,
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
    );
    assert.equal(memcached.code, 0, memcached.err);
    assert.match(memcached.out, /^CREATE src\/controller\/memcached_controller\.ts/m);
    assert.match(memcached.out, /^UPDATE config\/manager\/manager\.yaml/m);
    const busybox = await kubeforge(
      ...API,
      '--kind',
      'Busybox',
      '--plugins=deploy-image.go.kubebuilder.io/v1-alpha',
      '--image=busybox:1.36.1',
    );
    assert.equal(busybox.code, 0, busybox.err);
    const project = readFileSync(join(dir, 'PROJECT'), 'utf8');
    assert.equal(project.match(/deploy-image\.go\.kubebuilder\.io\/v1-alpha:/g)?.length, 1);
    assert.match(
      project,
      /^ {4}- domain: testproject\.org\n {6}group: example\.com\n {6}kind: Busybox\n {6}options:\n {8}image: busybox:1\.36\.1\n {6}version: v1alpha1$/m,
    );
    const controller = readFileSync(join(dir, 'src/controller/memcached_controller.ts'), 'utf8');
    assert.match(controller, /const IMAGE_ENV = 'MEMCACHED_IMAGE';/);
    assert.match(controller, /command: \['memcached', '--memory-limit=64', '-o', 'modern', '-v'\],/);
    assert.match(controller, /ports: \[\{ containerPort: memcached\.spec\.containerPort, name: 'memcached' \}\],/);
    assert.match(controller, /runAsUser: 1001,/);
    assert.match(controller, /const FINALIZER = 'example\.com\.testproject\.org\/finalizer';/);
    assert.match(controller, /\.owns\(V1Deployment\)/);
    const plain = readFileSync(join(dir, 'src/controller/busybox_controller.ts'), 'utf8');
    assert.doesNotMatch(plain, /command:|ports:|runAsUser/);
  });

  it('init and edit refuse the plugin, naming the command that takes it', async () => {
    const before = snapshot(dir);
    const r = await kubeforge('edit', '--plugins', 'deploy-image.go.kubebuilder.io/v1-alpha');
    assert.equal(r.code, 1);
    assert.match(r.err, /KF1070 +plugin "deploy-image\.go\.kubebuilder\.io\/v1-alpha" is a plugin of create api/);
    assert.match(
      r.err,
      /hint: run kubeforge create api --group <group> --version <version> --kind <Kind> --plugins deploy-image\.go\.kubebuilder\.io\/v1-alpha --image <image>/,
    );
    assert.deepEqual(snapshot(dir), before);
  });

  it('create api --help lists the plugin and its flags', async () => {
    const r = await kubeforge('create', 'api', '--help');
    for (const flag of [
      '--plugins <plugins...>',
      '--image <image>',
      '--image-container-command <command>',
      '--image-container-port <port>',
      '--run-as-user <uid>',
    ])
      assert.ok(r.out.includes(flag), `${flag} in:\n${r.out}`);
    assert.match(r.out, /--plugins deploy-image\/v1-alpha/);
  });
});
