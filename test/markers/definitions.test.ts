// The definition table and kubeforge/markers cannot drift: every entry has its decorator (or
// function) export, every export is in the table, type aliases exist, the module imports nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ts } from 'ts-morph';
import {
  getMarkerDefinition,
  jsDocTagName,
  MARKER_DEFINITIONS,
  MARKER_TYPE_ALIASES,
  markerForJsDocTag,
} from '../../src/markers/definitions.js';
import * as markers from '../../src/markers/index.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const indexSource = readFileSync(join(root, 'src/markers/index.ts'), 'utf8');
const sf = ts.createSourceFile('index.ts', indexSource, ts.ScriptTarget.ES2022, true);

const exportedValues = Object.keys(markers).sort();
const exportedTypes = sf.statements
  .filter(
    (s): s is ts.TypeAliasDeclaration =>
      ts.isTypeAliasDeclaration(s) && !!s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword),
  )
  .map((s) => s.name.text);

describe('marker definition table', () => {
  it('names are unique', () => {
    const names = MARKER_DEFINITIONS.map((d) => d.name);
    assert.equal(new Set(names).size, names.length);
  });

  it('every table entry has an export of that name (Items.X as a member of Items)', () => {
    for (const d of MARKER_DEFINITIONS) {
      if (d.name.startsWith('Items.')) {
        const member = d.name.slice(6) as keyof typeof markers.Items;
        assert.equal(typeof markers.Items[member], 'function', `Items.${member} missing`);
      } else
        assert.equal(
          typeof (markers as Record<string, unknown>)[d.name],
          'function',
          `${d.name} is not exported by kubeforge/markers`,
        );
    }
  });

  it('every value export of kubeforge/markers is in the table', () => {
    for (const name of exportedValues) {
      if (name === 'Items') {
        for (const member of Object.keys(markers.Items))
          assert.ok(getMarkerDefinition(`Items.${member}`), `Items.${member} has no definition`);
        continue;
      }
      assert.ok(getMarkerDefinition(name), `export ${name} has no definition in the table`);
    }
  });

  it('the argument count of each decorator matches its argument shape', () => {
    for (const d of MARKER_DEFINITIONS) {
      const fn = (
        d.name.startsWith('Items.')
          ? (markers.Items as Record<string, unknown>)[d.name.slice(6)]
          : (markers as Record<string, unknown>)[d.name]
      ) as (...a: unknown[]) => unknown;
      const expected = d.args.shape === 'none' || d.args.shape === 'variadic' ? 0 : 1;
      assert.equal(fn.length, expected, `${d.name}: declared ${fn.length} parameters, table says ${d.args.shape}`);
    }
  });

  it('decorators are no-ops that return a function', () => {
    assert.equal(typeof markers.Maximum(3), 'function');
    assert.equal(markers.Maximum(3)(undefined, {} as ClassFieldDecoratorContext), undefined);
    assert.deepEqual(markers.defineGroupVersion({ group: 'g.example.com', version: 'v1' }), {
      group: 'g.example.com',
      version: 'v1',
    });
    assert.ok(Object.isFrozen(markers.defineGroupVersion({ group: 'g.example.com', version: 'v1' })));
  });

  it('exports the type aliases docs/markers.md lists', () => {
    for (const alias of MARKER_TYPE_ALIASES) assert.ok(exportedTypes.includes(alias), `type ${alias} is not exported`);
    assert.deepEqual([...MARKER_TYPE_ALIASES].sort(), [
      'Duration',
      'IntOrString',
      'MicroTime',
      'Quantity',
      'Time',
      'int',
      'int32',
      'int64',
    ]);
  });

  it('imports nothing at run time: only the types of its own definition table', () => {
    const imports = sf.statements.filter(
      (s) =>
        ts.isImportDeclaration(s) ||
        ts.isImportEqualsDeclaration(s) ||
        (ts.isExportDeclaration(s) && s.moduleSpecifier),
    );
    assert.deepEqual(
      imports.map((s) => s.getText()),
      ["import type { DecoratorArg, MarkerOptions } from './definitions.js';"],
    );
    assert.doesNotMatch(indexSource, /\brequire\(|import\(/);
  });

  it('JSDoc tag names are the lowerCamelCase decorator names', () => {
    assert.equal(jsDocTagName('MinLength'), 'minLength');
    assert.equal(jsDocTagName('Items.MaxLength'), 'items.maxLength');
    assert.equal(markerForJsDocTag('xValidation')?.name, 'XValidation');
    assert.equal(markerForJsDocTag('items.minLength')?.name, 'Items.MinLength');
    assert.equal(markerForJsDocTag('param'), undefined);
    // kind-level, RBAC and webhook markers have no JSDoc form
    assert.equal(markerForJsDocTag('rbac'), undefined);
    assert.equal(markerForJsDocTag('resource'), undefined);
  });

  it('covers every marker of the contract (docs/markers.md)', () => {
    const contract = [
      'Root',
      'Resource',
      'SubresourceStatus',
      'SubresourceScale',
      'PrintColumn',
      'StorageVersion',
      'UnservedVersion',
      'DeprecatedVersion',
      'SkipVersion',
      'Metadata',
      'SelectableField',
      'ExternalDocs',
      'Maximum',
      'Minimum',
      'ExclusiveMaximum',
      'ExclusiveMinimum',
      'MultipleOf',
      'MinLength',
      'MaxLength',
      'Pattern',
      'MinItems',
      'MaxItems',
      'UniqueItems',
      'MinProperties',
      'MaxProperties',
      'Enum',
      'Format',
      'Type',
      'XValidation',
      'PreserveUnknownFields',
      'EmbeddedResource',
      'IntOrString',
      'Schemaless',
      'Title',
      'Default',
      'Example',
      'Nullable',
      'Optional',
      'Required',
      'ListType',
      'ListMapKey',
      'MapType',
      'StructType',
      'Immutable',
      'AtMostOneOf',
      'ExactlyOneOf',
      'AtLeastOneOf',
      'Rbac',
      'Webhook',
      'WebhookConfiguration',
      'defineGroupVersion',
      'Items.MaxLength',
    ];
    for (const name of contract) assert.ok(getMarkerDefinition(name), `${name} missing from the table`);
  });
});
