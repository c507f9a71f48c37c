import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import type { JSONSchemaProps } from '../../../src/schema/jsonschema.js';
import {
  applyMergePatch,
  intOrStringSchema,
  isK8sModelName,
  isK8sVersion,
  K8S_NEWEST_VERSION,
  K8S_VERSIONS,
  type K8sVersion,
  type DataModel,
  type DataNode,
  k8sModelSchema,
  k8sModelShape,
  k8sModelSource,
  k8sSchemaDataPath,
  k8sShapeDataPath,
  k8sSchemaPatchPath,
  k8sSchemaSource,
  QUANTITY_PATTERN,
  quantitySchema,
} from '../../../src/schema/k8s/index.js';
import { MODEL_NAMES } from '../../../src/schema/k8s/data/source.js';
import { diffSchemas, sharedObjects, structuralProblems, walkSchema } from './compare.js';
import { must } from '../../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');
const fixtures = join(root, 'test/fixtures/k8s');

interface Fixture {
  generator: string;
  descriptions: boolean;
  schemas: Record<string, JSONSchemaProps>;
}

function fixture(name: string): Fixture {
  return parse(readFileSync(join(fixtures, name), 'utf8')) as Fixture;
}

/** Our schema for a fixture key: `V1Probe` (the model) or `V1Container.ports` (one of its properties). */
function ours(key: string, descriptions: boolean, kubernetesVersion?: K8sVersion): JSONSchemaProps {
  const [model, prop] = key.split('.');
  const schema = k8sModelSchema(model, { descriptions, kubernetesVersion });
  assert.ok(schema, `no schema for ${model}`);
  if (!prop) return schema;
  const sub = schema.properties?.[prop];
  assert.ok(sub, `${model} has no property ${prop}`);
  return sub;
}

const ws = (s: unknown) => String(s).replace(/\s+/g, ' ').trim();

/** scripts/k8s-go-source.mjs: where the generator gets the Go sources of the Kubernetes API types from. */
async function goSource() {
  return (await import(pathToFileURL(join(root, 'scripts/k8s-go-source.mjs')).href)) as {
    GO_MINORS: readonly { kubernetes: string; modules: readonly { path: string; version: string }[] }[];
    kubernetesGoModules(kubernetes: string): Record<string, string>;
  };
}

