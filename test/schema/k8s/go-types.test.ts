// scripts/k8s-go-types.mjs (reading Go API type declarations the way controller-gen sees them) and
// scripts/k8s-go-overlay.mjs (rebuilding the client-node models from them), on small Go snippets written
// here: controller-gen's description rules, marker splitting, the struct reader's edge cases, and
// every kind of change and report entry the overlay makes on a tiny model set.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { must } from '../../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');

interface Marker {
  name: string;
  value: string | undefined;
}
interface GoField {
  name?: string;
  type?: string;
  tags?: Record<string, string>;
  doc?: string[];
  line: number;
  unreadable?: string;
}
interface GoDecl {
  name: string;
  file: string;
  line: number;
  doc: string[];
  imports: Map<string, string>;
  kind: 'struct' | 'named';
  fields?: GoField[];
  alias?: boolean;
  underlying?: string;
  pkg?: string;
}
type GoPackages = Map<string, Map<string, GoDecl>>;
interface GoTypes {
  docText(lines: string[]): string;
  markersOf(lines: string[]): Marker[];
  isMarkerComment(line: string): boolean;
  readGoFile(text: string, file: string): GoDecl[];
  readGoConstants(text: string): { name: string; type: string; value: string }[];
  readGoPackages(roots: string | Record<string, string>, packages: string[]): GoPackages;
  apiPackages(roots: string | Record<string, string>): string[];
  packageDir(roots: string | Record<string, string>, pkg: string): string;
}
type Node = Record<string, unknown>;
interface Model {
  description?: string;
  properties: Record<string, Node>;
  required?: string[];
  [key: string]: unknown;
}
interface Report {
  matched: number;
  unmatched: string[];
  fieldsBoth: number;
  droppedFields: string[];
  goOnlyFields: string[];
  goOnlyModels: string[];
  shapeMismatches: string[];
  requiredChanged: string[];
  notApplicable: string[];
  applied: Map<string, number>;
  ignoredDefaults: string[];
  unknownMarkers: Map<string, string[]>;
  droppedListMaps: string[];
}
interface GoOverlay {
  overlayGo(models: Record<string, Model>, names: string[], goPkgs: GoPackages): Report;
  listMapProblem(models: Record<string, Model>, node: Node): string | undefined;
}
const types = (await import(pathToFileURL(join(root, 'scripts/k8s-go-types.mjs')).href)) as GoTypes;
const overlay = (await import(pathToFileURL(join(root, 'scripts/k8s-go-overlay.mjs')).href)) as GoOverlay;

/** `// ` comment lines from text lines. */
const c = (...lines: string[]) => lines.map((l) => (l === '' ? '//' : `// ${l}`));

