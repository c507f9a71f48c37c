// `kubeforge manifests --generate-embedded-object-meta` (controller-gen's
// crd:generateEmbeddedObjectMeta; test/oracle/controller-gen.test.ts compares the schema with
// controller-gen's): through the CLI, recorded in PROJECT's manifests record like
// --max-desc-len, part of the cache key; an older project's manifests script flag still read.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { recordedFlag } from '../../src/manifests/script.js';
import { serializeProject } from '../../src/project/index.js';

const repo = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const work = mkdtempSync(join(tmpdir(), 'kf-eom-'));
after(() => rmSync(work, { recursive: true, force: true }));

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
  return { code, out, err };
}

const CRD = 'config/crd/bases/k8s.golden.kubeforge.io_deployers.yaml';
const PROJECT_TEXT = serializeProject({
  version: '3',
  domain: 'kubeforge.io',
  layout: ['typescript.kubeforge.io/v1'],
  projectName: 'k8s',
  repo: 'k8s',
  resources: [],
});
/** The schema of the pod template's metadata in the CRD's text. */
const templateMeta = (dir: string) =>
  /template:\n(?:.*\n)*?\s+metadata:\n((?:\s{20,}.*\n)*)/.exec(readFileSync(join(dir, CRD), 'utf8'))?.[1] ?? '';

describe('manifests --generate-embedded-object-meta', () => {
  it('expands embedded ObjectMeta, is recorded in PROJECT, and is part of the cache key', async () => {
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
    writeFileSync(join(dir, 'PROJECT'), PROJECT_TEXT);
    let r = await kubeforge(dir, 'manifests');
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(templateMeta(dir), /labels:/);
    r = await kubeforge(dir, 'manifests', '--generate-embedded-object-meta');
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^UPDATE PROJECT \(plugins\.manifests\.kubeforge\.io\/v1-alpha: generateEmbeddedObjectMeta true\)$/m,
    );
    assert.match(templateMeta(dir), /labels:\n\s+additionalProperties:\n\s+type: string\n\s+type: object/);
    assert.match(templateMeta(dir), /finalizers:/);
    const project = join(dir, 'PROJECT');
    assert.match(
      readFileSync(project, 'utf8'),
      /^plugins:\n {2}manifests\.kubeforge\.io\/v1-alpha:\n {4}generateEmbeddedObjectMeta: true\n/m,
    );
    assert.match(readFileSync(join(dir, 'package.json'), 'utf8'), /"manifests": "kubeforge manifests && echo done"/);
    // A plain run (as --check's hint says to run) uses what PROJECT records.
    r = await kubeforge(dir, 'manifests');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'manifests are up to date\n');
    assert.match(templateMeta(dir), /finalizers:/);
    // The record set to false: the no-change cache does not answer for the other schema.
    writeFileSync(
      project,
      readFileSync(project, 'utf8').replace('generateEmbeddedObjectMeta: true', 'generateEmbeddedObjectMeta: false'),
    );
    r = await kubeforge(dir, 'manifests');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`UPDATE ${CRD.replace(/\./g, '\\.')}`));
    assert.doesNotMatch(templateMeta(dir), /labels:/);
    // An older project passing the flag in its manifests script: the script's flag wins, as make manifests passes it.
    const pkg = join(dir, 'package.json');
    writeFileSync(
      pkg,
      readFileSync(pkg, 'utf8').replace(
        'kubeforge manifests &&',
        'kubeforge manifests --generate-embedded-object-meta &&',
      ),
    );
    r = await kubeforge(dir, 'manifests');
    assert.equal(r.code, 0, r.err);
    assert.match(templateMeta(dir), /finalizers:/);
    assert.doesNotMatch(r.out, /PROJECT/, 'nothing recorded');
  });

  it("reads the flag from an older project's manifests script: its kubeforge command only, never after && or in a comment", () => {
    const pkg = (s: string) => JSON.stringify({ scripts: { manifests: s } });
    const flag = '--generate-embedded-object-meta';
    assert.equal(recordedFlag(pkg('kubeforge manifests --max-desc-len 0 --generate-embedded-object-meta'), flag), true);
    assert.equal(recordedFlag(pkg('kubeforge manifests && x --generate-embedded-object-meta'), flag), false);
    assert.equal(recordedFlag(pkg('kubeforge manifests # --generate-embedded-object-meta'), flag), false);
    assert.equal(
      recordedFlag('{"scripts":{"manifests":"controller-gen crd --generate-embedded-object-meta"}}', flag),
      false,
    );
  });
});