describe('k8s model schemas: source', () => {
  it('names the npm package and Kubernetes release the data came from, matching the installed client-node', () => {
    const cnDir = join(root, 'node_modules/@kubernetes/client-node');
    const pkg = JSON.parse(readFileSync(join(cnDir, 'package.json'), 'utf8')) as { version: string };
    const header = readFileSync(join(cnDir, 'dist/gen/models/V1PodTemplateSpec.d.ts'), 'utf8');
    assert.equal(k8sSchemaSource.package, '@kubernetes/client-node');
    assert.equal(k8sSchemaSource.version, pkg.version);
    assert.equal(k8sSchemaSource.kubernetesVersion, /OpenAPI spec version: (v[\d.]+)/.exec(header)?.[1]);
    const kt = JSON.parse(readFileSync(join(root, 'node_modules/kubernetes-types/package.json'), 'utf8')) as {
      version: string;
    };
    assert.deepEqual(k8sSchemaSource.auxiliary, { package: 'kubernetes-types', version: kt.version });
  });

  it('names the Go modules of each supported minor, matching the pins, and finds them in the module cache', async () => {
    const source = await goSource();
    assert.deepEqual(
      [...K8S_VERSIONS],
      source.GO_MINORS.map((m) => m.kubernetes),
    );
    assert.equal(K8S_NEWEST_VERSION, K8S_VERSIONS[K8S_VERSIONS.length - 1]);
    assert.deepEqual(
      k8sSchemaSource.goTypes,
      Object.fromEntries(source.GO_MINORS.map((m) => [m.kubernetes, m.modules.map((p) => `${p.path} ${p.version}`)])),
    );
    for (const minor of K8S_VERSIONS) {
      assert.equal(isK8sVersion(minor), true);
      const modules = source.kubernetesGoModules(minor);
      assert.match(readFileSync(join(modules['k8s.io/api'], 'core/v1/types.go'), 'utf8'), /^type PodSpec struct \{$/m);
      assert.match(
        readFileSync(join(modules['k8s.io/apimachinery'], 'pkg/apis/meta/v1/types.go'), 'utf8'),
        /\+kubebuilder:validation:MaxLength=32768/,
      );
    }
    for (const v of ['1.34', '1.38', 'v1.37', '', '__proto__']) assert.equal(isK8sVersion(v), false, v);
  });

  it("each minor's data has the PodSpec fields its k8s.io/api has, and no other", async () => {
    const source = await goSource();
    // Fields added across the supported minors (and one every minor has).
    const fields = ['schedulingGroup', 'evictionResponders', 'hostnameOverride', 'workloadRef', 'containers'];
    const seen = new Set<string>();
    for (const minor of K8S_VERSIONS) {
      const types = readFileSync(join(source.kubernetesGoModules(minor)['k8s.io/api'], 'core/v1/types.go'), 'utf8');
      const podSpec = types.slice(
        types.indexOf('\ntype PodSpec struct {'),
        types.indexOf('\n}\n', types.indexOf('\ntype PodSpec struct {')),
      );
      const props = must(
        must(
          k8sModelSchema('V1PodSpec', { descriptions: false, kubernetesVersion: minor }),
          "k8sModelSchema('V1PodSpec', { descriptions: false, kubernetesVersio...",
        ).properties,
        "k8sModelSchema('V1PodSpec', { descriptions: false, kubernetesVersio...",
      );
      const model = must(k8sModelSource('V1PodSpec', minor), "k8sModelSource('V1PodSpec', minor)");
      for (const f of fields) {
        // A field line (a commented-out field, as 1.36 has for workloadRef, does not count).
        const inGo = new RegExp(`^\\t\\w+ \\S+ \`json:"${f}[,"]`, 'm').test(podSpec);
        assert.equal(f in props, inGo, `${minor}: PodSpec.${f}`);
        assert.equal(f in model.properties, inGo, `${minor}: PodSpec.${f} (model source)`);
        seen.add(`${f}:${inGo}`);
      }
    }
    // The minors do differ on these fields: the check can fail.
    assert.ok(seen.has('schedulingGroup:true') && seen.has('schedulingGroup:false'), [...seen].join(' '));
  });

  it('regenerating the data from the installed packages and the pinned Go modules yields the committed bytes', async () => {
    const gen = (await import(pathToFileURL(join(root, 'scripts/gen-k8s-schemas.mjs')).href)) as {
      generate(): Promise<{ files: Record<string, string> }>;
    };
    const { files } = await gen.generate();
    const patches = K8S_VERSIONS.filter((v) => v !== K8S_NEWEST_VERSION).map((v) => `models.${v}.patch.json`);
    assert.deepEqual(
      Object.keys(files).sort(),
      ['go-types-report.md', ...patches, 'models.json', 'models.shape.json', 'source.ts'].sort(),
    );
    for (const [name, text] of Object.entries(files)) {
      const committed = readFileSync(join(root, 'src/schema/k8s/data', name), 'utf8');
      assert.ok(committed === text, `src/schema/k8s/data/${name} is stale: run node scripts/gen-k8s-schemas.mjs`);
    }
    assert.equal(k8sSchemaDataPath(), join(root, 'src/schema/k8s/data/models.json'));
    assert.equal(k8sShapeDataPath(), join(root, 'src/schema/k8s/data/models.shape.json'));
    for (const v of K8S_VERSIONS)
      if (v !== K8S_NEWEST_VERSION)
        assert.equal(k8sSchemaPatchPath(v), join(root, `src/schema/k8s/data/models.${v}.patch.json`));
  });

  it('package.json ships the data of every minor', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    const shipped = (f: string) =>
      pkg.files.some(
        (p) =>
          p === f || (p.includes('*') && new RegExp(`^${p.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`).test(f)),
      );
    for (const v of K8S_VERSIONS) {
      const f =
        v === K8S_NEWEST_VERSION ? 'src/schema/k8s/data/models.json' : `src/schema/k8s/data/models.${v}.patch.json`;
      assert.ok(shipped(f), `${f} is not in package.json's files`);
    }
  });

  it('applyMergePatch follows RFC 7396 and leaves its target as it was', () => {
    const target = { a: { b: 1, c: [1, 2] }, d: 'x', e: { f: true } };
    const before = JSON.stringify(target);
    const out = applyMergePatch(target, { a: { b: null, c: [3], g: { h: 1 } }, d: null, i: 2 }) as Record<
      string,
      unknown
    >;
    assert.deepEqual(out, { a: { c: [3], g: { h: 1 } }, e: { f: true }, i: 2 });
    assert.equal(JSON.stringify(target), before);
    assert.equal(out.e, target.e, 'an untouched subtree is shared, not copied');
    assert.deepEqual(applyMergePatch({ a: 1 }, { a: { b: 2 } }), { a: { b: 2 } });
    assert.equal(applyMergePatch({ a: 1 }, 'x'), 'x');
  });

  it('an unsupported minor is refused by name', () => {
    assert.throws(
      () => k8sModelSchema('V1PodSpec', { kubernetesVersion: '1.20' as K8sVersion }),
      /no schema data for Kubernetes 1\.20 \(supported: /,
    );
  });

  it('knows every client-node model and nothing else', () => {
    assert.ok(MODEL_NAMES.length > 700, `only ${MODEL_NAMES.length} models`);
    for (const name of [
      'V1PodTemplateSpec',
      'V1JobTemplateSpec',
      'V1Condition',
      'V1LabelSelector',
      'V1ResourceRequirements',
      'V1ObjectReference',
      'V1Container',
      'V1EnvVar',
      'V1LocalObjectReference',
      'V1SecretKeySelector',
      'V1Toleration',
      'V1Affinity',
    ]) {
      assert.equal(isK8sModelName(name), true, name);
    }
    for (const name of [
      '',
      'Foo',
      'V1PodTemplateSpecX',
      'v1PodTemplateSpec',
      'KubeConfig',
      'Quantity',
      'toString',
      '__proto__',
      'hasOwnProperty',
    ]) {
      assert.equal(isK8sModelName(name), false, name);
      assert.equal(k8sModelSchema(name), undefined, name);
    }
  });
});

describe("k8s model schemas: the fake API server's shapes", () => {
  /** A model node without `description`, at any depth of the schema (not a property so named). */
  const strip = (node: DataNode | DataModel): unknown =>
    Object.fromEntries(
      Object.entries(node)
        .filter(([k]) => k !== 'description')
        .map(([k, v]) => [
          k,
          k === 'properties'
            ? Object.fromEntries(Object.entries(v as Record<string, DataNode>).map(([n, p]) => [n, strip(p)]))
            : (k === 'items' || k === 'additionalProperties') && typeof v === 'object'
              ? strip(v as DataNode)
              : v,
        ]),
    );

  it("every model of models.shape.json is the newest minor's model without its descriptions", () => {
    for (const name of MODEL_NAMES) {
      const source = k8sModelSource(name);
      if (!source) continue;
      assert.deepEqual(k8sModelShape(name), strip(source), name);
    }
    assert.equal(k8sModelShape('NoSuchModel'), undefined);
    // A property named `description` is a field, not a description: it stays.
    assert.deepEqual(k8sModelShape('V1JSONSchemaProps')?.properties.description, { type: 'string' });
    assert.equal(k8sModelShape('V1Pod')?.description, undefined);
    assert.ok(k8sModelSource('V1Pod')?.description, 'the source has the description the shape leaves out');
  });
});

describe('k8s model schemas: cost', () => {
  it('importing loads neither client-node nor the data; the first schema request of a minor reads its data once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-k8s-'));
    try {
      // A loader hook that refuses @kubernetes/client-node, and a readFileSync that counts models.json reads.
      writeFileSync(
        join(dir, 'hooks.mjs'),
        [
          'export async function resolve(specifier, context, next) {',
          "  if (specifier.includes('@kubernetes/client-node')) throw new Error('client-node imported: ' + specifier);",
          '  return next(specifier, context);',
          '}',
        ].join('\n'),
      );
      const index = pathToFileURL(join(root, 'build/src/schema/k8s/index.js')).href;
      const code = [
        "import fs from 'node:fs';",
        "import { register, syncBuiltinESMExports } from 'node:module';",
        `register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});`,
        'const original = fs.readFileSync;',
        "const read = {}; fs.readFileSync = function (p, ...rest) { const f = String(p).split('/').pop(); if (/^models\\./.test(f)) read[f] = (read[f] ?? 0) + 1; return original.call(this, p, ...rest); };",
        'const reads = () => Object.values(read).reduce((a, b) => a + b, 0);',
        'syncBuiltinESMExports();',
        `const m = await import(${JSON.stringify(index)});`,
        "const afterImport = reads(); m.isK8sModelName('V1Pod'); const afterName = reads();",
        "m.k8sModelShape('EventsV1Event'); m.k8sModelShape('V1ObjectMeta'); const afterShapes = { ...read };",
        "m.k8sModelSchema('V1PodTemplateSpec'); m.k8sModelSchema('V1PodTemplateSpec'); m.k8sModelSchema('V1Condition', { descriptions: false });",
        'const afterSchemas = { ...read };',
        "for (const v of m.K8S_VERSIONS) { m.k8sModelSchema('V1PodTemplateSpec', { kubernetesVersion: v }); m.k8sModelSource('V1Pod', v); }",
        'console.log(JSON.stringify({ afterImport, afterName, afterShapes, afterSchemas, afterMinors: read }));',
      ].join('\n');
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
        encoding: 'utf8',
        env: { ...process.env, KUBEFORGE_REPO_ROOT: root },
      });
      assert.equal(r.status, 0, r.stderr);
      const patches = Object.fromEntries(
        K8S_VERSIONS.filter((v) => v !== K8S_NEWEST_VERSION).map((v) => [`models.${v}.patch.json`, 1]),
      );
      assert.deepEqual(JSON.parse(must(r.stdout.trim().split('\n').pop(), "r.stdout.trim().split('\\n').pop()")), {
        afterImport: 0,
        afterName: 0,
        afterShapes: { 'models.shape.json': 1 },
        afterSchemas: { 'models.shape.json': 1, 'models.json': 1 },
        afterMinors: { 'models.shape.json': 1, 'models.json': 1, ...patches },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('k8s model schemas: shape', () => {
  it('the structural checker used below does catch bad topology extensions', () => {
    const port = (protocol: JSONSchemaProps): JSONSchemaProps => ({
      type: 'object',
      properties: { containerPort: { type: 'integer' }, protocol },
      required: ['containerPort'],
    });
    const listMap = (items: JSONSchemaProps, keys = ['containerPort', 'protocol']): JSONSchemaProps => ({
      type: 'array',
      items,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': keys,
    });
    assert.deepEqual(structuralProblems(listMap(port({ type: 'string', default: 'TCP' }))), []);
    assert.deepEqual(structuralProblems(listMap(port({ type: 'string' }))), [
      ': list-map key protocol is neither required nor defaulted',
    ]);
    assert.deepEqual(structuralProblems(listMap(port({ type: 'string' }), ['name'])), [
      ': list-map key name is not an item property',
    ]);
    assert.deepEqual(structuralProblems({ type: 'string', 'x-kubernetes-list-type': 'atomic' }), [
      ': x-kubernetes-list-type on a string node',
    ]);
    assert.deepEqual(
      structuralProblems({ type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'set' }),
      [': set items are neither scalars nor atomic'],
    );
    assert.deepEqual(
      structuralProblems({ type: 'array', items: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' }),
      [': x-kubernetes-map-type atomic on a array node'],
    );
  });

  it('the structural checker used below does catch bad schemas', () => {
    assert.deepEqual(
      structuralProblems({ type: 'object', properties: { a: {}, b: { $ref: '#/x' } as JSONSchemaProps } }),
      ['/properties/a: no type', '/properties/b: unexpected key $ref', '/properties/b: no type'],
    );
    assert.deepEqual(structuralProblems({ type: 'array', required: ['x'] }), [
      ': array without items',
      ': required x is not a property',
    ]);
    assert.deepEqual(structuralProblems({ anyOf: [{ type: 'integer', minimum: 1 }], type: 'string' }), [
      ': anyOf outside int-or-string',
      '/anyOf/0: anyOf member has minimum',
    ]);
  });

  it('every model of every minor is structural, fully inlined (no $ref), with and without descriptions', () => {
    const problems: string[] = [];
    for (const name of MODEL_NAMES) {
      for (const [descriptions, kubernetesVersion] of K8S_VERSIONS.flatMap(
        (v) =>
          [
            [true, v],
            [false, v],
          ] as const,
      )) {
        const schema = k8sModelSchema(name, { descriptions, kubernetesVersion });
        assert.ok(schema);
        assert.equal(schema.type, 'object', name);
        walkSchema(schema, (node, path) => {
          for (const key of ['$ref', '$model', '$special'])
            if (key in node) problems.push(`${name}${path}: ${key} left in the schema`);
          if (!descriptions && 'description' in node)
            problems.push(`${name}${path}: description with descriptions:false`);
        });
        for (const p of structuralProblems(schema)) problems.push(`${kubernetesVersion} ${name}${p}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('is deterministic, and every call returns a new tree the caller owns (no shared objects)', () => {
    const a = must(k8sModelSchema('V1PodTemplateSpec'), "k8sModelSchema('V1PodTemplateSpec')");
    const b = must(k8sModelSchema('V1PodTemplateSpec'), "k8sModelSchema('V1PodTemplateSpec')");
    assert.notEqual(a, b);
    assert.deepEqual(a, b);
    assert.equal(JSON.stringify(a), JSON.stringify(b));
    assert.equal(sharedObjects(a), 0, 'a subtree appears twice by identity; a YAML writer would emit aliases');
    must(must(a.properties, 'a.properties').spec.properties, 'a.properties.spec.properties').containers.description =
      'changed';
    delete must(a.properties, 'a.properties').metadata;
    assert.deepEqual(k8sModelSchema('V1PodTemplateSpec'), b);
  });

  it('does not depend on the order of requests (the cache never changes a result)', () => {
    const index = pathToFileURL(join(root, 'build/src/schema/k8s/index.js')).href;
    const source = pathToFileURL(join(root, 'build/src/schema/k8s/data/source.js')).href;
    const run = (order: 'forward' | 'reverse') => {
      const code = [
        "import { createHash } from 'node:crypto';",
        `const { k8sModelSchema } = await import(${JSON.stringify(index)});`,
        `const { MODEL_NAMES } = await import(${JSON.stringify(source)});`,
        `const names = [...MODEL_NAMES]; if (${JSON.stringify(order)} === 'reverse') names.reverse();`,
        'const out = {}; for (const n of names) out[n] = k8sModelSchema(n);',
        "console.log(createHash('sha256').update(JSON.stringify(MODEL_NAMES.map((n) => out[n]))).digest('hex'));",
      ].join('\n');
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
        encoding: 'utf8',
        env: { ...process.env, KUBEFORGE_REPO_ROOT: root },
      });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.trim();
    };
    const forward = run('forward');
    assert.match(forward, /^[0-9a-f]{64}$/);
    assert.equal(run('reverse'), forward);
  });

  it('writes object keys and required lists sorted', () => {
    walkSchema(must(k8sModelSchema('V1PodSpec'), "k8sModelSchema('V1PodSpec')"), (node, path) => {
      const keys = Object.keys(node);
      assert.deepEqual(keys, [...keys].sort(), path);
      if (node.properties) assert.deepEqual(Object.keys(node.properties), Object.keys(node.properties).sort(), path);
      if (node.required) assert.deepEqual(node.required, [...node.required].sort(), path);
    });
  });

  it('covers the client-node exports that stand for apimachinery types: IntOrString, V1MicroTime', () => {
    assert.equal(isK8sModelName('IntOrString'), true);
    assert.equal(isK8sModelName('V1MicroTime'), true);
    assert.deepEqual(k8sModelSchema('IntOrString'), intOrStringSchema());
    assert.deepEqual(k8sModelSchema('V1MicroTime'), { format: 'date-time', type: 'string' });
    assert.deepEqual(
      must(
        must(k8sModelSchema('CoreV1EventSeries'), "k8sModelSchema('CoreV1EventSeries')").properties,
        "k8sModelSchema('CoreV1EventSeries')!.properties",
      ).lastObservedTime,
      {
        description: 'Time of the last occurrence observed',
        format: 'date-time',
        type: 'string',
      },
    );
  });

  it('uses controller-gen forms for Quantity, IntOrString, Time, []byte, RawExtension and nested ObjectMeta', () => {
    const quantity = {
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      pattern: QUANTITY_PATTERN,
      'x-kubernetes-int-or-string': true,
    };
    assert.deepEqual(quantitySchema(), quantity);
    const rr = must(
      k8sModelSchema('V1ResourceRequirements', { descriptions: false }),
      "k8sModelSchema('V1ResourceRequirements', { descriptions: false })",
    );
    assert.deepEqual(must(rr.properties, 'rr.properties').limits, { additionalProperties: quantity, type: 'object' });
    assert.deepEqual(
      must(
        must(
          k8sModelSchema('V1EmptyDirVolumeSource', { descriptions: false }),
          "k8sModelSchema('V1EmptyDirVolumeSource', { descriptions: false })",
        ).properties,
        "k8sModelSchema('V1EmptyDirVolumeSource', { descriptions: false })!....",
      ).sizeLimit,
      quantity,
    );
    assert.deepEqual(
      must(
        must(
          k8sModelSchema('V1HTTPGetAction', { descriptions: false }),
          "k8sModelSchema('V1HTTPGetAction', { descriptions: false })",
        ).properties,
        "k8sModelSchema('V1HTTPGetAction', { descriptions: false })!.properties",
      ).port,
      {
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        'x-kubernetes-int-or-string': true,
      },
    );
    assert.deepEqual(
      must(
        must(
          k8sModelSchema('V1Condition', { descriptions: false }),
          "k8sModelSchema('V1Condition', { descriptions: false })",
        ).properties,
        "k8sModelSchema('V1Condition', { descriptions: false })!.properties",
      ).lastTransitionTime,
      {
        format: 'date-time',
        type: 'string',
      },
    );
    assert.deepEqual(
      must(
        must(k8sModelSchema('V1Secret', { descriptions: false }), "k8sModelSchema('V1Secret', { descriptions: false })")
          .properties,
        "k8sModelSchema('V1Secret', { descriptions: false })!.properties",
      ).data,
      {
        additionalProperties: { format: 'byte', type: 'string' },
        type: 'object',
      },
    );
    assert.deepEqual(
      must(
        must(
          k8sModelSchema('V1ControllerRevision', { descriptions: false }),
          "k8sModelSchema('V1ControllerRevision', { descriptions: false })",
        ).properties,
        "k8sModelSchema('V1ControllerRevision', { descriptions: false })!.pr...",
      ).data,
      {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      },
    );
    const pts = must(k8sModelSchema('V1PodTemplateSpec'), "k8sModelSchema('V1PodTemplateSpec')");
    assert.deepEqual(must(pts.properties, 'pts.properties').metadata, {
      description:
        "Standard object's metadata.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
      type: 'object',
    });
    assert.deepEqual(k8sModelSchema('V1ObjectMeta', { descriptions: false }), { type: 'object' });
    assert.deepEqual(
      k8sModelSchema('V1ObjectMeta'),
      { type: 'object' },
      "controller-gen's ObjectMeta has no description of the type",
    );
    // int32/int64 formats come through.
    assert.deepEqual(
      must(
        must(
          k8sModelSchema('V1ContainerPort', { descriptions: false }),
          "k8sModelSchema('V1ContainerPort', { descriptions: false })",
        ).properties,
        "k8sModelSchema('V1ContainerPort', { descriptions: false })!.properties",
      ).containerPort,
      {
        format: 'int32',
        type: 'integer',
      },
    );
    assert.deepEqual(
      must(
        must(
          k8sModelSchema('V1PodSpec', { descriptions: false }),
          "k8sModelSchema('V1PodSpec', { descriptions: false })",
        ).properties,
        "k8sModelSchema('V1PodSpec', { descriptions: false })!.properties",
      ).activeDeadlineSeconds,
      {
        format: 'int64',
        type: 'integer',
      },
    );
  });

  it('a field description replaces its type description; list items keep the type description', () => {
    const job = must(k8sModelSchema('V1JobSpec'), "k8sModelSchema('V1JobSpec')");
    assert.match(
      must(must(job.properties, 'job.properties').template.description, 'job.properties.template.description'),
      /^Describes the pod that will be created when executing a job/,
    );
    const sel = must(k8sModelSchema('V1LabelSelector'), "k8sModelSchema('V1LabelSelector')");
    assert.match(
      must(sel.description, 'sel.description'),
      /^A label selector is a label query over a set of resources/,
    );
    assert.match(
      must(
        must(must(sel.properties, 'sel.properties').matchExpressions.items, 'sel.properties.matchExpressions.items')
          .description,
        'sel.properties.matchExpressions.items.description',
      ),
      /^A label selector requirement is a selector that contains values/,
    );
  });

  it('cuts a type that contains itself instead of recursing (apiextensions JSONSchemaProps)', () => {
    const s = must(
      k8sModelSchema('V1JSONSchemaProps', { descriptions: false }),
      "k8sModelSchema('V1JSONSchemaProps', { descriptions: false })",
    );
    assert.deepEqual(must(s.properties, 's.properties').not, {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    assert.deepEqual(must(s.properties, 's.properties').properties.additionalProperties, {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    assert.deepEqual(must(s.properties, 's.properties').default, { 'x-kubernetes-preserve-unknown-fields': true });
    // The same type reached from a parent is cut at its own second occurrence.
    const validation = must(
      k8sModelSchema('V1CustomResourceValidation', { descriptions: false }),
      "k8sModelSchema('V1CustomResourceValidation', { descriptions: false })",
    );
    const open = must(validation.properties, 'validation.properties').openAPIV3Schema;
    assert.equal(open.type, 'object');
    assert.deepEqual(must(open.properties, 'open.properties').not, {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });
});

describe('k8s model schemas: built from the Go types (the newest minor, the default)', () => {
  const noDesc = (name: string) =>
    must(k8sModelSchema(name, { descriptions: false }), 'k8sModelSchema(name, { descriptions: false })');

  it('lays list-maps, list types and map types over the fields and types, as the Go markers say', () => {
    const pod = must(noDesc('V1PodSpec').properties, "noDesc('V1PodSpec').properties");
    assert.deepEqual(pod.topologySpreadConstraints['x-kubernetes-list-map-keys'], ['topologyKey', 'whenUnsatisfiable']);
    assert.equal(pod.topologySpreadConstraints['x-kubernetes-list-type'], 'map');
    assert.equal(pod.nodeSelector['x-kubernetes-map-type'], 'atomic');
    assert.equal(
      must(must(pod.containers.items, 'pod.containers.items').properties, 'pod.containers.items.properties').ports[
        'x-kubernetes-list-type'
      ],
      'map',
    );
    assert.equal(
      must(
        must(pod.ephemeralContainers.items, 'pod.ephemeralContainers.items').properties,
        'pod.ephemeralContainers.items.properties',
      ).ports['x-kubernetes-list-type'],
      'map',
    );
    // Markers Kubernetes added after 1.27 (the old npm-only source lacked them).
    assert.equal(pod.tolerations['x-kubernetes-list-type'], 'atomic');
    assert.equal(pod.readinessGates['x-kubernetes-list-type'], 'atomic');
    assert.deepEqual(pod.imagePullSecrets['x-kubernetes-list-map-keys'], ['name']);
    const selector = must(noDesc('V1LabelSelector').properties, "noDesc('V1LabelSelector').properties");
    assert.equal(selector.matchExpressions['x-kubernetes-list-type'], 'atomic');
    assert.equal(
      must(
        must(selector.matchExpressions.items, 'selector.matchExpressions.items').properties,
        'selector.matchExpressions.items.properties',
      ).values['x-kubernetes-list-type'],
      'atomic',
    );
    // +structType=atomic types carry it wherever they are embedded, and at their own root; so do types
    // that embed one inline (ConfigMapEnvSource embeds LocalObjectReference).
    assert.equal(noDesc('V1SecretKeySelector')['x-kubernetes-map-type'], 'atomic');
    assert.equal(
      must(noDesc('V1EnvVarSource').properties, "noDesc('V1EnvVarSource').properties").secretKeyRef[
        'x-kubernetes-map-type'
      ],
      'atomic',
    );
    assert.equal(noDesc('V1ObjectReference')['x-kubernetes-map-type'], 'atomic');
    assert.equal(noDesc('V1ConfigMapEnvSource')['x-kubernetes-map-type'], 'atomic');
    assert.equal(noDesc('V1Condition')['x-kubernetes-map-type'], undefined);
    assert.equal(
      must(noDesc('V1ServiceSpec').properties, "noDesc('V1ServiceSpec').properties").ports['x-kubernetes-list-type'],
      'map',
    );
    assert.equal(
      must(noDesc('V1ServiceSpec').properties, "noDesc('V1ServiceSpec').properties").clusterIPs[
        'x-kubernetes-list-type'
      ],
      'atomic',
    );
    assert.equal(
      must(
        must(noDesc('V1JobStatus').properties, "noDesc('V1JobStatus').properties").uncountedTerminatedPods.properties,
        "noDesc('V1JobStatus').properties!.uncountedTerminatedPods.properties",
      ).failed['x-kubernetes-list-type'],
      'set',
    );
  });

  it('writes +default values, but not a default that names a Go constant (controller-gen skips those)', () => {
    assert.deepEqual(must(noDesc('V1ContainerPort').properties, "noDesc('V1ContainerPort').properties").protocol, {
      default: 'TCP',
      type: 'string',
    });
    assert.deepEqual(noDesc('V1ContainerPort').required, ['containerPort']);
    assert.deepEqual(
      must(noDesc('V1LocalObjectReference').properties, "noDesc('V1LocalObjectReference').properties").name,
      { default: '', type: 'string' },
    );
    const disk = must(noDesc('V1AzureDiskVolumeSource').properties, "noDesc('V1AzureDiskVolumeSource').properties");
    assert.deepEqual(
      [disk.fsType.default, disk.readOnly.default, disk.cachingMode.default, disk.kind.default],
      ['ext4', false, undefined, undefined],
    );
    const report = readFileSync(join(root, 'src/schema/k8s/data/go-types-report.md'), 'utf8');
    assert.match(report, /^- V1AzureDiskVolumeSource\.cachingMode: \+default=ref\(AzureDataDiskCachingReadWrite\)$/m);
  });

  it('writes metav1.Condition with its +kubebuilder:validation markers and the Go comments as descriptions', () => {
    const c = must(k8sModelSchema('V1Condition'), "k8sModelSchema('V1Condition')");
    const p = must(c.properties, 'c.properties');
    assert.equal(c.description, 'Condition contains details for one aspect of the current state of this API Resource.');
    assert.deepEqual(c.required, ['lastTransitionTime', 'message', 'reason', 'status', 'type']);
    assert.deepEqual(
      [p.message.maxLength, p.reason.maxLength, p.reason.minLength, p.type.maxLength, p.observedGeneration.minimum],
      [32768, 1024, 1, 316, 0],
    );
    assert.deepEqual(p.status.enum, ['True', 'False', 'Unknown']);
    assert.equal(p.reason.pattern, '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$');
    assert.equal(
      p.message.description,
      'message is a human readable message indicating details about the transition.\nThis may be an empty string.',
    );
  });

  it('makes resource.Quantity fields Quantities, from the Go types', () => {
    const r = must(noDesc('V1ResourceRequirements').properties, "noDesc('V1ResourceRequirements').properties");
    assert.equal((r.limits.additionalProperties as JSONSchemaProps)['x-kubernetes-int-or-string'], true);
    assert.equal(
      must(noDesc('V1EmptyDirVolumeSource').properties, "noDesc('V1EmptyDirVolumeSource').properties").sizeLimit[
        'x-kubernetes-int-or-string'
      ],
      true,
    );
  });

  it("writes controller-gen's rules for +k8s:immutable fields (1.37's Job scheduling), on the field and, for an optional one, on its struct", () => {
    const scheduling = must(noDesc('V1JobSpec').properties, "noDesc('V1JobSpec').properties").scheduling;
    const immutable = [{ message: 'field is immutable', rule: 'self == oldSelf' }];
    for (const f of ['schedulingConstraints', 'disruptionMode', 'resourceClaims']) {
      assert.deepEqual(
        must(scheduling.properties, 'scheduling.properties')[f]['x-kubernetes-validations'],
        immutable,
        f,
      );
    }
    assert.deepEqual(
      scheduling['x-kubernetes-validations'],
      ['schedulingConstraints', 'disruptionMode', 'resourceClaims'].map((f) => ({
        message: `field ${f} is immutable once set`,
        rule: `!has(oldSelf.${f}) || has(self.${f})`,
      })),
    );
    // 1.36's JobSpec has no scheduling.
    assert.equal(
      must(
        must(
          k8sModelSchema('V1JobSpec', { descriptions: false, kubernetesVersion: '1.36' }),
          "k8sModelSchema('V1JobSpec', { descriptions: false, kubernetesVersio...",
        ).properties,
        "k8sModelSchema('V1JobSpec', { descriptions: false, kubernetesVersio...",
      ).scheduling,
      undefined,
    );
  });

  it('Go structs newer than client-node become models, models without a Go struct keep client-node data, fields the Go struct lacks are left out, as the report says', () => {
    const report = readFileSync(join(root, 'src/schema/k8s/data/go-types-report.md'), 'utf8');
    const newest = report.slice(report.indexOf(`## Kubernetes ${K8S_NEWEST_VERSION}:`));
    // PodSpec.schedulingGroup (a PodSchedulingGroup, which client-node 1.4.0 does not have).
    assert.match(newest, /^- V1PodSpec\.schedulingGroup$/m);
    assert.match(newest, /^- k8s\.io\/api\/core\/v1\.PodSchedulingGroup$/m);
    assert.equal(
      must(k8sModelSource('V1PodSpec'), "k8sModelSource('V1PodSpec')").properties.schedulingGroup.$model,
      'k8s.io/api/core/v1.PodSchedulingGroup',
    );
    assert.equal(must(noDesc('V1PodSpec').properties, "noDesc('V1PodSpec').properties").schedulingGroup.type, 'object');
    assert.equal(
      isK8sModelName('k8s.io/api/core/v1.PodSchedulingGroup'),
      false,
      'a Go-only struct is no client-node model name',
    );
    // apiextensions types are not in k8s.io/api: client-node's data.
    assert.match(newest, /^- V1CustomResourceDefinition \(no Go type of that group\/version\/kind\)$/m);
    assert.ok(
      must(noDesc('V1CustomResourceDefinition').properties, "noDesc('V1CustomResourceDefinition').properties").spec,
    );
    // A field client-node has that the Go struct no longer has is left out.
    assert.match(newest, /^- V1alpha3DeviceTaintSelector\.deviceClassName$/m);
    assert.equal(noDesc('V1alpha3DeviceTaintSelector').properties?.deviceClassName, undefined);
    // A list-map the API server would reject is left out, and listed.
    assert.match(newest, /^- V1ServiceAccount\.secrets: .*neither required nor defaulted/m);
    assert.equal(
      must(noDesc('V1ServiceAccount').properties, "noDesc('V1ServiceAccount').properties").secrets[
        'x-kubernetes-list-type'
      ],
      undefined,
    );
  });
});

describe('k8s model schemas against controller-gen output (Kubernetes 1.32, compared with the oldest supported minor)', () => {
  // These excerpts are controller-gen's output for k8s.io/api of Kubernetes 1.32 (test/fixtures/k8s),
  // older than every minor kubeforge ships: they are compared with the oldest one, and each
  // difference Kubernetes made since is listed here with its reason (test/oracle/controller-gen.test.ts
  // compares whole CRDs with controller-gen at every supported minor).
  const oldest = K8S_VERSIONS[0];
  const KNOWN: Record<string, { diffs: string[]; reason: string }> = {
    V1PodFailurePolicy: {
      diffs: ['/properties/rules/items/properties/onPodConditions/items required different'],
      reason:
        'a Kubernetes release after 1.32 marked PodFailurePolicyOnPodConditionsPattern.status +optional (1.35 has it): no longer required',
    },
  };
  const seen = new Set<string>();
  for (const file of [
    'controller-gen-v0.17.1-jobtemplate-nodesc.yaml',
    'controller-gen-v0.17.1-podspec-nodesc.yaml',
    'controller-gen-v0.20.1-condition.yaml',
    'controller-gen-template-metadata.yaml',
  ]) {
    const fx = fixture(file);
    // controller-tools' old test data joined comment lines with spaces; today's controller-gen keeps
    // them, as we do: only there are descriptions compared up to whitespace.
    const oldWrapping = file === 'controller-gen-template-metadata.yaml';
    for (const [key, theirs] of Object.entries(fx.schemas)) {
      it(`${key} (${fx.generator}${fx.descriptions ? '' : ', no descriptions'}): the same schema at Kubernetes ${oldest}, keyword for keyword${KNOWN[key] ? ', but for the listed change' : ''}`, () => {
        const diffs = diffSchemas(ours(key, fx.descriptions, oldest), theirs);
        const wrong = diffs.filter(
          (d) => !(oldWrapping && d.kind === 'different' && d.key === 'description' && ws(d.ours) === ws(d.theirs)),
        );
        assert.deepEqual(
          wrong.map((d) => `${d.path} ${d.key} ${d.kind}`),
          KNOWN[key]?.diffs ?? [],
        );
        seen.add(key);
      });
    }
  }
  it('every listed change is a fixture key that was compared', () => {
    for (const key of Object.keys(KNOWN)) assert.ok(seen.has(key), key);
  });
});
