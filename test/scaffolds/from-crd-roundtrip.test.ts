/**
 * The round trip of `create api --from-crd` over real-world CRDs: every CRD of
 * test/fixtures/real-crds (the projects' own files, judged by the API server in
 * test/manifests/real-crds.test.ts) and of controller-gen's reference outputs
 * (test/fixtures/manifests/conformance) is turned into types files, all of them laid out as one
 * project in a temporary folder (no npm install: the analysis resolves kubeforge/markers and
 * client-node itself), analysed once, and the CRD generator's output compared with the input.
 *
 * Schema-equal: the two CRDs, parsed, are equal as JSON values once these are set aside, and
 * nothing else: the order of object keys; the CRD's `status` and `metadata.creationTimestamp`
 * (the API server's, not the schema's); the generator-version annotations
 * (`controller-gen.kubebuilder.io/version`, `kubeforge.io/version`). Descriptions, the order of
 * lists (enum values, rules, required, printer columns) and every other keyword count.
 *
 * A CRD that does not round-trip must be in EXCEPTIONS with its reason, and every entry there
 * must still fail (an exception that starts passing fails the test until it is removed).
 * Then the generated files, all together, compile with TypeScript's --strict.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import { analyzeProject } from '../manifests/analyze-helper.js';
import { readCrdText, typesFromCrd } from '../../src/scaffolds/from-crd.js';
import { packageRoot } from '../../src/util/package-root.js';

type Obj = Record<string, unknown>;

const repo = packageRoot();
const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();

interface Entry {
  key: string;
  crd: Obj;
}

function corpus(): Entry[] {
  const out: Entry[] = [];
  const real = join(root, 'test/fixtures/real-crds');
  for (const project of readdirSync(real).sort())
    for (const file of readdirSync(join(real, project))
      .filter((f) => f.endsWith('.yaml'))
      .sort())
      out.push({ key: `${project}/${file}`, crd: load(join(real, project, file)) });
  const conf = join(root, 'test/fixtures/manifests/conformance');
  for (const name of readdirSync(conf).sort())
    out.push({ key: `controller-gen/${name}.yaml`, crd: load(join(conf, name, 'expected.yaml')) });
  return out;
}

function load(path: string): Obj {
  const { crd, problems } = readCrdText(readFileSync(path, 'utf8'), path);
  assert.ok(crd, `${path}: ${problems.map((p) => p.message).join('; ')}`);
  return crd;
}

/** The CRD as compared: keys sorted, the server's fields and the generator annotations left out. */
function normalized(crd: Obj): unknown {
  const copy = JSON.parse(JSON.stringify(crd)) as Obj & { metadata: Obj };
  delete copy.status;
  delete copy.metadata.creationTimestamp;
  const ann = copy.metadata.annotations as Record<string, string> | undefined;
  if (ann) {
    delete ann['controller-gen.kubebuilder.io/version'];
    delete ann['kubeforge.io/version'];
    if (Object.keys(ann).length === 0) delete copy.metadata.annotations;
  }
  return sortKeys(copy);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Obj)[k])]),
    );
  return v;
}

