/**
 * What create api generates type-checks: each layout (single group, cluster-scoped with a plural,
 * multigroup with the same Kind in two groups, controllers for built-in Kinds) is scaffolded on
 * disk with the real CLI, then `tsc --noEmit` runs on the whole project (strict, standard
 * decorators) with kubeforge resolved to this repository (its dist/ typings).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { packageRoot } from '../../src/util/package-root.js';

const repo = packageRoot();
const work = mkdtempSync(join(tmpdir(), 'kf-api-tsc-'));

async function kubeforge(cwd: string, args: string[]): Promise<void> {
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: () => {},
    err: (t) => {
      err += t;
    },
  });
  assert.equal(code, 0, `kubeforge ${args.join(' ')}:\n${err}`);
}

/** node_modules of the project: this repository's packages, and kubeforge itself as the repository. */
function linkModules(dir: string): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name === 'kubeforge') continue;
    symlinkSync(join(repo, 'node_modules', name), join(modules, name));
  }
  symlinkSync(repo, join(modules, 'kubeforge'));
}

const CASES: {
  name: string;
  init?: string[];
  apis: string[][];
  later?: string[][];
  files?: string[] /** [file, what it must hold] */;
  contains?: [string, RegExp][];
}[] = [
  {
    name: 'single group, namespaced and cluster-scoped',
    apis: [
      ['--group', 'batch', '--version', 'v1', '--kind', 'CronJob'],
      ['--group', 'batch', '--version', 'v1', '--kind', 'Fleet', '--namespaced=false', '--plural', 'fleetz'],
    ],
  },
  {
    name: '--ssa, namespaced and cluster-scoped (the controller applies its condition)',
    apis: [
      ['--group', 'crew', '--version', 'v1', '--kind', 'Captain', '--ssa'],
      ['--group', 'crew', '--version', 'v1', '--kind', 'Fleet', '--namespaced=false', '--ssa'],
    ],
    contains: [['src/controller/fleet_controller.ts', /this\.client\.status\(\)\.apply<Fleet>\(/]],
  },
  {
    name: 'multigroup, one Kind name in two groups, a second version',
    init: ['--multigroup', '--license', 'none'],
    apis: [
      ['--group', 'ship', '--version', 'v1beta1', '--kind', 'Frigate'],
      ['--group', 'sea', '--version', 'v1', '--kind', 'Frigate'],
      ['--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--controller=false'],
    ],
  },
  {
    name: 'dotted groups (foo.policy, a whole domain with multigroup), with their manifests and a webhook',
    init: ['--multigroup'],
    apis: [
      ['--group', 'foo.policy', '--version', 'v1', '--kind', 'HealthCheckPolicy', '--make=true'],
      ['--group', 'example.com', '--version', 'v1alpha1', '--kind', 'Memcached', '--make=true'],
    ],
    later: [
      [
        'create',
        'webhook',
        '--group',
        'foo.policy',
        '--version',
        'v1',
        '--kind',
        'HealthCheckPolicy',
        '--defaulting',
        '--programmatic-validation',
      ],
    ],
    files: [
      'src/api/foo.policy/v1/healthcheckpolicy_types.ts',
      'src/controller/foo.policy/healthcheckpolicy_controller.ts',
      'config/crd/bases/foo.policy.example.com_healthcheckpolicies.yaml',
      'config/crd/bases/example.com.example.com_memcacheds.yaml',
      'config/rbac/foo.policy_healthcheckpolicy_editor_role.yaml',
      'config/samples/foo.policy_v1_healthcheckpolicy.yaml',
      'src/webhook/foo.policy/v1/healthcheckpolicy_webhook.ts',
    ],
  },
  {
    name: 'a namespace-scoped manager (init --namespaced): main.ts restricts the cache to WATCH_NAMESPACE',
    init: ['--namespaced'],
    apis: [['--group', 'batch', '--version', 'v1', '--kind', 'CronJob']],
  },
  {
    name: 'edit --namespaced on a project with a controller and a webhook wired in main.ts',
    apis: [['--group', 'batch', '--version', 'v1', '--kind', 'CronJob']],
    later: [
      ['create', 'webhook', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob', '--defaulting', '--make=false'],
      ['edit', '--namespaced', '--make=false'],
    ],
    // The switch merged into main.ts next to the controller and webhook wiring.
    contains: [['src/main.ts', /cache: \{ defaultNamespaces: namespaces \}[\s\S]*setupCronJobWebhookWithManager/]],
  },
  {
    name: 'controllers for built-in Kinds next to a CRD',
    apis: [
      ['--group', 'batch', '--version', 'v1', '--kind', 'CronJob'],
      ['--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--resource=false'],
      ['--group', 'core', '--version', 'v1', '--kind', 'Pod', '--resource=false'],
    ],
  },
  {
    name: "deploy-image: every flag, only --image, and Kinds named like the controller's own names (multigroup)",
    init: ['--multigroup'],
    apis: [
      [
        '--group',
        'example.com',
        '--version',
        'v1alpha1',
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
        '--make=true',
      ],
      [
        '--group',
        'example.com',
        '--version',
        'v1alpha1',
        '--kind',
        'Busybox',
        '--plugins',
        'deploy-image.go.kubebuilder.io/v1-alpha',
        '--image',
        'busybox:1.36.1',
      ],
      [
        '--group',
        'tools',
        '--version',
        'v1',
        '--kind',
        'Name',
        '--plugins',
        'deploy-image',
        '--image',
        'busybox',
        '--image-container-port',
        '80',
      ],
      [
        '--group',
        'tools',
        '--version',
        'v1',
        '--kind',
        'V1Deployment',
        '--plugins',
        'deploy-image',
        '--image',
        'busybox',
      ],
      [
        '--group',
        'tools',
        '--version',
        'v1',
        '--kind',
        'Default',
        '--plugins',
        'deploy-image',
        '--image',
        'busybox',
        '--image-container-port',
        '80',
      ],
    ],
  },
  {
    // Every name the plugin's controller and test declare, import or use, as a Kind: each file
    // imports the Kind under an alias or renames its own variable.
    name: 'deploy-image: Kinds named like the names of its controller and test',
    apis: [
      'TerminalError',
      'V1Deployment',
      'ConditionInput',
      'SetControllerReference',
      'AddFinalizer',
      'Found',
      'Deployment',
      'Size',
      'Image',
      'Labels',
      'Latest',
      'Changed',
      'Tag',
      'LabelValue',
      'LabelsFor',
      'ImageFromEnv',
      'Minimum',
      'Maximum',
      'Int32',
      'Container',
      'Owner',
      'Available',
      'Key',
      'Sample',
      'EventsV1Event',
      'Signal',
      'Logger',
      'Promise',
      'Delete',
      'Record',
    ].map((kind) => [
      '--group',
      'tools',
      '--version',
      'v1',
      '--kind',
      kind,
      '--plugins',
      'deploy-image',
      '--image',
      'busybox',
      '--image-container-port',
      '80',
      '--image-container-command',
      'sh,-c,sleep 1d',
      '--run-as-user',
      '1000',
    ]),
  },
];

describe('create api output type-checks (tsc --noEmit, strict)', () => {
  after(() => rmSync(work, { recursive: true, force: true }));

  CASES.forEach((c, i) => {
    it(c.name, async () => {
      const dir = join(work, `p${i}`);
      mkdirSync(dir);
      await kubeforge(dir, [
        'init',
        '--domain',
        'example.com',
        '--skip-install',
        '--kubeforge-source',
        'link',
        ...(c.init ?? []),
      ]);
      linkModules(dir);
      for (const api of c.apis)
        await kubeforge(dir, [
          'create',
          'api',
          ...(api.some((a) => a.startsWith('--make')) ? api : [...api, '--make=false']),
        ]);
      for (const command of c.later ?? []) await kubeforge(dir, command);
      for (const file of c.files ?? []) assert.ok(existsSync(join(dir, file)), `${file} was written`);
      for (const [file, pattern] of c.contains ?? [])
        assert.match(readFileSync(join(dir, file), 'utf8'), pattern, file);
      const r = spawnSync(join(repo, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json', '--noEmit'], {
        cwd: dir,
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, `tsc found errors:\n${r.stdout}${r.stderr}`);
    });
  });
});
