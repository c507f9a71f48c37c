// Hostile input, second round, family 3: `create webhook` (and `create api --resource=false`) on
// built-in Kinds. A Kind Kubernetes does not serve in the group/version given (apps/v2 Deployment,
// core/v1 Deployment) is refused with KF1066 naming where it is, nothing written; a real one gets
// a test object its client-node type accepts (test/scaffolds/webhook-compile.test.ts compiles the
// webhooks of every built-in Kind; test/scaffolds/builtin-kinds.test.ts has the server accept the
// hand-written bodies). Driven through the real CLI.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanup, cli, fingerprint, initProject, ok } from './helpers.js';

after(cleanup);

const project = () => initProject();

describe('hostile: built-in Kinds are the ones Kubernetes serves (CLI)', () => {
  it('a Kind not served in that group/version: KF1066 naming where it is, exit 1, nothing written', async () => {
    const dir = await project();
    const before = fingerprint(dir);
    for (const [args, where] of [
      [
        ['create', 'webhook', '--group', 'apps', '--version', 'v2', '--kind', 'Deployment', '--defaulting'],
        /Deployment is built in as --group apps --version v1/,
      ],
      [
        ['create', 'webhook', '--group', 'core', '--version', 'v1', '--kind', 'Deployment', '--defaulting'],
        /Deployment is built in as --group apps --version v1/,
      ],
      [
        [
          'create',
          'api',
          '--group',
          'apps',
          '--version',
          'v2',
          '--kind',
          'Deployment',
          '--resource=false',
          '--controller',
        ],
        /Deployment is built in as --group apps --version v1/,
      ],
      [
        ['create', 'webhook', '--group', 'apps', '--version', 'v1', '--kind', 'Widget', '--defaulting'],
        /apps\/v1 has ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet/,
      ],
    ] as const) {
      const r = await cli(dir, [...args, '--make=false']);
      assert.equal(r.code, 1, `${args.join(' ')}\n${r.out}${r.err}`);
      assert.match(r.err, /KF1066 {2}Kubernetes serves no built-in Kind/);
      assert.match(r.err, where);
      assert.deepEqual(fingerprint(dir), before, args.join(' '));
    }
  });

  it('CronJob, StatefulSet, ConfigMap and RoleBinding get test objects with the fields Kubernetes requires', async () => {
    const dir = await project();
    const expect: [string, string, string, RegExp][] = [
      ['batch', 'v1', 'CronJob', /spec: \{ schedule: '\*\/5 \* \* \* \*', jobTemplate:/],
      ['apps', 'v1', 'StatefulSet', /spec: \{ serviceName: 'test', selector:/],
      ['core', 'v1', 'ConfigMap', / {4}data: \{ example: 'value' \},\n/],
      [
        'rbac',
        'v1',
        'RoleBinding',
        / {4}roleRef: \{ apiGroup: 'rbac\.authorization\.k8s\.io', kind: 'Role', name: 'test' \},\n/,
      ],
    ];
    for (const [group, version, kind, body] of expect) {
      ok(
        await cli(dir, [
          'create',
          'webhook',
          '--group',
          group,
          '--version',
          version,
          '--kind',
          kind,
          '--defaulting',
          '--make=false',
        ]),
        `create webhook ${kind}`,
      );
      const test = readFileSync(join(dir, `test/webhook/${version}/${kind.toLowerCase()}_webhook.test.ts`), 'utf8');
      assert.match(test, body, kind);
      assert.doesNotMatch(test, /spec: \{\},/, kind);
    }
  });
});
