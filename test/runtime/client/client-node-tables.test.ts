// Offline: kubeforge/runtime's copies of @kubernetes/client-node's tables (built-in model classes,
// timestamp fields) are what client-node says, and importing kubeforge/runtime and
// kubeforge/testing, then running a manager on the FakeAPIServer, loads no client-node module.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { BUILTIN_ROWS, resolveStatic } from '../../../src/runtime/client/types.js';
import { reviveDates } from '../../../src/runtime/client/dates.js';
import { DATE_STEPS } from '../../../src/runtime/client/client-node-dates.js';
import { splitAPIVersion } from '../../../src/runtime/client/types.js';
import { packageRoot } from '../../../src/util/package-root.js';
import { must } from '../../helpers/must.js';

const repo = packageRoot();
const models = k8s as unknown as Record<string, unknown>;

describe('the committed client-node tables', () => {
  it('src/runtime/client/client-node-dates.ts is what scripts/gen-client-node-tables.mjs makes from the installed client-node', async () => {
    const gen = (await import(pathToFileURL(join(repo, 'scripts/gen-client-node-tables.mjs')).href)) as {
      OUT: string;
      render(k8s: unknown, version: string): string;
    };
    const { version } = JSON.parse(
      readFileSync(join(repo, 'node_modules/@kubernetes/client-node/package.json'), 'utf8'),
    ) as { version: string };
    const committed = readFileSync(join(repo, gen.OUT), 'utf8');
    assert.equal(
      committed,
      gen.render(k8s, version),
      'run node scripts/gen-client-node-tables.mjs and commit the result',
    );
    assert.ok(Object.keys(DATE_STEPS).length > 100, 'the table covers client-node models');
  });

  it('every built-in row names a client-node model class, which resolves to that row', () => {
    assert.ok(BUILTIN_ROWS.length > 30);
    assert.equal(new Set(BUILTIN_ROWS.map((r) => r[0])).size, BUILTIN_ROWS.length, 'a model listed twice');
    for (const [model, apiVersion, kind, plural, namespaced] of BUILTIN_ROWS) {
      const cls = models[model] as { attributeTypeMap?: unknown } | undefined;
      assert.equal(typeof cls, 'function', `client-node exports no class ${model}`);
      assert.ok(Array.isArray(must(cls, 'cls').attributeTypeMap), `${model} has no attributeTypeMap`);
      const attrs = (must(cls, 'cls').attributeTypeMap as { baseName: string }[]).map((a) => a.baseName);
      for (const f of ['apiVersion', 'kind', 'metadata'])
        assert.ok(attrs.includes(f), `${model} is not an object kind (no ${f})`);
      const r = resolveStatic(cls as never);
      assert.deepEqual(
        ['plural' in r ? r.plural : undefined, 'namespaced' in r ? r.namespaced : undefined, r.apiVersion, r.kind],
        [plural, namespaced, apiVersion, kind],
      );
    }
  });

  // The judge: client-node's own ObjectSerializer turns the same JSON into its model, with Dates.
  it('reviveDates makes Dates exactly where client-node ObjectSerializer does, for every built-in kind', () => {
    const t = '2024-05-06T07:08:09Z';
    for (const [model, apiVersion, kind] of BUILTIN_ROWS) {
      const json = fill(model, t, 0) as Record<string, unknown>;
      Object.assign(json, { apiVersion, kind });
      const theirs = ObjectSerializer.deserialize(structuredClone(json), model, '') as unknown;
      const ours = reviveDates(structuredClone(json), { apiVersion, kind, ...splitAPIVersion(apiVersion) });
      const expected = datePaths(theirs);
      assert.ok(expected.includes('metadata.creationTimestamp'), `${model}: the sample has timestamps`);
      assert.deepEqual(datePaths(ours), expected, model);
    }
  });
});

