/**
 * `kubeforge create webhook` through the CLI: Go-style boolean flags, --spoke lists, help with
 * examples; bad input exits 1 with a located message and leaves the project exactly as it was.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubeforgeIn } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kf-cli-webhook-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const kubeforge = (...args: string[]) => kubeforgeIn(dir, ...args);

function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}

describe('kubeforge create webhook (CLI)', () => {
  before(async () => {
    for (const args of [
      [
        'init',
        '--domain',
        'testproject.org',
        '--project-name',
        'project-v4',
        '--skip-install',
        '--kubeforge-source',
        'link',
      ],
      ['create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'FirstMate', '--make=false'],
      [
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v2',
        '--kind',
        'FirstMate',
        '--controller=false',
        '--make=false',
      ],
      [
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v3',
        '--kind',
        'FirstMate',
        '--controller=false',
        '--make=false',
      ],
    ]) {
      const r = await kubeforge(...args);
      assert.equal(r.code, 0, r.err);
    }
  });

  it('bad input exits 1 with a located message and a hint; the project is unchanged', async () => {
    const before = snapshot();
    const none = await kubeforge(
      'create',
      'webhook',
      '--group',
      'crew',
      '--version',
      'v1',
      '--kind',
      'FirstMate',
      '--defaulting=false',
      '--make=false',
    );
    assert.equal(none.code, 1);
    assert.match(none.err, /KF1060 +no webhook type chosen/);
    const spoke = await kubeforge(
      'create',
      'webhook',
      '--group',
      'crew',
      '--version',
      'v1',
      '--kind',
      'FirstMate',
      '--conversion',
      '--spoke',
      'v2,v9',
      '--make=false',
    );
    assert.equal(spoke.code, 1);
    assert.match(
      spoke.err,
      /PROJECT.*KF1063 +--spoke v9: PROJECT has no version v9 of FirstMate \(it has v1, v2, v3\)/,
    );
    assert.match(
      spoke.err,
      /hint: create it first: kubeforge create api --group crew --version v9 --kind FirstMate --controller=false/,
    );
    const bool = await kubeforge(
      'create',
      'webhook',
      '--group',
      'crew',
      '--version',
      'v1',
      '--kind',
      'FirstMate',
      '--defaulting=maybe',
    );
    assert.equal(bool.code, 1);
    assert.match(bool.err, /invalid value "maybe" for --defaulting/);
    assert.deepEqual(snapshot(), before);
  });

  it('--conversion --spoke v2,v3 with Go-style booleans; a second run with --force plans nothing', async () => {
    const args = [
      'create',
      'webhook',
      '--group',
      'crew',
      '--version',
      'v1',
      '--kind',
      'FirstMate',
      '--conversion',
      '--spoke',
      'v2,v3',
      '--defaulting=true',
      '--programmatic-validation=false',
      '--make=false',
    ];
    const r = await kubeforge(...args);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^CREATE src\/api\/v2\/firstmate_conversion\.ts/m);
    assert.match(r.out, /^CREATE src\/api\/v3\/firstmate_conversion\.ts/m);
    assert.match(r.out, /^CREATE src\/webhook\/v1\/firstmate_webhook\.ts/m);
    const webhook = readFileSync(join(dir, 'src/webhook/v1/firstmate_webhook.ts'), 'utf8');
    assert.match(webhook, /class FirstMateCustomDefaulter/);
    assert.doesNotMatch(webhook, /class FirstMateCustomValidator/);
    const again = await kubeforge(...args, '--force');
    assert.equal(again.code, 0, again.err);
    assert.equal(again.out, 'Nothing to change.\n');
    const refused = await kubeforge(...args);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /KF1062/);
  });

  it('create webhook --help lists every flag with examples; create --help shows both commands', async () => {
    const h = await kubeforge('create', 'webhook', '--help');
    assert.equal(h.code, 0);
    for (const flag of [
      '--group',
      '--version',
      '--kind',
      '--plural',
      '--defaulting',
      '--programmatic-validation',
      '--conversion',
      '--spoke',
      '--defaulting-path',
      '--validation-path',
      '--make',
      '--force',
      '--dry-run',
    ]) {
      assert.ok(h.out.includes(flag), flag);
    }
    assert.match(
      h.out,
      /Examples:\n {2}\$ kubeforge create webhook --group batch --version v1 --kind CronJob --defaulting --programmatic-validation/,
    );
    const c = await kubeforge('create', '--help');
    assert.match(c.out, /webhook \[options\]/);
    assert.match(c.out, /\$ kubeforge create webhook --group core --version v1 --kind Pod --defaulting/);
  });

  it('when the manifests step fails, the webhook is taken back: exit 1 and the project as it was', async () => {
    const bad = join(dir, 'src/api/v1/bad_types.ts');
    writeFileSync(
      bad,
      "import type { V1ObjectMeta } from '@kubernetes/client-node';\nimport { Maximum, Root } from 'kubeforge/markers';\nexport class BadSpec {\n  @Maximum(3)\n  name?: string;\n}\n@Root()\nexport class Bad {\n  metadata?: V1ObjectMeta;\n  spec?: BadSpec;\n}\n",
    );
    try {
      const before = snapshot();
      const r = await kubeforge(
        'create',
        'webhook',
        '--group',
        'crew',
        '--version',
        'v2',
        '--kind',
        'FirstMate',
        '--programmatic-validation',
      );
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(r.err, /bad_types\.ts/);
      assert.match(
        r.err,
        /KF1050 +generating the manifests with the FirstMate webhooks failed \(see above\), so they were not scaffolded: nothing was written/,
      );
      assert.deepEqual(snapshot(), before);
    } finally {
      rmSync(bad);
    }
  });
});