/** The first difference of two JSON values, as a path and the two values. */
function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const d = firstDifference((a as Obj)[k], (b as Obj)[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  const show = (v: unknown) => (JSON.stringify(v) ?? 'undefined').slice(0, 160);
  return `${path}: input ${show(a)}, generated ${show(b)}`;
}

/**
 * `<project>/<file>` of the CRDs that do not round-trip, and why; the test asserts each still
 * differs (or is refused) so that the list never outlives its reason.
 */
const BLANK_LINES =
  'the description of parentRef namespace/port (and parentRefs, backendRefs, the session cookie) has two blank lines in a row, where gateway-api strips its experimental notes; a JSDoc comment keeps one paragraph break';
const EXCEPTIONS: Record<string, string> = {
  'gateway-api/gateway.networking.k8s.io_gateways.yaml':
    'refused: spec.addresses[*] and status.addresses[*] use oneOf (two schemas for the value by its type), which no marker writes',
  'gateway-api/gateway.networking.k8s.io_backendtlspolicies.yaml': BLANK_LINES,
  'gateway-api/gateway.networking.k8s.io_grpcroutes.yaml': BLANK_LINES,
  'gateway-api/gateway.networking.k8s.io_httproutes.yaml': BLANK_LINES,
  'gateway-api/gateway.networking.k8s.io_tcproutes.yaml': BLANK_LINES,
  'gateway-api/gateway.networking.k8s.io_tlsroutes.yaml': BLANK_LINES,
  'gateway-api/gateway.networking.k8s.io_udproutes.yaml': BLANK_LINES,
  'gateway-api/gateway.networking.x-k8s.io_xbackends.yaml': BLANK_LINES,
  'gateway-api/gateway.networking.x-k8s.io_xbackendtrafficpolicies.yaml': BLANK_LINES,
};

describe('create api --from-crd: round trip over real-world CRDs', () => {
  const entries = corpus();
  const work = mkdtempSync(join(tmpdir(), 'fromcrd-roundtrip-'));
  const refused = new Map<string, string>();
  /** The CRDs whose import said (KF1100, an error or a warning) that it would not be exact. */
  const announced = new Set<string>();
  const byName = new Map<string, Entry>();
  let generated = new Map<string, Obj>();
  let analysisDiagnostics: string[] = [];
  const files: string[] = [];

  before(async () => {
    // One folder per group and version (its groupversion.ts), every Kind's types file in it.
    const dirs = new Map<string, string>();
    for (const e of entries) {
      const imported = typesFromCrd(e.crd, { file: e.key });
      if (imported.problems.length) announced.add(e.key);
      const errors = imported.problems.filter((p) => p.severity === 'error');
      if (errors.length) {
        refused.set(e.key, errors.map((p) => p.message).join('; '));
        continue;
      }
      const name = `${((e.crd.spec as Obj).names as Obj).plural}.${(e.crd.spec as Obj).group}`;
      byName.set(name, e);
      for (const v of imported.versions) {
        const gv = `${imported.group}/${v.version}`;
        let dir = dirs.get(gv);
        if (!dir) {
          dir = join(work, 'src/api', `g${dirs.size}`, v.version);
          dirs.set(gv, dir);
          mkdirSync(dir, { recursive: true });
          writeFileSync(
            join(dir, 'groupversion.ts'),
            `import { defineGroupVersion } from 'kubeforge/markers';\n\nexport const groupVersion = defineGroupVersion({ group: '${imported.group}', version: '${v.version}' });\n`,
          );
        }
        const file = join(dir, `${imported.kind.toLowerCase()}_types.ts`);
        writeFileSync(file, v.text);
        files.push(file);
      }
    }
    const result = await analyzeProject({ projectDir: work, generatorVersion: 'v0.0.0-test' });
    analysisDiagnostics = result.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => `${d.file}:${d.line}: ${d.code} ${d.message}`);
    generated = new Map(result.crds.map((c) => [String((c.metadata as Obj).name), c as Obj]));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('the corpus holds more than 100 CRDs', () => {
    assert.ok(entries.length > 100, `${entries.length} CRDs`);
  });

  it('the analysis of the generated types reports no error', () => {
    assert.deepEqual(analysisDiagnostics.slice(0, 20), []);
  });

  it('every CRD round-trips schema-equal, or is a listed exception that still fails', () => {
    const failures: Record<string, string> = {};
    for (const [key, why] of refused) failures[key] = `refused: ${why}`;
    for (const [name, e] of byName) {
      const out = generated.get(name);
      if (!out) {
        failures[e.key] = 'no CRD generated';
        continue;
      }
      const d = firstDifference(normalized(e.crd), normalized(out));
      if (d) failures[e.key] = d;
    }
    const exact = entries.length - Object.keys(failures).length;
    console.log(
      `round trip: ${entries.length} CRDs, ${exact} schema-equal, ${Object.keys(failures).length} exceptions`,
    );
    const unexpected = Object.entries(failures).filter(([k]) => !(k in EXCEPTIONS));
    const stale = Object.keys(EXCEPTIONS).filter((k) => !(k in failures));
    assert.deepEqual({ unexpected: Object.fromEntries(unexpected), stale }, { unexpected: {}, stale: [] });
    // The import itself tells the user: exactly the CRDs that do not round-trip got a KF1100.
    assert.deepEqual([...announced].sort(), Object.keys(failures).sort());
  });

  it('the generated types compile with --strict (one program for all of them)', () => {
    // The project's own tsc (TypeScript 7), as a generated project runs it; kubeforge/markers and
    // client-node resolved to this repository's.
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          skipLibCheck: true,
          types: [],
          paths: {
            'kubeforge/markers': [join(repo, 'src/markers/index.ts')],
            '@kubernetes/client-node': [join(repo, 'node_modules/@kubernetes/client-node')],
          },
        },
        include: ['src/**/*.ts'],
      }),
    );
    const r = spawnSync(join(repo, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: work, encoding: 'utf8' });
    const diagnostics = `${r.stdout}${r.stderr}`.split('\n').filter(Boolean);
    assert.equal(files.length > 100, true, `${files.length} types files`);
    assert.deepEqual(diagnostics.slice(0, 20), []);
    assert.equal(r.status, 0);
  });
});
