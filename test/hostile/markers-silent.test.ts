// Hostile input, second round, family 2: no marker and no declaration is dropped without a word.
// Each case was a silent drop (exit 0, nothing said): a JSDoc marker on the line of its `{`,
// private fields, an initializer that looks like a default, a repeated enum value, a template
// literal type, apiVersion / kind of the wrong type, a CRD deleted because its class lost @Root(),
// and the hint of a JSDoc @default on a class field. Driven through the real CLI.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { treeHash } from '../helpers/tree.js';
import { cleanup, cli, freshFolder, ok } from './helpers.js';

after(cleanup);

const CRD = 'config/crd/bases/quiet.example.com_widgets.yaml';

function project(types: string): string {
  const dir = freshFolder();
  const files: Record<string, string> = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
      include: ['src/**/*.ts'],
    }),
    'package.json': '{"name":"quiet","private":true,"type":"module"}\n',
    'src/api/v1/groupversion.ts':
      "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'quiet.example.com', version: 'v1' });\n",
    'src/api/v1/widget_types.ts': types,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const kind = (spec: string, extra = '') => `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Default, Enum, Pattern, Root, type int32 } from 'kubeforge/markers';

${spec}

@Root()
export class Widget {
${extra}  metadata?: V1ObjectMeta;
  spec?: WidgetSpec;
}
`;

/** [line:column code] of every diagnostic the CLI printed. */
function codes(text: string): string[] {
  return [...text.matchAll(/^src\/api\/v1\/widget_types\.ts:(\d+:\d+) {2}(KF\d{4})/gm)].map((m) => `${m[1]} ${m[2]}`);
}

describe('hostile: markers and fields are read or reported, never dropped (CLI)', () => {
  it("a JSDoc marker on the line of its interface's or type literal's `{` is read", async () => {
    const dir = project(
      kind(
        `export interface WidgetSpec { /** @maxLength 3 */ name?: string; inner?: { /** @minLength 2 */ label?: string }; /** @maxLength 9 */ other?: string }`,
      ),
    );
    ok(await cli(dir, ['manifests']), 'manifests');
    const crd = readFileSync(join(dir, CRD), 'utf8');
    assert.match(crd, /name:\n\s+maxLength: 3\n/);
    assert.match(crd, /label:\n\s+minLength: 2\n/);
    assert.match(crd, /other:\n\s+maxLength: 9\n/);
  });

  it('private fields, an initializer, a repeated enum value, a template literal type and a JSDoc @default on a class field are each said, located', async () => {
    const dir = project(
      kind(`export class WidgetSpec {
  private secret?: string;
  #hidden?: string;
  protected kept?: string;
  replicas?: int32 = 3;
  @Enum('a', 'b', 'a') mode?: string;
  tag?: \`v\${number}-\${string}\`;
  @Pattern('^v') checked?: \`v\${string}\`;
  /** @default fast */
  speed?: string;
}`),
    );
    const r = ok(await cli(dir, ['manifests']), 'manifests');
    assert.deepEqual(codes(r.err), [
      '5:11 KF2017',
      '6:3 KF2017',
      '7:13 KF2017',
      '8:22 KF2018',
      '9:3 KF2015',
      '10:9 KF3013',
      '12:7 KF2014',
    ]);
    assert.match(r.err, /field secret of WidgetSpec is private, so it is left out of the CRD schema/);
    assert.match(r.err, /hint: to have the API server default it, write @Default\(3\) and remove the initializer/);
    assert.match(r.err, /@Enum on field "mode" of WidgetSpec: the value "a" is given more than once/);
    assert.match(
      r.err,
      /hint: to have the API server check the form too, add @Pattern\('\^v-\?\[0-9\]\+\(\\\\\.\[0-9\]\+\)\?-\.\*\$'\)/,
    );
    assert.match(r.err, /hint: write the decorator @Default\('fast'\) imported from 'kubeforge\/markers' instead/);
    // What is written is unchanged by the warnings: the API server takes repeated enum values.
    const crd = readFileSync(join(dir, CRD), 'utf8');
    assert.match(crd, /enum:\n\s+- a\n\s+- b\n\s+- a\n/);
    assert.doesNotMatch(crd, /secret|hidden|kept:/);
  });

  it('apiVersion or kind of another type than string: KF3014, exit 1, nothing written', async () => {
    const dir = project(
      kind('export class WidgetSpec {\n  size?: int32;\n}', '  apiVersion?: int32;\n  kind?: boolean;\n'),
    );
    const before = treeHash(dir);
    const r = await cli(dir, ['manifests']);
    assert.equal(r.code, 1, r.out + r.err);
    assert.deepEqual(codes(r.err), ['10:3 KF3014', '11:3 KF3014']);
    assert.match(
      r.err,
      /field apiVersion of Kind Widget is declared as integer, but the API server sends and takes it as a string/,
    );
    assert.equal(treeHash(dir), before);
    // A string, a literal of one, or nothing at all: accepted.
    const fine = project(
      kind('export class WidgetSpec {\n  size?: int32;\n}', "  apiVersion?: string;\n  kind?: 'Widget';\n"),
    );
    ok(await cli(fine, ['manifests']), 'manifests with string apiVersion and kind');
  });

  it('a class that lost @Root(): its CRD is deleted with a located KF4016 warning', async () => {
    const types = kind('export class WidgetSpec {\n  size?: int32;\n}');
    const dir = project(types);
    ok(await cli(dir, ['manifests']), 'manifests');
    assert.ok(existsSync(join(dir, CRD)));
    writeFileSync(join(dir, 'src/api/v1/widget_types.ts'), types.replace('@Root()\n', ''));
    const r = ok(await cli(dir, ['manifests']), 'manifests without @Root()');
    assert.match(r.out, new RegExp(`DELETE ${CRD.replace(/\./g, '\\.')}`));
    assert.deepEqual(codes(r.err), ['8:14 KF4016']);
    assert.match(r.err, /is deleted: class Widget has no @Root\(\) any more, so it is not a Kind and gets no CRD/);
    // Said once, for the run that deletes: the next run has nothing to say.
    const again = ok(await cli(dir, ['manifests']), 'manifests again');
    assert.deepEqual(codes(again.err), []);
  });
});
