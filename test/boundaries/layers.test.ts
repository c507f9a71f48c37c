// The folder DAG of ARCHITECTURE.md ("Layers"), checked on the import lines of src/: every
// relative import (static, re-export or dynamic `import()`) of a file in one top-level folder may
// only reach the folders that folder may depend on. Inside src/runtime the same holds for its
// parts, counting value imports only (type-only imports carry no load order). The workspace
// package @kubeforge/cel (packages/cel) is reached through its package.json "exports" only (as
// `#cel`, kubeforge's "imports" map), by the folders PACKAGE_USERS names, and imports nothing of
// kubeforge.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const SRC = join(root, 'src');

/** Top-level folders (and src/index.ts as `index`) and what each may import. */
const LAYERS: Record<string, string[]> = {
  diagnostics: [],
  util: [],
  markers: [],
  // The API server's own rules, written once (structural-schema values, built-in Kinds): manifests' checks
  // and the fake API server import them; no ts-morph (kubeforge/testing loads it).
  apiserver: ['util'],
  project: ['diagnostics', 'util'],
  machinery: ['diagnostics', 'util'],
  loader: ['diagnostics', 'util'],
  // Marker uses found in the source (decorators and JSDoc tags), and the names they resolve to.
  collector: ['diagnostics', 'loader', 'markers', 'util'],
  schema: ['collector', 'diagnostics', 'loader', 'markers', 'util'],
  analysis: ['collector', 'diagnostics', 'loader', 'markers', 'project', 'schema', 'util'],
  manifests: [
    'analysis',
    'apiserver',
    'collector',
    'diagnostics',
    'loader',
    'machinery',
    'markers',
    'project',
    'schema',
    'util',
  ],
  scaffolds: ['apiserver', 'diagnostics', 'machinery', 'manifests', 'project', 'schema', 'util'],
  envtest: ['diagnostics', 'util'],
  runtime: [],
  testing: ['apiserver', 'runtime', 'util'],
  // `kubeforge dev`: manifests on each save, a control plane from testing, the runtime's client to apply.
  dev: ['analysis', 'diagnostics', 'manifests', 'runtime', 'testing', 'util'],
  cli: [
    'analysis',
    'dev',
    'diagnostics',
    'envtest',
    'loader',
    'machinery',
    'manifests',
    'markers',
    'project',
    'scaffolds',
    'schema',
    // `kubeforge test`: the test runner (testing/runner.ts), imported when the command runs.
    'testing',
    'util',
  ],
  index: ['cli', 'diagnostics'],
};

/** Single files another layer may reach outside its list: `<from> -> <file under src/>`. */
const EXCEPTIONS = new Set([
  // The fake API server decodes built-in Kinds with the shipped models (models.json), as the API server decodes their Go types.
  'testing -> schema/k8s/index.ts',
  // apimachinery's rules (label selectors, field errors, validation messages), one implementation
  // in the bottom layer: kubeforge/runtime re-exports them.
  'runtime -> util/apimachinery/field.ts',
  'runtime -> util/apimachinery/labels.ts',
  'runtime -> util/apimachinery/validation.ts',
  // The one table of built-in Kinds (a real API server's discovery): the client resolves model classes and GVKs with it.
  'runtime -> apiserver/builtin-kinds.ts',
  'runtime -> apiserver/builtin-kinds-data.ts',
]);

const CEL = join(root, 'packages/cel');
const celManifest = JSON.parse(readFileSync(join(CEL, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  peerDependencies: Record<string, string>;
};

/**
 * Which folders of src/ may import which entry of @kubeforge/cel (its package.json "exports", which
 * kubeforge's "imports" map as `#cel`, `#cel/<entry>`). Its
 * RE2 (Go's regexp) and apimachinery's string validators are the bottom of kubeforge too, so the
 * two small entries reach lower than the CEL engine itself.
 */
const PACKAGE_USERS: Record<string, string[]> = {
  '#cel': ['manifests', 'testing'],
  '#cel/re2': ['apiserver', 'manifests', 'testing'],
  // util/apimachinery/validation.ts re-exports them, for the runtime, the fake API server and the checks.
  '#cel/apimachinery': ['util'],
};

/** Every specifier a file imports (static, re-export, side-effect or dynamic), relative or not. */
function allSpecifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...[...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]/g)].map((m) => m[1]),
    ...[...text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)].map((m) => m[1]),
    ...[...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
  ];
}

