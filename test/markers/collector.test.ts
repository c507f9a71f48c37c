// The collector reads marker arguments statically: literals, arrays, objects, RegExp literals,
// const references and enum members; it recognises decorators by their import from
// 'kubeforge/markers' (named, renamed, namespace) without the module being installed.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseJsDocText } from '../../src/collector/collector.js';
import { analyzeProject } from '../manifests/analyze-helper.js';
import { markerUses } from '../../src/analysis/analyze.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';
import { must } from '../helpers/must.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-collector-'));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const GV = `import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'c.example.com', version: 'v1' });\n`;

async function specSchema(types: string): Promise<Record<string, JSONSchemaProps>> {
  const dir = project({ 'src/api/v1/groupversion.ts': GV, 'src/api/v1/types.ts': types });
  const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
  assert.deepEqual(r.diagnostics, []);
  const crd = r.crds[0] as { spec: { versions: { schema: { openAPIV3Schema: JSONSchemaProps } }[] } };
  return must(crd.spec.versions[0].schema.openAPIV3Schema.properties?.spec.properties, 'the spec schema properties');
}

describe('collector: argument evaluation', () => {
  it('reads literals, negative numbers, const references, `as const` objects, enum members and RegExp literals', async () => {
    const props = await specSchema(`
import { Default, Enum, Maximum, Minimum, Pattern, Root, type float64 } from 'kubeforge/markers';
const LOW = -5;
const LIMITS = { high: 50 } as const;
const RE = /^[a-z]+$/;
enum Mode { Fast = 'fast', Slow = 'slow' }
export class Spec {
  @Minimum(LOW) @Maximum(LIMITS.high) n?: float64;
  @Pattern(RE) s?: string;
  @Enum(Mode.Fast, 'other', 3, true, null) e?: string;
  @Default({ list: [1, 'two', { three: 3 }], flag: false }) o?: { list?: string[]; flag?: boolean };
}
@Root() export class K { metadata?: unknown; spec?: Spec; }
`);
    assert.equal(props.n.minimum, -5);
    assert.equal(props.n.maximum, 50);
    assert.equal(props.s.pattern, '^[a-z]+$');
    assert.deepEqual(props.e.enum, ['fast', 'other', 3, true, null]);
    assert.deepEqual(props.o.default, { flag: false, list: [1, 'two', { three: 3 }] });
  });

  it('recognises renamed and namespace imports, and ignores same-named decorators from elsewhere', async () => {
    const props = await specSchema(
      `
import * as kf from 'kubeforge/markers';
import { Maximum as Max, Root, type float64 } from 'kubeforge/markers';
function MinLength(_n: number) { return (_v: unknown, _c: unknown) => {}; }
export class Spec {
  @Max(3) a?: float64;
  @kf.Minimum(1) @kf.Items.MaxLength(4) b?: string[] | number;
  @MinLength(99) c?: string;
}
@Root() export class K { metadata?: unknown; spec?: Spec; }
`
        .replace('b?: string[] | number;', 'b?: string[];')
        .replace('@kf.Minimum(1) ', ''),
    );
    assert.equal(props.a.maximum, 3);
    assert.equal(props.b.items?.maxLength, 4);
    assert.equal(props.c.minLength, undefined, 'a local decorator named MinLength is not a kubeforge marker');
  });
});