describe('k8s go types: docText (controller-gen descriptions)', () => {
  const { docText } = types;

  it('drops marker lines, with or without a space after //', () => {
    assert.equal(
      docText(['// Foo is a thing.', '// +optional', '//+kubebuilder:validation:MaxLength=5', '// more.']),
      'Foo is a thing.\nmore.',
    );
  });

  it('removes one space after // and keeps the rest of the indentation', () => {
    assert.equal(docText(['// a', '//  two spaces', '//none']), 'a\n two spaces\nnone');
  });

  it('keeps tab-indented comment text', () => {
    assert.equal(docText(['// Example:', '//\tfoo: bar', '// \t\tbaz: 1']), 'Example:\n\tfoo: bar\n\t\tbaz: 1');
  });

  it('trims trailing spaces and tabs', () => {
    assert.equal(docText(['// a   ', '// b\t ']), 'a\nb');
  });

  it('squeezes runs of blank lines into one', () => {
    assert.equal(docText(['// a', '//', '//   ', '//', '// b']), 'a\n\nb');
  });

  it('removes leading and trailing blank lines (also those left by dropped markers)', () => {
    assert.equal(docText(['//', '// +optional', '//', '// a', '//', '// +listType=atomic', '//']), 'a');
  });

  it('drops lines starting with TODO (not lines merely containing it)', () => {
    assert.equal(
      docText(c('a', 'TODO: remove this', 'b says TODO', ' TODO indented')),
      'a\nb says TODO\n TODO indented',
    );
  });

  it('ends the text at a line starting with ---', () => {
    assert.equal(docText(c('a', 'b --- not here', '---', 'hidden', 'also hidden')), 'a\nb --- not here');
  });

  it('inside ``` and ~~~ fenced blocks keeps TODO and --- lines', () => {
    assert.equal(
      docText(
        c(
          'a',
          '```yaml',
          'TODO: kept',
          '---',
          'x: 1',
          '```',
          'TODO: dropped',
          '~~~',
          '--- kept',
          '~~~',
          'b',
          '---',
          'gone',
        ),
      ),
      'a\n```yaml\nTODO: kept\n---\nx: 1\n```\n~~~\n--- kept\n~~~\nb',
    );
  });

  it('drops //go:generate-style directives but not ordinary text with a colon', () => {
    assert.equal(
      docText([
        '// Foo holds things.',
        '//go:generate deepcopy-gen',
        '//nolint:lll',
        '//export Foo',
        '//line foo.go:10',
        '// note: kept',
        '// go:kept too',
      ]),
      'Foo holds things.\nnote: kept\ngo:kept too',
    );
  });

  it('gives an empty description for a comment of markers only', () => {
    assert.equal(docText(['// +optional', '// +k8s:deepcopy-gen=true']), '');
    assert.equal(docText([]), '');
  });
});

describe('k8s go types: markersOf', () => {
  const { markersOf, isMarkerComment } = types;

  it('splits name and value on the first =, and leaves bare markers without a value', () => {
    assert.deepEqual(
      markersOf([
        '// Doc text, not a marker = no.',
        '// +optional',
        '//+listType=map',
        '// +kubebuilder:validation:Pattern=`^a=b$`',
        '// +default="x=y"',
        '// +kubebuilder:validation:Enum=A;B;C',
        '//   +listMapKey=name',
      ]),
      [
        { name: 'optional', value: undefined },
        { name: 'listType', value: 'map' },
        { name: 'kubebuilder:validation:Pattern', value: '`^a=b$`' },
        { name: 'default', value: '"x=y"' },
        { name: 'kubebuilder:validation:Enum', value: 'A;B;C' },
        { name: 'listMapKey', value: 'name' },
      ],
    );
  });

  it('a marker comment is one whose text after // starts with +', () => {
    assert.equal(isMarkerComment('// +optional'), true);
    assert.equal(isMarkerComment('//\t+optional'), true);
    assert.equal(isMarkerComment('// a +b'), false);
    assert.equal(isMarkerComment('+optional'), false);
  });
});

