// `kubeforge manifests --generate-embedded-object-meta` (controller-gen's
// crd:generateEmbeddedObjectMeta; test/oracle/controller-gen.test.ts compares the schema with
// controller-gen's): through the CLI, recorded in package.json's manifests script like
// --max-desc-len, part of the cache key, and read back by create api's manifests step.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { recordedFlag, recordFlag } from '../../src/manifests/script.js';

const repo = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const work = mkdtempSync(join(tmpdir(), 'kf-eom-'));
after(() => rmSync(work, { recursive: true, force: true }));

async function kubeforge(cwd: string, ...args: string[]) {
  let out = '';
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: (t) => void (out += t),
    err: (t) => void (err += t),
  });
  return { code, out, err };
}

const CRD = 'config/crd/bases/k8s.golden.kubeforge.io_deployers.yaml';
/** The schema of the pod template's metadata in the CRD's text. */
const templateMeta = (dir: string) =>
  /template:\n(?:.*\n)*?\s+metadata:\n((?:\s{20,}.*\n)*)/.exec(readFileSync(join(dir, CRD), 'utf8'))?.[1] ?? '';

describe('manifests --generate-embedded-object-meta', () => {
  it('expands embedded ObjectMeta, is recorded in the manifests script, and is part of the cache key', async () => {
    const dir = join(work, 'p');
    cpSync(join(repo, 'test/fixtures/manifests/golden/k8s'), dir, { recursive: true });
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
        include: ['src/**/*.ts'],
      }),
    );
    writeFileSync(
      join(dir, 'package.json'),
      '{\n  "name": "k8s",\n  "scripts": {\n    "manifests": "kubeforge manifests && echo done"\n  }\n}\n',
    );
    let r = await kubeforge(dir, 'manifests');
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(templateMeta(dir), /labels:/);
    r = await kubeforge(dir, 'manifests', '--generate-embedded-object-meta');
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /UPDATE package\.json \(scripts\.manifests: kubeforge manifests --generate-embedded-object-meta && echo done\)/,
    );
    assert.match(templateMeta(dir), /labels:\n\s+additionalProperties:\n\s+type: string\n\s+type: object/);
    assert.match(templateMeta(dir), /finalizers:/);
    assert.equal(
      recordedFlag(readFileSync(join(dir, 'package.json'), 'utf8'), '--generate-embedded-object-meta'),
      true,
    );
    // A plain run (as --check's hint says to run) uses what the script records, as make manifests does.
    r = await kubeforge(dir, 'manifests');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'manifests are up to date\n');
    assert.match(templateMeta(dir), /finalizers:/);
    // The flag taken out of the script: the no-change cache does not answer for the other schema.
    const pkg = join(dir, 'package.json');
    writeFileSync(pkg, readFileSync(pkg, 'utf8').replace(' --generate-embedded-object-meta', ''));
    r = await kubeforge(dir, 'manifests');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`UPDATE ${CRD.replace(/\./g, '\\.')}`));
    assert.doesNotMatch(templateMeta(dir), /labels:/);
  });

  it('recordFlag adds the flag to the kubeforge command once, never after && or in a comment', () => {
    const pkg = (s: string) => JSON.stringify({ scripts: { manifests: s } });
    const script = (p: string | undefined) => (JSON.parse(p!) as { scripts: { manifests: string } }).scripts.manifests;
    assert.equal(
      script(recordFlag(pkg('kubeforge manifests # x'), '--generate-embedded-object-meta')),
      'kubeforge manifests --generate-embedded-object-meta # x',
    );
    const once = recordFlag(pkg('kubeforge manifests --max-desc-len 0'), '--generate-embedded-object-meta')!;
    assert.equal(recordFlag(once, '--generate-embedded-object-meta'), once);
    assert.equal(
      recordedFlag(pkg('kubeforge manifests && x --generate-embedded-object-meta'), '--generate-embedded-object-meta'),
      false,
    );
    assert.equal(
      recordFlag('{"scripts":{"manifests":"controller-gen crd"}}', '--generate-embedded-object-meta'),
      undefined,
    );
  });
});
