import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { parseProject } from '../../src/project/index.js';
import { isBinary, MemoryHost } from '../../src/machinery/index.js';
import { type InitOptions, npmInstall, planInit, runInit } from '../../src/scaffolds/init.js';
import { packageRoot, packageVersion } from '../../src/util/package-root.js';
import { assertGoldenFile, assertGoldenTree } from '../helpers/golden.js';
import { must } from '../helpers/must.js';

const VERSION = packageVersion();

/** Golden files must not change with kubeforge's version: its tarball name and spec are normalised. */
export function normalise(text: string): string {
  return text
    .replace(
      new RegExp(`kubeforge-${VERSION.replace(/\./g, '\\.')}-[0-9a-f]{8}\\.tgz`, 'g'),
      'kubeforge-VERSION-HASH.tgz',
    )
    .split(`"kubeforge": "^${VERSION}"`)
    .join('"kubeforge": "^VERSION"')
    .replace(/\(binary, [0-9.]+ (KiB|bytes)\)/g, '(binary)');
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, env: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
}

async function scaffold(options: InitOptions, cwd: string, host = new MemoryHost()) {
  const io = capture();
  const result = await runInit({ skipInstall: true, ...options }, { cwd, host, ...io.env });
  return { host, result, ...io };
}

/** The text files of the tree, normalised; binaries are left out (their names are in the plan golden). */
function textTree(host: MemoryHost): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, data] of [...host.files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!isBinary(data)) out[path] = normalise(data.toString('utf8'));
  }
  return out;
}

const CASES: { name: string; cwd: string; options: InitOptions }[] = [
  { name: 'default', cwd: '/projects/guestbook', options: { domain: 'example.com', owner: 'The Guestbook Authors' } },
  {
    name: 'license-none-registry',
    cwd: '/projects/anything',
    options: {
      domain: 'my-org.io',
      projectName: 'memcached-operator',
      packageName: '@acme/memcached-operator',
      license: 'none',
      multigroup: true,
      kubeforgeSource: 'registry',
    },
  },
  // A namespace-scoped manager: Role + RoleBinding, WATCH_NAMESPACE, main.ts restricting the cache.
  {
    name: 'namespaced',
    cwd: '/projects/guestbook',
    options: { domain: 'example.com', owner: 'The Guestbook Authors', namespaced: true },
  },
  // A sharded manager: manager.yaml runs 3 replicas with --shard-ring=guestbook, PROJECT records it.
  {
    name: 'sharded',
    cwd: '/projects/guestbook',
    options: { domain: 'example.com', owner: 'The Guestbook Authors', sharded: true },
  },
];