/** A JSON value of `model` with every field present (one array element, one map entry), timestamps `t`. */
function fill(type: string, t: string, depth: number): unknown {
  let m = /^Array<(.+)>$/.exec(type);
  if (m) return depth > 6 ? [] : [fill(m[1], t, depth + 1)];
  m = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (m) return depth > 6 ? {} : { k: fill(m[1], t, depth + 1) };
  if (type === 'Date') return t;
  if (type === 'string') return 'x';
  if (type === 'number') return 1;
  if (type === 'boolean') return true;
  const cls = models[type] as { getAttributeTypeMap?: () => { baseName: string; type: string }[] } | undefined;
  if (!cls?.getAttributeTypeMap || depth > 6) return {};
  const o: Record<string, unknown> = {};
  for (const a of cls.getAttributeTypeMap()) o[a.baseName] = fill(a.type, t, depth + 1);
  return o;
}

function datePaths(v: unknown, path = ''): string[] {
  if (v instanceof Date) return [path];
  if (!v || typeof v !== 'object') return [];
  return Object.entries(v)
    .flatMap(([k, x]) => datePaths(x, path ? `${path}.${k}` : k))
    .sort();
}

describe('the unit-tier import graph', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeforge-no-client-node-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Fails any load of @kubernetes/client-node: through import (a resolve hook) or require (Module._load).
  const guard = join(dir, 'guard.mjs');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `export async function resolve(specifier, context, next) {
  if (/^@kubernetes\\/client-node(\\/|$)/.test(specifier)) throw new Error('client-node loaded: import of ' + specifier + ' from ' + context.parentURL);
  return next(specifier, context);
}
`,
  );
  writeFileSync(
    guard,
    `import { register, createRequire } from 'node:module';
register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});
const Module = createRequire(import.meta.url)('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (/^@kubernetes\\/client-node(\\/|$)/.test(request)) throw new Error('client-node loaded: require of ' + request + ' from ' + (parent && parent.filename));
  return load.call(this, request, parent, isMain);
};
`,
  );
  const run = (code: string) => {
    const file = join(dir, `main-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, code);
    return spawnSync(process.execPath, ['--import', pathToFileURL(guard).href, file], {
      encoding: 'utf8',
      cwd: repo,
      timeout: 60_000,
    });
  };
  const dist = (p: string) => JSON.stringify(pathToFileURL(join(repo, 'dist', p)).href);

  it('the guard works: importing or requiring client-node fails under it', () => {
    const imported = run(`await import('@kubernetes/client-node');`);
    assert.notEqual(imported.status, 0);
    assert.match(imported.stderr, /client-node loaded: import of @kubernetes\/client-node/);
    const required = run(`import { clientNode } from ${dist('runtime/client/kubeconfig.js')}; clientNode();`);
    assert.notEqual(required.status, 0);
    assert.match(required.stderr, /client-node loaded: require of @kubernetes\/client-node/);
  });

  it('kubeforge/runtime and kubeforge/testing, a FakeAPIServer, its client and a manager reconciling on it load no client-node', () => {
    const r = run(`
import assert from 'node:assert/strict';
const runtime = await import(${dist('runtime/index.js')});
const testing = await import(${dist('testing/index.js')});
const fake = await testing.FakeAPIServer.start();
try {
  const client = fake.client();
  const cm = await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } });
  assert.ok(cm.metadata.creationTimestamp instanceof Date, 'timestamps revived');
  const mgr = runtime.newManager(fake.config, { logger: runtime.newLogger({ level: 'error' }) });
  const seen = [];
  runtime.controllerManagedBy(mgr).for({ apiVersion: 'v1', kind: 'ConfigMap' }).named('cm').complete({
    reconcile: async (req) => { seen.push(req.name); return {}; },
  });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await testing.eventually(async () => assert.deepEqual(seen.includes('a'), true), { timeout: 10_000, interval: 10 });
  mgr.getEventRecorder('cm').eventf(cm, null, 'Normal', 'Seen', 'Reconcile', 'seen');
  await testing.eventually(async () => {
    const events = await client.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: 'default' });
    assert.equal(events.items.length, 1);
  }, { timeout: 10_000, interval: 10 });
  stop.abort();
  await running;
} finally {
  await fake.stop();
}
console.log('OK');
`);
    assert.equal(r.status, 0, `exit ${r.status}\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^OK$/m);
  });
});