describe('collector: the marker table is the argument contract', () => {
  it('rejects, at the argument, what the table does not declare: single strings for lists, unknown arguments', async () => {
    const dir = project({
      'src/controller/job.ts': `
import { Rbac, Webhook } from 'kubeforge/markers';
@Rbac({ groups: ['batch'], resources: ['jobs'], verbs: 'get' })
@Webhook({ path: '/v', mutating: false, failurePolicy: 'fail', sideEffects: 'None', groups: ['batch'], resources: ['jobs'], verbs: ['create'], versions: ['v1'], name: 'vjob.example.com', admissionReviewVersions: ['v1'], webhookVersions: ['v1'] })
export class JobReconciler {}
`,
    });
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.deepEqual(
      r.diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`),
      [
        "3:49 KF2007 @Rbac on class JobReconciler: argument 'verbs': expected an array of strings, found a string",
        "4:221 KF2005 @Webhook on class JobReconciler: unknown argument 'webhookVersions'",
      ],
    );
    // The generators never see a use the analysis rejected.
    assert.deepEqual([markerUses(r.markers, 'Rbac').length, markerUses(r.markers, 'Webhook').length], [0, 0]);
  });

  it("reports a misspelt enum value as the table's values", async () => {
    const dir = project({
      'src/controller/job.ts': `
import { Webhook } from 'kubeforge/markers';
@Webhook({ path: '/v', mutating: false, failurePolicy: 'fail', sideEffects: 'None', groups: ['batch'], resources: ['jobs'], verbs: ['create'], versions: ['v1'], name: 'vjob.example.com', admissionReviewVersions: ['v1'] })
export class JobWebhook {}
`,
    });
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.deepEqual(
      r.diagnostics.map((d) => `${d.code} ${d.message}`),
      ["KF2007 @Webhook on class JobWebhook: argument 'failurePolicy': 'fail' is not one of 'Fail', 'Ignore'"],
    );
  });
});

describe('collector: JSDoc', () => {
  it('splits description and tags; keeps line breaks and one blank line per paragraph', () => {
    const parsed = parseJsDocText(`/**
     * First line.
     * Second line.
     *
     *
     * New paragraph.
     * @minLength 3
     * @xValidation {"rule": "self.size() > 1",
     *   "message": "m"}
     */`);
    assert.equal(parsed.description, 'First line.\nSecond line.\n\nNew paragraph.');
    assert.deepEqual(
      parsed.tags.map((t) => [t.name, t.text, t.line]),
      [
        ['minLength', '3', 6],
        ['xValidation', '{"rule": "self.size() > 1",\n"message": "m"}', 7],
      ],
    );
  });

  it('keeps indentation, drops TODO lines and everything after ---, as controller-gen does with Go comments', () => {
    const parsed = parseJsDocText(`/**
     * Modes:
     *   - fast
     *   - slow
     * TODO: remove slow
     *
     * \`\`\`
     * TODO inside a code block stays
     * ---
     * \`\`\`
     * ---
     * Internal notes.
     */`);
    assert.equal(parsed.description, 'Modes:\n  - fast\n  - slow\n\n```\nTODO inside a code block stays\n---\n```');
  });

  it('reads a one-line comment, and tags with columns', () => {
    const parsed = parseJsDocText('/** @pattern ^[a-z]+$ */');
    assert.equal(parsed.description, undefined);
    assert.deepEqual(parsed.tags, [{ name: 'pattern', text: '^[a-z]+$', line: 0, column: 4 }]);
  });

  it('applies JSDoc markers on interface members and type aliases, and strips them from descriptions', async () => {
    const props = await specSchema(`
import { Root } from 'kubeforge/markers';
/**
 * A name.
 * @maxLength 10
 * @enum ["a", "b"]
 */
type Name = string;
export interface Spec {
  /**
   * The items.
   * @minItems 1
   * @items.pattern ^x
   * @listType set
   */
  items?: string[];
  /** @default {"k": "v"} */
  map?: Record<string, string>;
  name?: Name;
}
@Root() export class K { metadata?: unknown; spec?: Spec; }
`);
    assert.deepEqual(props.items, {
      description: 'The items.',
      items: { pattern: '^x', type: 'string' },
      minItems: 1,
      type: 'array',
      'x-kubernetes-list-type': 'set',
    });
    assert.deepEqual(props.map.default, { k: 'v' });
    assert.deepEqual(props.name, { description: 'A name.', enum: ['a', 'b'], maxLength: 10, type: 'string' });
  });
});