describe('k8s go types: readGoFile', () => {
  const { readGoFile } = types;
  const FILE = [
    'package v1', // 1
    '', // 2
    'import (', // 3
    '\t"k8s.io/apimachinery/pkg/api/resource"', // 4
    '\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"', // 5
    '\t_ "k8s.io/unused"', // 6
    ')', // 7
    '', // 8
    '// Detached is not the doc of Foo: a blank line separates them.', // 9
    '', // 10
    '// Foo is a thing.', // 11
    '// +structType=atomic', // 12
    'type Foo struct {', // 13
    '\tmetav1.TypeMeta `json:",inline"`', // 14
    '\t// Size of it.', // 15
    '\t// +optional', // 16
    '\tSize resource.Quantity `json:"size,omitempty" protobuf:"bytes,1,opt,name=size"`', // 17
    '', // 18
    '\tPlain string // no tag', // 19
    '\tA, B string `json:"a"`', // 20
    '\tItems map[string][]*Bar `json:"items"`', // 21
    '}', // 22
    '', // 23
    '// Mode is a mode.', // 24
    '// +enum', // 25
    'type Mode string', // 26
    '', // 27
    'type Empty struct{}', // 28
    '', // 29
    'type Other = Foo', // 30
    '',
  ].join('\n');

  const decls = readGoFile(FILE, 'k8s.io/api/core/v1/types.go');
  const byName = new Map(decls.map((d) => [d.name, d]));

  it('reads every top-level type in order, with its line and imports', () => {
    assert.deepEqual(
      decls.map((d) => [d.name, d.kind, d.line]),
      [
        ['Foo', 'struct', 13],
        ['Mode', 'named', 26],
        ['Empty', 'struct', 28],
        ['Other', 'named', 30],
      ],
    );
    assert.deepEqual(
      [...must(byName.get('Foo'), "byName.get('Foo')").imports],
      [
        ['resource', 'k8s.io/apimachinery/pkg/api/resource'],
        ['metav1', 'k8s.io/apimachinery/pkg/apis/meta/v1'],
      ],
    );
    assert.equal(must(byName.get('Foo'), "byName.get('Foo')").file, 'k8s.io/api/core/v1/types.go');
  });

  it('attaches a doc comment only when no blank line separates it from the declaration', () => {
    assert.deepEqual(must(byName.get('Foo'), "byName.get('Foo')").doc, ['// Foo is a thing.', '// +structType=atomic']);
    assert.deepEqual(must(byName.get('Mode'), "byName.get('Mode')").doc, ['// Mode is a mode.', '// +enum']);
    assert.deepEqual(must(byName.get('Empty'), "byName.get('Empty')").doc, []);
    const fields = must(must(byName.get('Foo'), "byName.get('Foo')").fields, "byName.get('Foo')!.fields");
    assert.deepEqual(
      must(
        fields.find((f) => f.name === 'Plain'),
        "fields.find((f) => f.name === 'Plain')",
      ).doc,
      [],
      'the blank line above Plain did not cut the doc',
    );
  });

  it('reads named and alias types', () => {
    const mode = must(byName.get('Mode'), "byName.get('Mode')");
    assert.equal(mode.alias, false);
    assert.equal(mode.underlying, 'string');
    const other = must(byName.get('Other'), "byName.get('Other')");
    assert.equal(other.alias, true);
    assert.equal(other.underlying, 'Foo');
    assert.deepEqual(must(byName.get('Empty'), "byName.get('Empty')").fields, []);
  });

  it('reads embedded inline fields, tagged and untagged fields, and records unreadable lines', () => {
    assert.deepEqual(must(byName.get('Foo'), "byName.get('Foo')").fields, [
      { name: undefined, type: 'metav1.TypeMeta', tags: { json: ',inline' }, doc: [], line: 14 },
      {
        name: 'Size',
        type: 'resource.Quantity',
        tags: { json: 'size,omitempty', protobuf: 'bytes,1,opt,name=size' },
        doc: ['// Size of it.', '// +optional'],
        line: 17,
      },
      { name: 'Plain', type: 'string', tags: {}, doc: [], line: 19 },
      { unreadable: 'A, B string `json:"a"`', line: 20 },
      { name: 'Items', type: 'map[string][]*Bar', tags: { json: 'items' }, doc: [], line: 21 },
    ]);
  });
});

