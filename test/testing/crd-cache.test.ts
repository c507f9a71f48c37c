/**
 * readCRDFiles keeps what it parsed in kubeforge's cache folder (by the hash of the file's text):
 * a later process reading the same text gets the same CRDs without loading the yaml parser; a
 * changed file, a damaged or unwritable cache, and a bad file behave as without the cache.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseCRDFile } from '../../src/testing/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { must } from '../helpers/must.js';

const testingURL = new URL('../../src/testing/index.js', import.meta.url).href;
const sample = join(packageRoot(), 'testdata/project/config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml');

/** readCRDFiles([dir]) in a new process with XDG_CACHE_HOME=cache: its CRDs (or error) and whether it loaded yaml. */
function readInNewProcess(dir: string, cache: string): { crds?: unknown[]; error?: string; yamlLoaded: boolean } {
  const script = `
import { createRequire } from 'node:module';
const { readCRDFiles } = await import(${JSON.stringify(testingURL)});
let out;
try { out = { crds: readCRDFiles([${JSON.stringify(dir)}]) }; } catch (e) { out = { error: e.message }; }
out.yamlLoaded = Object.keys(createRequire(${JSON.stringify(testingURL)}).cache).some((f) => f.includes('/node_modules/yaml/dist/'));
console.log(JSON.stringify(out));
`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: cache },
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(must(r.stdout.trim().split('\n').pop(), "r.stdout.trim().split('\\n').pop()"));
}

describe('CRD files parsed once, across processes', () => {
  const root = mkdtempSync(join(tmpdir(), 'kubeforge-crd-cache-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a second process reads the cache, not the YAML; a changed or damaged entry is parsed again', () => {
    const dir = join(root, 'crds');
    const cache = join(root, 'cache');
    mkdirSync(dir);
    const file = join(dir, 'cronjobs.yaml');
    copyFileSync(sample, file);
    const expected = parseCRDFile(file, readFileSync(sample, 'utf8'));
    const entries = () => readdirSync(join(cache, 'kubeforge', 'crds')).sort();

    const first = readInNewProcess(dir, cache);
    assert.deepEqual(first, { crds: expected, yamlLoaded: true });
    assert.equal(entries().length, 1);

    const second = readInNewProcess(dir, cache);
    assert.deepEqual(second, { crds: expected, yamlLoaded: false });

    // A changed file has another hash: parsed again, with the change.
    writeFileSync(
      file,
      readFileSync(sample, 'utf8').replace(
        '  name: cronjobs.batch.tutorial.kubebuilder.io',
        '  labels:\n    changed: "yes"\n  name: cronjobs.batch.tutorial.kubebuilder.io',
      ),
    );
    const changed = readInNewProcess(dir, cache);
    assert.equal(changed.yamlLoaded, true);
    const changedFirst = changed.crds?.[0] as { metadata: { labels?: unknown } } | undefined;
    assert.deepEqual(changedFirst?.metadata.labels, { changed: 'yes' });
    assert.equal(entries().length, 2);

    // A damaged entry is parsed again (and rewritten).
    copyFileSync(sample, file);
    for (const e of entries()) writeFileSync(join(cache, 'kubeforge', 'crds', e), '{"truncated');
    assert.deepEqual(readInNewProcess(dir, cache), { crds: expected, yamlLoaded: true });
    assert.deepEqual(readInNewProcess(dir, cache), { crds: expected, yamlLoaded: false });
  });

  it('a bad file is reported with its line every time and never cached; an unwritable cache is skipped', () => {
    const dir = join(root, 'bad');
    const cache = join(root, 'cache-bad');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'bad.yaml'),
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: [unclosed\n',
    );
    for (let i = 0; i < 2; i++) {
      const r = readInNewProcess(dir, cache);
      assert.match(r.error ?? '', /bad\.yaml:\d+: YAML syntax error/);
      assert.equal(r.yamlLoaded, true);
    }
    assert.deepEqual(
      existsSync(cache) ? readdirSync(cache, { recursive: true }).filter((f) => String(f).endsWith('.json')) : [],
      [],
    );

    // XDG_CACHE_HOME naming a file: no cache can be made; the CRDs are parsed as without one.
    const good = join(root, 'good');
    mkdirSync(good);
    copyFileSync(sample, join(good, 'cronjobs.yaml'));
    const notADir = join(root, 'not-a-dir');
    writeFileSync(notADir, 'x');
    const expected = parseCRDFile(sample, readFileSync(sample, 'utf8'));
    assert.deepEqual(readInNewProcess(good, notADir), { crds: expected, yamlLoaded: true });
    assert.equal(readFileSync(notADir, 'utf8'), 'x');
  });

  it('keeps at most 512 entries: a write past that removes the older half', () => {
    const dir = join(root, 'prune');
    const cache = join(root, 'cache-prune');
    const entries = join(cache, 'kubeforge', 'crds');
    mkdirSync(dir);
    mkdirSync(entries, { recursive: true });
    copyFileSync(sample, join(dir, 'cronjobs.yaml'));
    const old = new Date(Date.now() - 86_400_000);
    for (let i = 0; i < 512; i++) {
      const f = join(entries, `${String(i).padStart(64, '0')}.json`);
      writeFileSync(f, '[]');
      utimesSync(f, old, new Date(old.getTime() + i * 1000));
    }
    assert.equal(readInNewProcess(dir, cache).yamlLoaded, true);
    const left = readdirSync(entries).sort();
    assert.equal(left.length, 256);
    // The newest 255 of the old ones and the entry just written.
    assert.deepEqual(
      left.filter((n) => n.startsWith('0000')),
      Array.from({ length: 255 }, (_, i) => `${String(257 + i).padStart(64, '0')}.json`),
    );
    assert.equal(readInNewProcess(dir, cache).yamlLoaded, false);
  });
});