describe('kubeforge init (golden trees)', () => {
  for (const c of CASES) {
    it(`${c.name}: the --dry-run plan matches test/golden/init/${c.name}/plan.txt and writes nothing`, async () => {
      const host = new MemoryHost();
      const { out } = await scaffold({ ...c.options, dryRun: true }, c.cwd, host);
      assert.equal(host.files.size, 0, 'dry run wrote nothing');
      assertGoldenFile(normalise(out.join('')), `init/${c.name}/plan.txt`);
    });

    it(`${c.name}: the tree matches test/golden/init/${c.name}/tree`, async () => {
      const { host } = await scaffold(c.options, c.cwd);
      assertGoldenTree(textTree(host), `init/${c.name}/tree`);
    });

    it(`${c.name}: running init again with --force and the same flags plans nothing`, async () => {
      const { host } = await scaffold(c.options, c.cwd);
      const before = new Map(host.files);
      const again = await scaffold({ ...c.options, force: true }, c.cwd, host);
      assert.deepEqual(again.result.changes, []);
      assert.equal(again.out.join(''), 'Nothing to change.\n');
      assert.deepEqual(host.files, before);
    });
  }

  it('is deterministic: same flags, same bytes (tarball included)', async () => {
    const a = await scaffold(CASES[0].options, '/x/guestbook');
    const b = await scaffold(CASES[0].options, '/y/guestbook');
    assert.deepEqual([...a.host.files.keys()], [...b.host.files.keys()]);
    for (const [k, v] of a.host.files) assert.ok(v.equals(must(b.host.files.get(k), k)), k);
    const tgz = [...a.host.files.keys()].filter((k) => k.startsWith('.kubeforge/'));
    assert.equal(tgz.length, 1);
    assert.match(tgz[0], new RegExp(`^\\.kubeforge/kubeforge-${VERSION.replace(/\./g, '\\.')}-[0-9a-f]{8}\\.tgz$`));
  });

  it('writes no absolute paths, --kubeforge-source link included (its file: spec is relative)', async () => {
    const { host } = await scaffold({ domain: 'example.com' }, '/somewhere/deep/guestbook');
    // Neither the project's folder, nor kubeforge's own checkout, nor a home folder.
    const checkout = packageRoot().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const absolute = new RegExp(`/somewhere|${checkout}|/root/`);
    for (const [k, v] of host.files) if (!isBinary(v)) assert.doesNotMatch(v.toString('utf8'), absolute, k);
    const linked = await scaffold({ domain: 'example.com', kubeforgeSource: 'link' }, '/somewhere/guestbook');
    const pkg = JSON.parse(must(linked.host.read('package.json'), 'package.json').toString('utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.match(pkg.dependencies.kubeforge, /^file:\.\.\//);
    assert.equal(resolve('/somewhere/guestbook', pkg.dependencies.kubeforge.slice('file:'.length)), packageRoot());
    assert.equal(
      [...linked.host.files.keys()].some((k) => k.startsWith('.kubeforge/')),
      false,
    );
    assert.doesNotMatch(must(linked.host.read('Dockerfile'), 'Dockerfile').toString('utf8'), /\.kubeforge/);
  });

  it('--force replaces a stale kubeforge tarball (new name, old one deleted) so npm install picks it up', async () => {
    const { host } = await scaffold({ domain: 'example.com' }, '/w/guestbook');
    const current = must(
      [...host.files.keys()].find((k) => k.startsWith('.kubeforge/')),
      'a tarball under .kubeforge/',
    );
    host.files.set('.kubeforge/kubeforge-0.0.1-deadbeef.tgz', Buffer.from([0, 1]));
    host.files.set('.kubeforge/notes.txt', Buffer.from('mine\n'));
    const again = await scaffold({ domain: 'example.com', force: true }, '/w/guestbook', host);
    assert.deepEqual(again.out.join(''), 'DELETE .kubeforge/kubeforge-0.0.1-deadbeef.tgz (binary, 2 bytes)\n');
    assert.ok(host.files.has(current));
    assert.ok(host.files.has('.kubeforge/notes.txt'), 'files that are not kubeforge tarballs stay');
  });

  it('config/rbac/role.yaml is byte for byte what `kubeforge manifests` writes for a project without @Rbac markers', async () => {
    const { generateRbac } = await import('../../src/manifests/rbac.js');
    const { toYamlDocuments } = await import('../../src/manifests/yaml.js');
    const { withHeader, RBAC_FILE } = await import('../../src/manifests/managed-files.js');
    const { host } = await scaffold({ domain: 'example.com' }, '/w/guestbook');
    assert.equal(
      must(host.read(RBAC_FILE), RBAC_FILE).toString('utf8'),
      withHeader(toYamlDocuments(generateRbac([]).objects)),
    );
    const namespaced = await scaffold({ domain: 'example.com', namespaced: true }, '/w/guestbook');
    assert.equal(
      must(namespaced.host.read(RBAC_FILE), RBAC_FILE).toString('utf8'),
      withHeader(toYamlDocuments(generateRbac([], undefined, { managerNamespace: 'guestbook-system' }).objects)),
    );
    assert.match(must(namespaced.host.read('PROJECT'), 'PROJECT').toString('utf8'), /^namespaced: true$/m);
  });

  it('--force keeps the resources of an existing PROJECT file', async () => {
    const { host } = await scaffold({ domain: 'example.com' }, '/w/guestbook');
    const project = must(host.read('PROJECT'), 'PROJECT')
      .toString('utf8')
      .replace('version: "3"', 'resources:\n- group: batch\n  kind: CronJob\n  version: v1\nversion: "3"');
    host.files.set('PROJECT', Buffer.from(project));
    const { result } = await scaffold({ domain: 'example.com', force: true }, '/w/guestbook', host);
    assert.deepEqual(result.changes, []);
    assert.equal(parseProject(must(host.read('PROJECT'), 'PROJECT').toString('utf8')).resources[0].kind, 'CronJob');
  });

  it('collects every invalid flag in one error', async () => {
    await assert.rejects(
      planInit(
        { domain: 'Bad_Domain', projectName: 'Bad.Name', license: 'mit' },
        { cwd: '/w/x', host: new MemoryHost(), out: () => {}, err: () => {} },
      ),
      (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        assert.deepEqual(
          e.diagnostics.map((d) => d.code),
          ['KF1001', 'KF1001', 'KF1004'],
        );
        return true;
      },
    );
  });

  it('runs the install step after writing, and reports its failure with how to finish by hand', async () => {
    const host = new MemoryHost();
    const calls: string[] = [];
    const io = capture();
    await runInit(
      { domain: 'example.com' },
      { cwd: '/w/guestbook', host, ...io.env, install: async (dir) => void calls.push(`${dir}:${host.files.size}`) },
    );
    assert.equal(calls.length, 1);
    assert.match(calls[0], /^\/w\/guestbook:\d+$/);
    assert.ok(Number(calls[0].split(':')[1]) > 40, 'installed after the files were written');
    const failing = new MemoryHost();
    await assert.rejects(
      runInit(
        { domain: 'example.com' },
        {
          cwd: '/w/guestbook',
          host: failing,
          ...io.env,
          install: async () => {
            throw new DiagnosticError({
              code: 'KF1030',
              severity: 'error',
              message: 'npm install failed',
              hint: 'cd /w/guestbook && npm install',
            });
          },
        },
      ),
      /KF1030/,
    );
    assert.ok(failing.files.has('package.json'), 'the scaffold stays when npm install fails');
  });

  it('--dry-run skips the install step', async () => {
    let calls = 0;
    const io = capture();
    await runInit(
      { domain: 'example.com', dryRun: true },
      { cwd: '/w/guestbook', host: new MemoryHost(), ...io.env, install: async () => void calls++ },
    );
    assert.equal(calls, 0);
  });

  it('npmInstall: a failing npm install says how to finish by hand', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-npm-'));
    try {
      writeFileSync(join(dir, 'package.json'), '{ not json');
      const io = capture();
      await assert.rejects(npmInstall(dir, { cwd: dir, ...io.env }), (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        assert.equal(e.diagnostics[0].code, 'KF1030');
        assert.match(e.diagnostics[0].message, /npm install failed in .* \(exit \d+\)/);
        assert.equal(e.diagnostics[0].hint, `the project is scaffolded; finish by hand: cd ${dir} && npm install`);
        return true;
      });
      assert.match(io.err.join(''), /Installing dependencies: npm install/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
