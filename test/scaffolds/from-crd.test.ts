// `create api --from-crd`: the conversion of schemas to classes with markers (names, slots,
// refusals), and the command on disk: adopting an API, an external Kind, and refusals that leave
// the disk as it was. The round trip over real CRDs is from-crd-roundtrip.test.ts.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import YAML from 'yaml';
import { analyzeProject } from '../manifests/analyze-helper.js';
import { run } from '../../src/cli/index.js';
import { pascal, readCrdText, singular, typesFromCrd } from '../../src/scaffolds/from-crd.js';
import { must } from '../helpers/must.js';

type Obj = Record<string, unknown>;

/** apiVersion, kind and metadata as kubeforge (and controller-gen) describe them. */
const TYPE_META = {
  apiVersion: {
    description:
      'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
    type: 'string',
  },
  kind: {
    description:
      'Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
    type: 'string',
  },
  metadata: { type: 'object' },
};

function crdOf(schema: Obj, extra: Obj = {}): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.shop.example.com' },
    spec: {
      group: 'shop.example.com',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { ...TYPE_META, spec: schema } } },
          ...extra,
        },
      ],
    },
  };
}

describe('from-crd: schema to classes', () => {
  it('names nested types after the Kind and the field path, items singular, numbered only on a clash', () => {
    assert.equal(pascal('privateKey'), 'PrivateKey');
    assert.equal(pascal('x-kubernetes-foo'), 'XKubernetesFoo');
    assert.equal(singular('solvers'), 'solver');
    assert.equal(singular('addresses'), 'address');
    assert.equal(singular('policies'), 'policy');
    assert.equal(singular('status'), 'status');
    const r = typesFromCrd(
      crdOf({
        type: 'object',
        properties: {
          solvers: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          owner: { type: 'object', properties: { a: { type: 'string' } } },
        },
      }),
      { file: 'w.yaml' },
    );
    assert.deepEqual(r.problems, []);
    const text = r.versions[0].text;
    assert.match(text, /spec\?: WidgetSpec;/);
    assert.match(text, /solvers\?: WidgetSolver\[\];/);
    assert.match(text, /owner\?: WidgetOwner;/);
    assert.match(text, /export class WidgetSolver \{/);
  });

  it('declares one class per distinct object; a name taken goes to the parent field and the field', () => {
    const ref = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const crd = crdOf({
      type: 'object',
      properties: {
        secretRef: { ...ref, description: 'the secret.' },
        tokenRef: { ...ref, description: 'the token.' },
        foo: { type: 'object', properties: { a: { type: 'string' } } },
      },
    });
    const versions = (crd.spec as { versions: Obj[] }).versions;
    (versions[0].schema as { openAPIV3Schema: { properties: Obj } }).openAPIV3Schema.properties.status = {
      type: 'object',
      properties: { foo: { type: 'object', properties: { b: { type: 'integer' } } } },
    };
    const text = typesFromCrd(crd, { file: 'w.yaml' }).versions[0].text;
    assert.match(text, /the secret\.\n {3}\*\/\n {2}secretRef\?: WidgetSecretRef;/);
    assert.match(text, /the token\.\n {3}\*\/\n {2}tokenRef\?: WidgetSecretRef;/);
    assert.equal(text.match(/^export class WidgetSecretRef /gm)?.length, 1);
    assert.match(text, /^export class WidgetFoo \{\n {2}a\?: string;/m);
    assert.match(text, /^export class WidgetStatusFoo \{\n {2}b\?: int;/m);
    assert.equal(typesFromCrd(crd, { file: 'w.yaml' }).versions[0].text, text, 'deterministic');
  });

  it('puts markers on fields, and on a named type where items need them', () => {
    const r = typesFromCrd(
      crdOf({
        type: 'object',
        required: ['mode'],
        properties: {
          mode: { type: 'string', enum: ['A', 'B'], default: 'A', description: 'mode says how.' },
          port: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
          size: { type: 'integer', format: 'int32', minimum: 1 },
          tags: { type: 'array', items: { type: 'string', maxLength: 5 }, 'x-kubernetes-list-type': 'set' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          note: { type: 'string', nullable: true },
          empty: { type: 'object' },
        },
        'x-kubernetes-validations': [{ rule: 'self.size > 0', message: 'positive' }],
      }),
      { file: 'w.yaml' },
    );
    assert.deepEqual(r.problems, []);
    const text = r.versions[0].text;
    assert.match(
      text,
      /\/\*\*\n {3}\* mode says how\.\n {3}\*\/\n {2}@Enum\('A', 'B'\)\n {2}@Default\('A'\)\n {2}mode!: 'A' \| 'B';/,
    );
    assert.match(text, /port\?: IntOrString;/);
    assert.match(text, /@Minimum\(1\)\n {2}size\?: int32;/);
    assert.match(text, /\* @maxLength 5\n \*\/\nexport type WidgetTag = string;/);
    assert.match(text, /@ListType\('set'\)\n {2}tags\?: WidgetTag\[\];/);
    assert.match(text, /labels\?: Record<string, string>;/);
    assert.match(text, /@PreserveUnknownFields\(\)\n {2}raw\?: object;/);
    assert.match(text, /note\?: string \| null;/);
    // An object without fields: one class, no JSDoc (which would describe the field).
    assert.match(text, /\{\n {2}empty\?: EmptyObject;/);
    assert.match(
      text,
      /^\/\/ An object without fields of its own \(`type: object`\)\.\nexport class EmptyObject \{\}/m,
    );
    assert.match(text, /@XValidation\(\{ rule: 'self.size > 0', message: 'positive' \}\)\n {2}spec\?: WidgetSpec;/);
  });

  it('refuses what no marker writes, naming the schema path (KF1100), and warns of descriptions it cannot keep', () => {
    const r = typesFromCrd(
      crdOf({
        type: 'object',
        properties: {
          address: { type: 'string', oneOf: [{ format: 'ipv4' }, { format: 'ipv6' }] },
          both: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
          note: { type: 'string', description: 'first\n\n\nsecond' },
          urls: { type: 'array', items: { type: 'string', pattern: '^https://.*/x$' } },
        },
      }),
      { file: 'w.yaml' },
    );
    const errors = r.problems.filter((p) => p.severity === 'error').map((p) => `${p.code} ${p.message}`);
    assert.deepEqual(errors, [
      'KF1100 Widget v1: openAPIV3Schema.spec.address: uses oneOf, which no kubeforge marker writes',
      'KF1100 Widget v1: openAPIV3Schema.spec.both: has both properties and additionalProperties',
      'KF1100 Widget v1: openAPIV3Schema.spec.urls[*]: its Pattern holds "*/", which would end the JSDoc comment of the type alias that carries it',
    ]);
    const warnings = r.problems.filter((p) => p.severity === 'warning').map((p) => p.message);
    assert.match(warnings.join('\n'), /openAPIV3Schema\.spec\.note: .*two blank lines in a row/);
    // apiVersion, kind and metadata are kubeforge's to write: a CRD that says otherwise is told.
    const bare = crdOf({ type: 'object' });
    const root = ((bare.spec as { versions: Obj[] }).versions[0].schema as { openAPIV3Schema: { properties: Obj } })
      .openAPIV3Schema;
    delete root.properties.apiVersion;
    root.properties.metadata = { type: 'object', properties: { name: { type: 'string', maxLength: 63 } } };
    assert.deepEqual(
      typesFromCrd(bare, { file: 'w.yaml' }).problems.map((p) => `${p.severity} ${p.message.split(' (')[0]}`),
      [
        'warning Widget v1: openAPIV3Schema.apiVersion: is not declared, and kubeforge writes it',
        'warning Widget v1: openAPIV3Schema.metadata: differs from the schema kubeforge writes for metadata',
      ],
    );
  });

  it('reads one CRD of a file, or the one --kind names; refuses other files', () => {
    const two = `${YAML.stringify(crdOf({ type: 'object' }))}---\n${YAML.stringify({ ...crdOf({ type: 'object' }), spec: { ...(crdOf({}).spec as Obj), names: { kind: 'Gadget', plural: 'gadgets' } } })}`;
    assert.match(readCrdText(two, 'two.yaml').problems[0].message, /holds several CRDs \(Widget, Gadget\)/);
    assert.equal(readCrdText(two, 'two.yaml', 'Gadget').crd?.spec && 'ok', 'ok');
    assert.match(readCrdText('kind: ConfigMap\n', 'cm.yaml').problems[0].message, /holds no CustomResourceDefinition/);
    const v1beta1 = YAML.stringify({ ...crdOf({}), apiVersion: 'apiextensions.k8s.io/v1beta1' });
    assert.match(readCrdText(v1beta1, 'old.yaml').problems[0].message, /kubeforge imports apiextensions.k8s.io\/v1/);
  });
});

describe('from-crd: round trip of the constructs the real corpus rarely uses', () => {
  it('each comes back schema-equal through the analysis and the CRD generator', async () => {
    const str = { type: 'string' };
    const spec = {
      type: 'object',
      description: 'WidgetSpec is the desired state.',
      required: ['count'],
      properties: {
        count: {
          type: 'integer',
          maximum: 10,
          exclusiveMaximum: true,
          minimum: 0,
          exclusiveMinimum: true,
          multipleOf: 2,
        },
        ratio: { type: 'number', format: 'double', title: 'Ratio', example: 0.5 },
        plain: { type: 'integer', description: 'an integer without a format.' },
        grid: {
          type: 'array',
          items: { type: 'array', items: { ...str, maxLength: 3 }, maxItems: 4 },
          description: 'a list of lists.',
        },
        rules: {
          type: 'array',
          items: { ...str, 'x-kubernetes-validations': [{ rule: 'self != "x"', message: 'not x' }] },
        },
        selector: {
          type: 'object',
          additionalProperties: { ...str, pattern: '^[a-z]+$', description: 'a value.' },
          'x-kubernetes-map-type': 'atomic',
        },
        port: { 'x-kubernetes-int-or-string': true, description: 'int or string, no anyOf.' },
        maybe: { type: 'array', items: { ...str, nullable: true } },
        ports: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: str, port: { type: 'integer', format: 'int32' } },
          },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        options: { type: 'object', properties: { a: str }, default: { a: 'b' }, 'x-kubernetes-map-type': 'atomic' },
        docs: { ...str, externalDocs: { url: 'https://example.com', description: 'more' } },
        free: { 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    const crd = crdOf(spec, {
      subresources: { status: {}, scale: { specReplicasPath: '.spec.count', statusReplicasPath: '.status.count' } },
      additionalPrinterColumns: [{ name: 'Count', type: 'integer', jsonPath: '.spec.count', priority: 1 }],
    });
    const schema = ((crd.spec as { versions: Obj[] }).versions[0].schema as { openAPIV3Schema: Obj }).openAPIV3Schema;
    schema.description = 'Widget is a test of rare constructs.';
    schema.required = ['metadata', 'spec']; // metadata required: @Required() on the Kind's metadata
    schema.properties = {
      ...TYPE_META,
      spec,
      status: { type: 'object', properties: { count: { type: 'integer', format: 'int32' } } },
    };
    (crd.spec as Obj).names = { ...((crd.spec as Obj).names as Obj), categories: ['all'], shortNames: ['wd'] };
    const imported = typesFromCrd(crd, { file: 'w.yaml' });
    assert.deepEqual(imported.problems, []);
    const work = mkdtempSync(join(tmpdir(), 'fromcrd-rare-'));
    try {
      const dir = join(work, 'src/api/v1');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'groupversion.ts'),
        "import { defineGroupVersion } from 'kubeforge/markers';\n\nexport const groupVersion = defineGroupVersion({ group: 'shop.example.com', version: 'v1' });\n",
      );
      writeFileSync(join(dir, 'widget_types.ts'), imported.versions[0].text);
      assert.match(imported.versions[0].text, /@Required\(\)\n {2}metadata\?: V1ObjectMeta;/);
      const result = await analyzeProject({ projectDir: work, generatorVersion: 'v0.0.0-test' });
      assert.deepEqual(
        result.diagnostics.filter((d) => d.severity === 'error'),
        [],
      );
      const out = result.crds[0] as Obj;
      assert.deepEqual((out.spec as Obj).versions, (crd.spec as Obj).versions);
      assert.deepEqual((out.spec as Obj).names, { ...((crd.spec as Obj).names as Obj) });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('create api --from-crd on disk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fromcrd-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function kubeforge(args: string[]): Promise<{ code: number; err: string; out: string }> {
    let err = '';
    let out = '';
    const code = await run(['node', 'kubeforge', ...args], {
      cwd: dir,
      color: false,
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    });
    return { code, err, out };
  }

  function snapshot(): string {
    const lines: string[] = [];
    const walk = (d: string) => {
      for (const n of readdirSync(d).sort()) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else lines.push(`${p} ${readFileSync(p, 'utf8').length}`);
      }
    };
    walk(dir);
    return lines.join('\n');
  }

  const crdFile = join(dir, '..', `${dir.split('/').pop()}-widget.yaml`);
  after(() => rmSync(crdFile, { force: true }));

  it('adopts an API: the types from the CRD, and manifests writes the CRD back schema-equal', async () => {
    const init = await kubeforge([
      'init',
      '--domain',
      'example.com',
      '--license',
      'none',
      '--skip-install',
      '--project-name',
      'shop',
    ]);
    assert.equal(init.code, 0, init.err);
    const crd = crdOf(
      { type: 'object', properties: { size: { type: 'integer', format: 'int32', minimum: 1, description: 'size.' } } },
      { subresources: { status: {} } },
    );
    (crd.spec as Obj).names = { ...((crd.spec as Obj).names as Obj), shortNames: ['wd'] };
    writeFileSync(crdFile, YAML.stringify(crd));
    // No controller unless asked: create api's controller is written for the types create api writes.
    const r = await kubeforge(['create', 'api', '--from-crd', crdFile]);
    assert.equal(r.code, 0, r.err);
    assert.equal(existsSync(join(dir, 'src/controller/widget_controller.ts')), false);
    assert.match(
      readFileSync(join(dir, 'src/api/v1/widget_types.ts'), 'utf8'),
      /@Resource\(\{ shortName: \['wd'\] \}\)/,
    );
    const written = YAML.parse(readFileSync(join(dir, 'config/crd/bases/shop.example.com_widgets.yaml'), 'utf8'));
    const version = ((crd.spec as Obj).versions as Obj[])[0];
    assert.deepEqual(written.spec.names, (crd.spec as Obj).names);
    assert.deepEqual(written.spec.versions[0].subresources, version.subresources);
    assert.deepEqual(
      written.spec.versions[0].schema.openAPIV3Schema.properties.spec,
      ((version.schema as Obj).openAPIV3Schema as { properties: Obj }).properties.spec,
    );
  });

  it('an external Kind: the classes go to --external-api-path, beside a groupversion.ts that skips its CRD', async () => {
    const other = join(dir, '..', `${dir.split('/').pop()}-gadget.yaml`);
    const crd = crdOf({ type: 'object', properties: { color: { type: 'string' } } });
    (crd.spec as Obj).group = 'gadgets.acme.io';
    (crd.spec as Obj).names = { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' };
    writeFileSync(other, YAML.stringify(crd));
    try {
      const r = await kubeforge([
        'create',
        'api',
        '--from-crd',
        other,
        '--resource=false',
        '--external-api-path',
        'src/external/acme/v1.ts',
      ]);
      assert.equal(r.code, 0, r.err);
      assert.match(readFileSync(join(dir, 'src/external/acme/v1.ts'), 'utf8'), /export class Gadget \{/);
      assert.match(
        readFileSync(join(dir, 'src/external/acme/groupversion.ts'), 'utf8'),
        /group: 'gadgets\.acme\.io', version: 'v1', skip: true/,
      );
      assert.match(
        readFileSync(join(dir, 'src/controller/gadget_controller.ts'), 'utf8'),
        /import type \{ Gadget as GadgetObject \} from '\.\.\/external\/acme\/v1\.js';/,
      );
      const project = YAML.parse(readFileSync(join(dir, 'PROJECT'), 'utf8')) as { resources: Obj[] };
      const entry = must(
        project.resources.find((e) => e.kind === 'Gadget'),
        'the Gadget resource in PROJECT',
      );
      assert.deepEqual(
        [entry.external, entry.group, entry.domain, entry.path],
        [true, 'gadgets', 'acme.io', 'src/external/acme/v1.ts'],
      );
      assert.deepEqual(readdirSync(join(dir, 'config/crd/bases')), ['shop.example.com_widgets.yaml']);
    } finally {
      rmSync(other, { force: true });
    }
  });

  it('refuses a contradicting flag, a CRD of another domain and an unimportable schema; the disk stays as it was', async () => {
    const before = snapshot();
    const contradicting = await kubeforge(['create', 'api', '--from-crd', crdFile, '--kind', 'Gadget']);
    assert.equal(contradicting.code, 1);
    assert.match(contradicting.err, /KF1100/);
    const other = join(dir, '..', `${dir.split('/').pop()}-other.yaml`);
    writeFileSync(other, YAML.stringify({ ...crdOf({}), spec: { ...(crdOf({}).spec as Obj), group: 'acme.io' } }));
    const foreign = await kubeforge(['create', 'api', '--from-crd', other]);
    rmSync(other);
    assert.equal(foreign.code, 1);
    assert.match(foreign.err, /-other\.yaml:\d+:\d+ +KF1100 .*not in this project's domain example\.com/);
    assert.match(foreign.err, /--external-api-path/);
    writeFileSync(crdFile, YAML.stringify(crdOf({ type: 'object', properties: { a: { not: { type: 'string' } } } })));
    const bad = await kubeforge(['create', 'api', '--from-crd', crdFile, '--force']);
    assert.equal(bad.code, 1);
    // Located at the keyword in the file: the line of `not:` under spec.a.
    const lines = readFileSync(crdFile, 'utf8').split('\n');
    const notLine = lines.findIndex((l) => /^\s+not:$/.test(l)) + 2; // its value's first line, 1-based
    assert.match(bad.err, new RegExp(`widget\\.yaml:${notLine}:\\d+ +KF1100 .*openAPIV3Schema\\.spec\\.a: uses not`));
    const plugin = await kubeforge(['create', 'api', '--from-crd', crdFile, '--plugins', 'deploy-image/v1-alpha']);
    assert.equal(plugin.code, 1);
    assert.match(plugin.err, /KF1100 .*the types come from the CRD/);
    assert.equal(snapshot(), before);
  });

  it('imports every version of a CRD without --version (PROJECT entries, types, samples), schema-equal; again with --force: no change', async () => {
    const multi = mkdtempSync(join(tmpdir(), 'fromcrd-multi-'));
    try {
      const cli = async (args: string[]) => {
        let err = '';
        let out = '';
        const code = await run(['node', 'kubeforge', ...args], {
          cwd: multi,
          color: false,
          out: (t) => {
            out += t;
          },
          err: (t) => {
            err += t;
          },
        });
        return { code, err, out };
      };
      const init = await cli([
        'init',
        '--domain',
        'kubebuilder.io',
        '--license',
        'none',
        '--skip-install',
        '--project-name',
        'multi',
      ]);
      assert.equal(init.code, 0, init.err);
      const file = join(
        process.env.KUBEFORGE_REPO_ROOT ?? process.cwd(),
        'test/fixtures/manifests/conformance/testdata.kubebuilder.io_versionedresources/expected.yaml',
      );
      const r = await cli(['create', 'api', '--from-crd', file, '--controller=false']);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^CREATE src\/api\/v1beta1\/versionedresource_types\.ts/m);
      const project = YAML.parse(readFileSync(join(multi, 'PROJECT'), 'utf8')) as { resources: Obj[] };
      assert.deepEqual(
        project.resources.map((e) => [e.version, e.path]),
        [
          ['v1beta2', 'src/api/v1beta2/versionedresource_types.ts'],
          ['v1beta1', 'src/api/v1beta1/versionedresource_types.ts'],
        ],
      );
      assert.match(
        readFileSync(join(multi, 'config/samples/kustomization.yaml'), 'utf8'),
        /testdata_v1beta1_versionedresource\.yaml/,
      );
      const input = YAML.parse(readFileSync(file, 'utf8'));
      const written = YAML.parse(
        readFileSync(join(multi, 'config/crd/bases/testdata.kubebuilder.io_versionedresources.yaml'), 'utf8'),
      );
      assert.deepEqual(written.spec, input.spec);
      const again = await cli(['create', 'api', '--from-crd', file, '--controller=false', '--force', '--dry-run']);
      assert.equal(again.code, 0, again.err);
      assert.doesNotMatch(again.out, /^(CREATE|UPDATE|DELETE) /m);
    } finally {
      rmSync(multi, { recursive: true, force: true });
    }
  });
});