// A GOPATH-style tree with a tiny k8s.io/api/core/v1 and meta/v1 for the package reader and overlay.
const CORE_V1 = `package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Foo is a thing.
//
// TODO: say more.
// It has parts.
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Foo struct {
	metav1.TypeMeta \`json:",inline"\`

	// Name of the foo.
	// +default="x"
	// +kubebuilder:validation:MaxLength=5
	Name string \`json:"name"\`

	// Items, keyed by a name nobody has to set.
	// +listType=map
	// +listMapKey=name
	// +optional
	Items []Bar \`json:"items,omitempty"\`

	// Ports, keyed by port.
	// +listType=map
	// +listMapKey=port
	Ports []Port \`json:"ports,omitempty"\`

	// Size is a quantity.
	Size resource.Quantity \`json:"size,omitempty"\`

	// Mode says how.
	// +listType=atomic
	Mode string \`json:"mode,omitempty"\`

	// Level must be set.
	// +kubebuilder:validation:Required
	Level *int32 \`json:"level,omitempty"\`

	// Owner must be set too.
	// +required
	Owner string \`json:"owner,omitempty"\`

	// +default=ref(DefaultPolicy)
	Policy Policy \`json:"policy,omitempty"\`

	// Only in Go.
	GoOnly string \`json:"goOnly,omitempty"\`

	// Extras of a struct no model stands for.
	Extras []Extra \`json:"extras,omitempty"\`

	// Caps, each a Capability.
	Caps []Capability \`json:"caps,omitempty"\`
}

// Extra is newer than the models.
type Extra struct {
	// Count of it.
	Count int64 \`json:"count"\`
	// Raw bytes.
	Raw []byte \`json:"raw,omitempty"\`
}

// Capability is one capability.
type Capability string

// Policy says what to do.
// +enum
// +kubebuilder:validation:Enum=Always;Never
type Policy string

// Bar is an item.
type Bar struct {
	// Name of the bar.
	// +kubebuilder:validation:Pattern=\`^a=b$\`
	// +custom:marker=1
	Name string \`json:"name,omitempty"\`
}

// Port is a port.
type Port struct {
	// Port number.
	// +kubebuilder:validation:Minimum=1
	Port int32 \`json:"port"\`
}

// Wrapper wraps an atomic struct.
type Wrapper struct {
	Inner \`json:",inline"\`

	// Extra field.
	Extra string \`json:"extra,omitempty"\`
}

// Inner is replaced as a whole.
// +structType=atomic
type Inner struct {
	// Value of it.
	Value string \`json:"value,omitempty"\`
}
`;

const META_V1 = `package v1

// TypeMeta describes an individual object.
type TypeMeta struct {
	// Kind is a string value.
	// +optional
	Kind string \`json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"\`

	// APIVersion defines the versioned schema.
	// +optional
	APIVersion string \`json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"\`
}
`;

