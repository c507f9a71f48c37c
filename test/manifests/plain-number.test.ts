// A plain `number` field becomes `type: number` and takes fractions: KF3012 warns (stderr only,
// exit code unchanged, CRD written as before), int32 / int64 / float64 are quiet.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { analyzeProject } from './analyze-helper.js';
import type { Obj } from '../helpers/chart.js';

const repo = packageRoot();
const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function project(types: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-number-'));
  made.push(dir);
  const files: Record<string, string> = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022' },
      include: ['src/**/*.ts'],
    }),
    'src/api/v1/groupversion.ts':
      "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'n.example.com', version: 'v1' });\n",
    'src/api/v1/thing_types.ts': types,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  for (const [target, path] of [
    [join(repo, 'node_modules/@kubernetes'), 'node_modules/@kubernetes'],
    [repo, 'node_modules/kubeforge'],
  ]) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    symlinkSync(target, join(dir, path), 'dir');
  }
  return dir;
}

const TYPES = `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Root, type float64, type int32, type int64 } from 'kubeforge/markers';

export class ThingSpec {
  size?: number;
  sizes?: number[];
  weights?: Record<string, number>;
  maybe?: number | null;
  replicas?: int32;
  bytes?: int64;
  ratio?: float64;
}

@Root()
export class Thing {
  metadata?: V1ObjectMeta;
  spec?: ThingSpec;
}
`;

describe('a plain number field (KF3012)', () => {
  it('warns at each plain number a value has, with the int32 / int64 / float64 hint; the aliases are quiet', async () => {
    const r = await analyzeProject({ projectDir: project(TYPES), generatorVersion: 'v0' });
    assert.deepEqual(
      r.diagnostics.map((d) => [d.severity, d.code, d.line, d.column]),
      [
        ['warning', 'KF3012', 5, 10],
        ['warning', 'KF3012', 6, 11],
        ['warning', 'KF3012', 7, 28],
        ['warning', 'KF3012', 8, 11],
      ],
    );
    assert.match(r.diagnostics[0].message, /field "size" of ThingSpec is a plain number/);
    assert.match(r.diagnostics[0].hint ?? '', /int32 or int64 from 'kubeforge\/markers'.*float64/);
    const props = (r.crds[0] as Obj).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    assert.deepEqual(props.size, { type: 'number' });
    assert.deepEqual(props.ratio, { type: 'number' }, 'float64 gives the same schema as number, quietly');
    assert.deepEqual(props.replicas, { format: 'int32', type: 'integer' });
  });

  it("is quiet where a marker sets the type (@Type, @Items.Type, an alias's @type tag), and int is Go's int", async () => {
    const types = `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Items, Root, Type, type int } from 'kubeforge/markers';

/** @type integer */
export type Count = number;

export class ThingSpec {
  @Type('integer')
  typed?: number;
  @Type('integer')
  maybe?: number | null;
  @Items.Type('integer')
  list?: Array<number>;
  plain?: number;
  count?: Count;
  whole?: int;
  wholes?: int[];
}

@Root()
export class Thing {
  metadata?: V1ObjectMeta;
  spec?: ThingSpec;
}
`;
    const r = await analyzeProject({ projectDir: project(types), generatorVersion: 'v0' });
    // The markers quiet only the numbers whose type they set.
    assert.deepEqual(
      r.diagnostics.map((d) => [d.severity, d.code, d.line, d.message.replace(/ is a plain number.*/, '')]),
      [['warning', 'KF3012', 14, 'field "plain" of ThingSpec']],
    );
    const props = (r.crds[0] as Obj).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    assert.deepEqual(props.typed, { type: 'integer' });
    assert.deepEqual(props.maybe, { nullable: true, type: 'integer' });
    assert.deepEqual(props.list, { items: { type: 'integer' }, type: 'array' });
    assert.deepEqual(props.count, { type: 'integer' });
    assert.deepEqual(props.whole, { type: 'integer' }, "Go's int: no format, as controller-gen writes it");
    assert.deepEqual(props.wholes, { items: { type: 'integer' }, type: 'array' });
  });

  it('kubeforge manifests prints the warnings on stderr, writes the CRD and exits 0', async () => {
    const dir = project(TYPES);
    let out = '';
    let err = '';
    const code = await run(['node', 'kubeforge', 'manifests', '--generator-version', 'test'], {
      cwd: dir,
      color: false,
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    });
    assert.equal(code, 0, err);
    assert.equal(err.match(/KF3012/g)?.length, 4);
    assert.doesNotMatch(out, /KF3012/);
    assert.match(
      readFileSync(join(dir, 'config/crd/bases/n.example.com_things.yaml'), 'utf8'),
      /size:\n\s+type: number/,
    );
  });
});
