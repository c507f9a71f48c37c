// The CEL corpus (packages/cel/test/corpus) cannot go stale: the extractor (packages/cel/test/oracle/celcorpus, a Go
// module that runs Kubernetes' CEL test tables and reads cel-spec's conformance data at the
// versions its go.mod pins) runs again, into a temporary folder, and what it writes must be the
// committed files byte for byte. It also shows the extraction is deterministic: the tables it
// runs iterate Go maps, whose order changes from run to run. Test infrastructure only: a machine
// without Go fails here with a message saying so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { findGo } from '../../../../src/envtest/go-build.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const extractor = join(root, 'packages/cel/test/oracle/celcorpus');
const committed = join(root, 'packages/cel/test/corpus');

describe('the CEL corpus is what its extractor writes today', () => {
  it('go run ./packages/cel/test/oracle/celcorpus writes the committed packages/cel/test/corpus/*.json byte for byte', async () => {
    const go = await findGo();
    if (!go)
      throw new Error(
        "the CEL corpus extractor needs Go 1.21+ (go on PATH or /usr/local/go/bin/go): it runs Kubernetes' own CEL tests",
      );
    const out = mkdtempSync(join(tmpdir(), 'kf-celcorpus-'));
    try {
      process.stderr.write('celcorpus: running the extractor (about a minute)\n');
      // the extractor runs `go test` itself: the Go that findGo chose goes first on PATH
      const path = go.includes('/') ? `${dirname(go)}:${process.env.PATH ?? ''}` : process.env.PATH;
      const r = spawnSync(go, ['run', '.', '-out', out], {
        cwd: extractor,
        encoding: 'utf8',
        env: { ...process.env, PATH: path, GOFLAGS: '-buildvcs=false' },
        timeout: 20 * 60_000,
      });
      assert.equal(
        r.status,
        0,
        `the extractor failed (exit ${r.status ?? r.signal}):\n${(r.stderr ?? '').slice(-3000)}`,
      );
      const files = readdirSync(committed)
        .filter((f) => f.endsWith('.json'))
        .sort();
      assert.deepEqual(readdirSync(out).sort(), files);
      const stale = files.filter((f) => !readFileSync(join(out, f)).equals(readFileSync(join(committed, f))));
      assert.deepEqual(
        stale,
        [],
        'regenerate them: cd packages/cel/test/oracle/celcorpus && go run . (then update packages/cel/test/corpus.test.ts COUNTS and corpus-known.ts)',
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