/** The npm package a bare specifier names (`@scope/name` or `name`). */
const packageOf = (spec: string) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/** Parts of src/runtime (and contracts.ts, index.ts) and what each may import as a value. */
const RUNTIME_PARTS: Record<string, string[]> = {
  contracts: [],
  // The check of options objects' keys every part's entry points make.
  options: [],
  sharding: [],
  // OpenTelemetry on @opentelemetry/api: the tracer lookup, W3C traceparent, the log mixin (issue #42).
  tracing: [],
  client: ['contracts', 'options', 'tracing'],
  cache: ['client', 'contracts', 'options', 'sharding', 'tracing'],
  util: ['client', 'contracts', 'options'],
  controller: ['cache', 'client', 'contracts', 'options', 'sharding', 'tracing'],
  webhook: ['client', 'contracts', 'controller', 'options', 'tracing'],
  manager: ['cache', 'client', 'contracts', 'options', 'sharding', 'tracing', 'webhook'],
  // kubeforge/runtime/multicluster: a Manager over the clusters a provider engages; nothing imports it.
  multicluster: ['cache', 'client', 'contracts', 'controller', 'manager', 'options', 'tracing'],
  index: ['cache', 'client', 'contracts', 'controller', 'manager', 'options', 'util', 'webhook'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
    });
}

interface Import {
  spec: string;
  typeOnly: boolean;
}

function imports(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const out: Import[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(import|export)\s(type\s)?([^;]*?)from\s*['"]([^'"]+)['"]/g)) {
    // `import { type A, type B }` is type-only too.
    const names = /\{([^}]*)\}/.exec(m[3])?.[1];
    const allTyped = !!names && names.split(',').every((n) => !n.trim() || /^\s*type\s/.test(n));
    out.push({ spec: m[4], typeOnly: !!m[2] || (allTyped && !/^\s*[\w$]+\s*,/.test(m[3]) && !/\*/.test(m[3])) });
  }
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) out.push({ spec: m[1], typeOnly: false });
  // import('x') in a type position (`: import('x').T`) is type-only; as an expression it loads x.
  for (const m of text.matchAll(/(\bawait\s+|=\s*|\(\s*|return\s+)?import\(\s*['"]([^'"]+)['"]\s*\)(\.[A-Z])?/g))
    out.push({ spec: m[2], typeOnly: !!m[3] && !m[1] });
  return out.filter((i) => i.spec.startsWith('.'));
}

/** `a/b.ts` for a relative specifier of `file` (the `.js` of ESM specifiers mapped back). */
function target(file: string, spec: string): string {
  return relative(SRC, resolve(dirname(file), spec))
    .split('\\')
    .join('/')
    .replace(/\.js$/, '.ts');
}

const layerOf = (rel: string) => (rel.includes('/') ? rel.split('/')[0] : rel.replace(/\.ts$/, ''));

