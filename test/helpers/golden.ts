/**
 * Golden trees: real files under test/golden/. `UPDATE_GOLDEN=1` rewrites them (and removes
 * stale ones); otherwise every file is compared byte for byte and a failure shows a unified diff.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { unifiedDiff } from '../../src/machinery/index.js';
import { packageRoot } from '../../src/util/package-root.js';

export const GOLDEN_ROOT = join(packageRoot(), 'test', 'golden');
export const updating = process.env.UPDATE_GOLDEN === '1';

function listFiles(dir: string, base = dir, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) listFiles(p, base, out);
    else out.push(relative(base, p).split('\\').join('/'));
  }
  return out;
}

/** Compares (or with UPDATE_GOLDEN=1 writes) a whole tree of text files. */
export function assertGoldenTree(actual: Record<string, string>, goldenDir: string): void {
  const dir = join(GOLDEN_ROOT, goldenDir);
  if (updating) {
    rmSync(dir, { recursive: true, force: true });
    for (const [path, text] of Object.entries(actual)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return;
  }
  const golden = listFiles(dir);
  assert.deepEqual(
    Object.keys(actual).sort(),
    golden,
    `file list differs from test/golden/${goldenDir} (UPDATE_GOLDEN=1 rewrites it)`,
  );
  const diffs: string[] = [];
  for (const path of golden) {
    const want = readFileSync(join(dir, path), 'utf8');
    const got = actual[path];
    if (want !== got)
      diffs.push(unifiedDiff(want, got, { from: `test/golden/${goldenDir}/${path}`, to: `actual/${path}` }));
  }
  assert.ok(diffs.length === 0, `golden files differ (UPDATE_GOLDEN=1 rewrites them):\n${diffs.join('\n')}`);
}

/** Compares (or writes) one golden text file under test/golden/. */
export function assertGoldenFile(actual: string, goldenPath: string): void {
  assertGoldenText(actual, join(GOLDEN_ROOT, goldenPath));
}

/** Compares (or with UPDATE_GOLDEN=1 writes) one golden text file anywhere in the repository; a failure shows a unified diff. */
export function assertGoldenText(actual: string, file: string): void {
  const shown = relative(packageRoot(), file).split('\\').join('/');
  if (updating) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  assert.ok(existsSync(file), `missing golden file ${shown} (UPDATE_GOLDEN=1 writes it)`);
  const want = readFileSync(file, 'utf8');
  assert.ok(
    want === actual,
    `golden file differs (UPDATE_GOLDEN=1 rewrites it):\n${unifiedDiff(want, actual, { from: shown, to: 'actual' })}`,
  );
}

/** A CRD without the generator's version annotation (an empty annotations map goes too), for comparing generators. */
export function withoutGeneratorVersion<T extends object>(crd: T): T {
  const copy = JSON.parse(JSON.stringify(crd)) as { metadata: { annotations?: Record<string, string> } };
  const ann = copy.metadata.annotations;
  if (ann) {
    delete ann['controller-gen.kubebuilder.io/version'];
    delete ann['kubeforge.io/version'];
    if (Object.keys(ann).length === 0) delete copy.metadata.annotations;
  }
  return copy as unknown as T;
}
