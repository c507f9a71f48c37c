// The package's pin: CEL_GO_VERSIONS says which cel-go each Kubernetes minor's API server runs,
// and the oracles its tests run (the corpus extractor, packages/cel/test/oracle/celcorpus, and
// kubeforge's cost oracle, test/oracle/celcost) must build against the newest row: the
// k8s.io/apiserver of NEWEST_CEL_TARGET and the cel-go the table names for it. A bump of the
// oracles without the table (or the reverse) fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CEL_GO_VERSIONS, NEWEST_CEL_TARGET, OLDEST_CEL_TARGET } from '../src/index.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');

/** The version a go.mod requires of `module` (direct or indirect). */
function required(goMod: string, module: string): string | undefined {
  const text = readFileSync(join(root, goMod), 'utf8');
  return new RegExp(`^\\s*(?:require\\s+)?${module.replaceAll('.', '\\.')} (v\\S+)`, 'm').exec(text)?.[1];
}

describe('cel-go pinned per Kubernetes minor', () => {
  it('has a cel-go version for every minor from the oldest target to the newest', () => {
    for (let minor = OLDEST_CEL_TARGET; minor <= NEWEST_CEL_TARGET; minor++)
      assert.match(CEL_GO_VERSIONS[minor] ?? '', /^v0\.\d+\.\d+$/, `1.${minor}`);
    assert.ok(Math.max(...Object.keys(CEL_GO_VERSIONS).map(Number)) === NEWEST_CEL_TARGET);
  });

  for (const goMod of ['packages/cel/test/oracle/celcorpus/go.mod', 'test/oracle/celcost/go.mod']) {
    it(`${goMod} runs the newest minor's API server and its cel-go`, () => {
      assert.match(required(goMod, 'k8s.io/apiserver') ?? '', new RegExp(`^v0\\.${NEWEST_CEL_TARGET}\\.\\d+$`));
      assert.equal(required(goMod, 'github.com/google/cel-go'), CEL_GO_VERSIONS[NEWEST_CEL_TARGET]);
    });
  }
});