describe('layers (ARCHITECTURE.md)', () => {
  it('every top-level folder of src/ is in the DAG', () => {
    const folders = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory());
    const unknown = folders.filter((f) => !(f in LAYERS));
    assert.deepEqual(unknown, [], 'a new folder needs its place in LAYERS here and in ARCHITECTURE.md');
  });

  it('the import reader sees value, type-only and dynamic imports (so the checks below can fail)', () => {
    const parse = imports(join(SRC, 'schema/parse.ts'));
    assert.ok(parse.some((i) => i.spec === '../collector/collector.js' && !i.typeOnly));
    const server = imports(join(SRC, 'runtime/webhook/server.ts'));
    assert.ok(server.some((i) => i.spec === '../manager/healthz.js' && i.typeOnly));
    const managerTypes = imports(join(SRC, 'runtime/manager/types.ts'));
    assert.ok(managerTypes.some((i) => i.spec === '../webhook/server.js' && i.typeOnly));
    const cli = sourceFiles(join(SRC, 'cli')).flatMap((f) => imports(f));
    assert.ok(
      cli.some((i) => !i.typeOnly && i.spec.includes('scaffolds')),
      'the CLI loads its commands lazily with import()',
    );
  });

  it('the DAG has no cycle', () => {
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (n: string, path: string[]): void => {
      if (state.get(n) === 'done') return;
      assert.notEqual(state.get(n), 'visiting', `cycle: ${[...path, n].join(' -> ')}`);
      state.set(n, 'visiting');
      for (const d of LAYERS[n]) visit(d, [...path, n]);
      state.set(n, 'done');
    };
    for (const n of Object.keys(LAYERS)) visit(n, []);
  });

  it('imports between folders follow the DAG', () => {
    const bad: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = layerOf(relative(SRC, file));
      for (const { spec } of imports(file)) {
        const to = target(file, spec);
        const layer = layerOf(to);
        if (layer === from || LAYERS[from]?.includes(layer) || EXCEPTIONS.has(`${from} -> ${to}`)) continue;
        bad.push(`${relative(root, file)}: imports ${spec} (${from} may not depend on ${layer})`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('no files import each other in a cycle, within a folder or across folders (type-only imports count too)', () => {
    const graph = new Map<string, string[]>();
    for (const file of sourceFiles(SRC))
      graph.set(
        relative(SRC, file),
        imports(file).map((i) => target(file, i.spec)),
      );
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (n: string, path: string[]): void => {
      if (state.get(n) === 'done' || !graph.has(n)) return;
      if (state.get(n) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(n)), n].join(' -> '));
        return;
      }
      state.set(n, 'visiting');
      for (const d of must(graph.get(n), 'graph.get(n)')) visit(d, [...path, n]);
      state.set(n, 'done');
    };
    for (const n of [...graph.keys()].sort()) visit(n, []);
    assert.deepEqual(cycles, []);
  });

  it('inside src/runtime, value imports follow its parts DAG (client < cache < controller < manager)', () => {
    const RT = join(SRC, 'runtime');
    const bad: string[] = [];
    for (const file of sourceFiles(RT)) {
      const rel = relative(RT, file);
      const from = layerOf(rel);
      for (const { spec, typeOnly } of imports(file)) {
        if (typeOnly) continue;
        const to = relative(RT, resolve(dirname(file), spec))
          .split('\\')
          .join('/');
        if (to.startsWith('..')) {
          if (EXCEPTIONS.has(`runtime -> ${to.replace(/^\.\.\//, '').replace(/\.js$/, '.ts')}`)) continue;
          bad.push(`${relative(root, file)}: imports ${spec}, outside src/runtime`);
          continue;
        }
        const part = layerOf(to.replace(/\.js$/, '.ts'));
        if (part === from || RUNTIME_PARTS[from]?.includes(part)) continue;
        bad.push(`${relative(root, file)}: imports ${spec} (runtime/${from} may not depend on runtime/${part})`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('src/ reaches @kubeforge/cel only through its "exports", from the folders PACKAGE_USERS names', () => {
    const exported = Object.entries(celManifest.exports).filter(([k]) => k !== './package.json');
    const entries = exported.map(([k]) => (k === '.' ? '#cel' : `#cel/${k.slice(2)}`));
    assert.deepEqual(
      Object.keys(PACKAGE_USERS).sort(),
      [...entries].sort(),
      'each entry of the package needs its users here',
    );
    // kubeforge's "imports" map each entry to the package's own export, and nothing else.
    const kubeforge = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      imports: Record<string, { types: string; default: string }>;
    };
    assert.deepEqual(
      kubeforge.imports,
      Object.fromEntries(
        exported.map(([, target], i) => {
          const t = target as { types: string; default: string };
          const under = (p: string) => `./packages/cel/${p.slice(2)}`;
          return [entries[i], { types: under(t.types), default: under(t.default) }];
        }),
      ),
    );
    const bad: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = layerOf(relative(SRC, file));
      for (const spec of allSpecifiers(file)) {
        if (spec.startsWith('.') && target(file, spec).startsWith('..'))
          bad.push(`${relative(root, file)}: imports ${spec}, outside src/ (the CEL package is imported as #cel)`);
        if (spec.startsWith('@kubeforge/'))
          bad.push(
            `${relative(root, file)}: imports ${spec}: kubeforge reaches its CEL as #cel (package.json "imports")`,
          );
        if (spec !== '#cel' && !spec.startsWith('#cel/')) continue;
        if (!(spec in PACKAGE_USERS)) bad.push(`${relative(root, file)}: imports ${spec}, not an entry of the package`);
        else if (!PACKAGE_USERS[spec].includes(from))
          bad.push(`${relative(root, file)}: imports ${spec} (${from} may not)`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('packages/cel/src imports only itself, node: builtins and its own dependencies (nothing of kubeforge)', () => {
    const CEL_SRC = join(CEL, 'src');
    const bad: string[] = [];
    for (const file of sourceFiles(CEL_SRC)) {
      for (const spec of allSpecifiers(file)) {
        if (spec.startsWith('.')) {
          if (relative(CEL_SRC, resolve(dirname(file), spec)).startsWith('..'))
            bad.push(`${relative(root, file)}: imports ${spec}, outside the package`);
        } else if (!spec.startsWith('node:') && !(packageOf(spec) in celManifest.peerDependencies))
          bad.push(`${relative(root, file)}: imports ${spec}, not a peer dependency in packages/cel/package.json`);
      }
    }
    assert.deepEqual(bad, []);
    // the reader sees the package's imports, so the check can fail
    assert.ok(allSpecifiers(join(CEL_SRC, 'eval.ts')).includes('./re2.js'));
    assert.ok(allSpecifiers(join(SRC, 'apiserver/structural.ts')).includes('#cel/re2'));
  });

  it("@kubeforge/cel's peer dependencies are kubeforge's dependencies, in the same ranges (kubeforge ships its dist)", () => {
    const kubeforge = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const peers = Object.entries(celManifest.peerDependencies);
    assert.ok(peers.length > 0, 'packages/cel/package.json has peer dependencies');
    for (const [name, range] of peers)
      assert.equal(kubeforge.dependencies[name], range, `kubeforge depends on ${name}`);
  });
});