describe('k8s go types and overlay on a GOPATH-style tree', () => {
  const work = mkdtempSync(join(tmpdir(), 'kf-go-types-'));
  after(() => rmSync(work, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(resolve(join(work, path), '..'), { recursive: true });
    writeFileSync(join(work, path), text);
  };
  write('k8s.io/api/core/v1/types.go', CORE_V1);
  write('k8s.io/api/core/v1/types_test.go', 'package v1\n\ntype TestOnly struct {\n}\n');
  write('k8s.io/api/core/v1/zz_generated.deepcopy.go', 'package v1\n\ntype Generated struct {\n}\n');
  write('k8s.io/api/apps/v1beta2/types.go', 'package v1beta2\n');
  write('k8s.io/api/apps/internal/doc.go', 'package internal\n');
  mkdirSync(join(work, 'k8s.io/api/testdata/v1'), { recursive: true });
  write('k8s.io/apimachinery/pkg/apis/meta/v1/types.go', META_V1);
  const CORE = 'k8s.io/api/core/v1';
  const META = 'k8s.io/apimachinery/pkg/apis/meta/v1';

  it('apiPackages lists group/version packages only, sorted', () => {
    assert.deepEqual(types.apiPackages(work), ['k8s.io/api/apps/v1beta2', 'k8s.io/api/core/v1']);
  });

  it('readGoPackages reads each package, leaving out tests and generated files', () => {
    const pkgs = types.readGoPackages(work, [CORE, META]);
    assert.deepEqual([...pkgs.keys()], [CORE, META]);
    assert.deepEqual(
      [...must(pkgs.get(CORE), 'pkgs.get(CORE)').keys()],
      ['Foo', 'Extra', 'Capability', 'Policy', 'Bar', 'Port', 'Wrapper', 'Inner'],
    );
    assert.equal(must(must(pkgs.get(CORE), 'pkgs.get(CORE)').get('Bar'), "pkgs.get(CORE)!.get('Bar')").pkg, CORE);
    assert.equal(
      must(must(pkgs.get(CORE), 'pkgs.get(CORE)').get('Bar'), "pkgs.get(CORE)!.get('Bar')").file,
      `${CORE}/types.go`,
    );
    assert.deepEqual([...must(pkgs.get(META), 'pkgs.get(META)').keys()], ['TypeMeta']);
  });

  it('readGoPackages and apiPackages also read module folders (module path -> folder, as the module cache has them)', () => {
    const modules = {
      'k8s.io/api': join(work, 'k8s.io/api'),
      'k8s.io/apimachinery': join(work, 'k8s.io/apimachinery'),
    };
    assert.equal(types.packageDir(modules, CORE), join(work, CORE));
    assert.equal(types.packageDir(modules, 'k8s.io/api'), join(work, 'k8s.io/api'));
    assert.throws(
      () => types.packageDir(modules, 'k8s.io/apiserver/pkg/x'),
      /no module holds package k8s\.io\/apiserver\/pkg\/x/,
    );
    assert.throws(() => types.packageDir(modules, 'k8s.io/apix/core'), /no module holds package/);
    assert.deepEqual(types.apiPackages(modules), ['k8s.io/api/apps/v1beta2', 'k8s.io/api/core/v1']);
    assert.deepEqual(types.readGoPackages(modules, [CORE, META]), types.readGoPackages(work, [CORE, META]));
  });

  it('overlayGo rebuilds each model that is a Go struct from it, adds models for newer structs, and reports every disagreement', () => {
    const goPkgs = types.readGoPackages(work, [CORE, META]);
    const models: Record<string, Model> = {
      V1Foo: {
        description: 'old',
        properties: {
          apiVersion: { type: 'string', description: 'cn' },
          kind: { type: 'string' },
          name: { type: 'string', description: 'cn name' },
          items: { type: 'array', items: { $model: 'V1Bar' } },
          ports: { type: 'array', items: { $model: 'V1Port' }, 'x-kubernetes-list-type': 'atomic' },
          size: { type: 'string' },
          mode: { type: 'string' },
          level: { type: 'integer', format: 'int32' },
          owner: { type: 'string' },
          policy: { type: 'string', description: 'cn policy' },
          newer: { type: 'boolean' },
        },
        required: ['newer'],
      },
      V1Bar: { description: 'old bar', properties: { name: { type: 'string' } } },
      V1Port: { properties: { port: { type: 'integer', format: 'int32' } }, required: ['port'] },
      V1Wrapper: { properties: { value: { type: 'string' }, extra: { type: 'string' } } },
      V1Nope: { description: 'kept', properties: { x: { type: 'string' } } },
    };
    const report = overlay.overlayGo(models, ['V1Foo', 'V1Bar', 'V1Port', 'V1Wrapper', 'V1Nope'], goPkgs);

    assert.deepEqual(models, {
      V1Foo: {
        description: 'Foo is a thing.\n\nIt has parts.',
        properties: {
          apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema.' },
          kind: { type: 'string', description: 'Kind is a string value.' },
          // No omitempty: required, as controller-gen says.
          name: { type: 'string', description: 'Name of the foo.', default: 'x', maxLength: 5 },
          // The list-map on `items` is dropped: V1Bar.name is neither required nor defaulted.
          items: {
            type: 'array',
            items: { $model: 'V1Bar' },
            description: 'Items, keyed by a name nobody has to set.',
          },
          ports: {
            type: 'array',
            items: { $model: 'V1Port' },
            description: 'Ports, keyed by port.',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['port'],
          },
          // The Go type's shape wins: a Quantity, not client-node's string.
          size: { $special: 'Quantity', description: 'Size is a quantity.' },
          mode: { type: 'string', description: 'Mode says how.' },
          level: { type: 'integer', format: 'int32', description: 'Level must be set.' },
          owner: { type: 'string', description: 'Owner must be set too.' },
          // No doc of its own: the named type's doc and markers apply; the ref() default does not.
          policy: { type: 'string', description: 'Policy says what to do.', enum: ['Always', 'Never'] },
          // Fields client-node lacks are added; `newer`, which the Go struct lacks, is left out.
          goOnly: { type: 'string', description: 'Only in Go.' },
          extras: {
            type: 'array',
            items: { $model: 'k8s.io/api/core/v1.Extra' },
            description: 'Extras of a struct no model stands for.',
          },
          // The items of a named type carry its description.
          caps: {
            type: 'array',
            items: { type: 'string', description: 'Capability is one capability.' },
            description: 'Caps, each a Capability.',
          },
        },
        required: ['level', 'name', 'owner'],
      },
      V1Bar: {
        description: 'Bar is an item.',
        properties: { name: { type: 'string', description: 'Name of the bar.', pattern: '^a=b$' } },
      },
      V1Port: {
        description: 'Port is a port.',
        properties: { port: { type: 'integer', format: 'int32', description: 'Port number.', minimum: 1 } },
        required: ['port'],
      },
      V1Wrapper: {
        description: 'Wrapper wraps an atomic struct.',
        'x-kubernetes-map-type': 'atomic',
        properties: {
          value: { type: 'string', description: 'Value of it.' },
          extra: { type: 'string', description: 'Extra field.' },
        },
      },
      V1Nope: { description: 'kept', properties: { x: { type: 'string' } } },
      'k8s.io/api/core/v1.Extra': {
        description: 'Extra is newer than the models.',
        properties: {
          count: { type: 'integer', format: 'int64', description: 'Count of it.' },
          raw: { type: 'string', format: 'byte', description: 'Raw bytes.' },
        },
        required: ['count'],
      },
    });

    assert.deepEqual(report, {
      matched: 4,
      unmatched: ['V1Nope (no Go type of that group/version/kind)'],
      fieldsBoth: 10 + 1 + 1 + 2,
      droppedFields: ['V1Foo.newer'],
      goOnlyFields: ['V1Foo.goOnly', 'V1Foo.extras', 'V1Foo.caps'],
      goOnlyModels: ['k8s.io/api/core/v1.Extra'],
      shapeMismatches: ['V1Foo.size: Go Quantity, client-node string'],
      requiredChanged: ['V1Foo: client-node [newer], Go [level,name,owner]'],
      notApplicable: ['V1Foo.mode: +listType=atomic (the field is string)'],
      applied: new Map<string, number>([
        ['default', 1],
        ['maxLength', 1],
        ['x-kubernetes-list-type', 2],
        ['x-kubernetes-list-map-keys', 2],
        ['enum', 1],
        ['pattern', 1],
        ['minimum', 1],
        ['x-kubernetes-map-type', 1],
      ]),
      ignoredDefaults: ['V1Foo.policy: +default=ref(DefaultPolicy)'],
      unknownMarkers: new Map([['custom:marker', ['V1Bar.name']]]),
      droppedListMaps: [
        'V1Foo.items: x-kubernetes-list-map-keys ["name"]: V1Bar.name is neither required nor defaulted',
      ],
    });
  });

  it('listMapProblem accepts a defaulted key and names each other problem', () => {
    const models: Record<string, Model> = {
      V1Item: {
        properties: {
          name: { type: 'string', default: 'x' },
          id: { type: 'string' },
          sub: { $model: 'V1Item' },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['id'],
      },
    };
    const list = (keys: unknown, items: Node = { $model: 'V1Item' }): Node => ({
      type: 'array',
      items,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': keys,
    });
    assert.equal(overlay.listMapProblem(models, list(['name'])), undefined);
    assert.equal(overlay.listMapProblem(models, list(['id', 'name'])), undefined);
    assert.equal(overlay.listMapProblem(models, list([])), 'no keys');
    assert.equal(overlay.listMapProblem(models, list(['id'], { type: 'string' })), 'the items are not objects');
    assert.equal(overlay.listMapProblem(models, list(['missing'])), 'V1Item has no property missing');
    assert.equal(overlay.listMapProblem(models, list(['sub'])), 'V1Item.sub is not a scalar');
    assert.equal(overlay.listMapProblem(models, list(['tags'])), 'V1Item.tags is not a scalar');
  });

  it('overlayGo refuses a struct with fields it cannot read', () => {
    const goPkgs: GoPackages = new Map([
      [
        CORE,
        new Map(
          types
            .readGoFile(
              'package v1\n\n// Two names.\ntype Two struct {\n\tA, B string `json:"a"`\n}\n',
              `${CORE}/two.go`,
            )
            .map((d) => [d.name, { ...d, pkg: CORE }]),
        ),
      ],
    ]);
    const models: Record<string, Model> = { V1Two: { properties: { a: { type: 'string' } } } };
    assert.throws(
      () => overlay.overlayGo(models, ['V1Two'], goPkgs),
      /V1Two \(k8s\.io\/api\/core\/v1\.Two\): fields not understood: k8s\.io\/api\/core\/v1\.Two: A, B string `json:"a"`/,
    );
  });
});

describe('k8s go types and overlay: the +k8s: markers controller-gen reads, constants, omitzero', () => {
  const CORE = 'k8s.io/api/core/v1';

  it('readGoConstants reads typed string constants of const blocks and lines, not untyped or converted ones', () => {
    const text = [
      'package v1',
      '',
      'const (',
      '\t// Linux is an OS.',
      '\tLinux OSName = "linux" // trailing comment',
      '\tWindows OSName = `windows`',
      '\tUntyped = "x"',
      '\tConverted = OSName("converted")',
      '\tCount int32 = 3',
      '\t\tNested OSName = "no"',
      ')',
      '',
      'const Plan9 OSName = "plan\\"9"',
      'const Other = 1',
    ].join('\n');
    assert.deepEqual(types.readGoConstants(text), [
      { name: 'Linux', type: 'OSName', value: 'linux' },
      { name: 'Windows', type: 'OSName', value: 'windows' },
      { name: 'Plan9', type: 'OSName', value: 'plan"9' },
    ]);
  });

  it('overlayGo: +k8s:required (and its bounds, controller-gen v0.23) / +k8s:optional, omitzero, +k8s:listType / +k8s:listMapKey (keys once), +k8s:immutable, +k8s:enum, +k8s:maxItems / minimum / maximum', () => {
    const work = mkdtempSync(join(tmpdir(), 'kf-go-k8s-'));
    try {
      mkdirSync(join(work, CORE), { recursive: true });
      writeFileSync(
        join(work, CORE, 'types.go'),
        `package v1

// Thing has the markers Kubernetes' declarative validation reads.
type Thing struct {
	// +k8s:required
	Name string \`json:"name,omitempty"\`

	// +k8s:optional
	Note string \`json:"note"\`

	Zero int64 \`json:"zero,omitzero"\`

	// +listType=map
	// +listMapKey=key
	// +k8s:listType=map
	// +k8s:listMapKey=key
	Items []Item \`json:"items,omitempty"\`

	// +listType=atomic
	// +k8s:listMapKey=key
	Atomic []Item \`json:"atomic,omitempty"\`

	// +k8s:optional
	// +k8s:immutable
	Mode Mode \`json:"mode,omitempty"\`

	// +k8s:required
	// +k8s:immutable
	Fixed string \`json:"fixed"\`

	// +k8s:enum
	Bad string \`json:"bad,omitempty"\`

	Empty Empty \`json:"empty,omitempty"\`

	// +k8s:maxItems=3 # at most three
	Few []string \`json:"few,omitempty"\`

	// +k8s:minimum=1
	// +k8s:maximum=10
	Count int32 \`json:"count,omitempty"\`

	// +k8s:required
	Tags []string \`json:"tags"\`

	// +k8s:required
	// +kubebuilder:validation:MinItems=2
	Pair []string \`json:"pair"\`

	// +k8s:required
	Ref Item \`json:"ref"\`

	// +k8s:required
	Size int32 \`json:"size"\`
}

// Item is keyed.
type Item struct {
	Key string \`json:"key"\`
}

// Mode is a mode.
// +k8s:enum
type Mode string

const (
	ModeSlow Mode = "Slow"
	ModeFast Mode = "Fast"
	ModeAll  Mode = "All"
)

// Empty says +k8s:enum without constants of its own.
// +k8s:enum
type Empty string

const EmptyOne = Empty("one")
`,
      );
      const goPkgs = types.readGoPackages(work, [CORE]);
      const str = { type: 'string' };
      const models: Record<string, Model> = {
        V1Thing: {
          properties: {
            name: str,
            note: str,
            zero: { type: 'integer' },
            items: { type: 'array', items: { $model: 'V1Item' } },
            atomic: { type: 'array', items: { $model: 'V1Item' } },
            mode: str,
            fixed: str,
            bad: str,
            empty: str,
            few: { type: 'array', items: str },
            count: { type: 'integer' },
            tags: { type: 'array', items: str },
            pair: { type: 'array', items: str },
            ref: { $model: 'V1Item' },
            size: { type: 'integer' },
          },
        },
        V1Item: { properties: { key: str }, required: ['key'] },
      };
      const report = overlay.overlayGo(models, ['V1Thing', 'V1Item'], goPkgs);
      const immutable = { message: 'field is immutable', rule: 'self == oldSelf' };
      assert.deepEqual(models.V1Thing, {
        description: "Thing has the markers Kubernetes' declarative validation reads.",
        properties: {
          // +k8s:required's bound (controller-gen v0.23): minLength on a string.
          name: { type: 'string', minLength: 1 },
          note: { type: 'string' },
          zero: { type: 'integer', format: 'int64' },
          items: {
            type: 'array',
            items: { $model: 'V1Item' },
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['key'],
          },
          // controller-gen refuses list-map keys on an atomic list: none written.
          atomic: { type: 'array', items: { $model: 'V1Item' }, 'x-kubernetes-list-type': 'atomic' },
          // The enum of Mode's constants, sorted; and the field's immutability rule.
          mode: {
            type: 'string',
            description: 'Mode is a mode.',
            enum: ['All', 'Fast', 'Slow'],
            'x-kubernetes-validations': [immutable],
          },
          fixed: { type: 'string', 'x-kubernetes-validations': [immutable], minLength: 1 },
          bad: { type: 'string' },
          empty: { type: 'string', description: 'Empty says +k8s:enum without constants of its own.' },
          // The declarative validation bounds, a trailing # comment dropped.
          few: { type: 'array', items: str, maxItems: 3 },
          count: { type: 'integer', format: 'int32', minimum: 1, maximum: 10 },
          // minItems on a list, an explicit bound kept, minProperties on a struct, nothing on a number.
          tags: { type: 'array', items: str, minItems: 1 },
          pair: { type: 'array', items: str, minItems: 2 },
          ref: { $model: 'V1Item', minProperties: 1 },
          size: { type: 'integer', format: 'int32' },
        },
        required: ['fixed', 'name', 'pair', 'ref', 'size', 'tags'],
        // The optional immutable field may not be removed once set either (the required one cannot be).
        'x-kubernetes-validations': [
          { message: 'field mode is immutable once set', rule: '!has(oldSelf.mode) || has(self.mode)' },
        ],
      });
      assert.deepEqual(report.notApplicable, [
        'V1Thing.atomic: +listMapKey=key (the list is atomic)',
        'V1Thing.bad: +k8s:enum (on a field)',
        'V1Thing.empty: +k8s:enum (no constants of the type)',
      ]);
      assert.equal(
        report.applied.get('x-kubernetes-list-type'),
        2,
        'items and atomic, each once although items says it twice',
      );
      assert.equal(report.applied.get('x-kubernetes-list-map-keys'), 1);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
