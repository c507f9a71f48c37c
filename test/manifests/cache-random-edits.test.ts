// The incremental cache of `manifests` against the cold run, on edits no one chose by hand: for
// every source file of a fixture project, each kind of edit once in a seeded pseudo-random order
// and place (a string literal, a number, a new field, a new export, then a revert), each followed by a cached run in the project and a `--no-cache` run of a
// copy. The two must agree: both fail, or both succeed with byte-identical outputs. The fixture
// has the indirections a key can miss: a groupversion.ts that takes its group from a const in
// another folder, a barrel, a marker argument that is a const of another file, a controller and a
// webhook in folders of their own.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runManifests } from '../../src/manifests/pipeline.js';
import { textsUnder } from '../helpers/tree.js';
import { must } from '../helpers/must.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function put(dir: string, path: string, text: string): void {
  const abs = join(dir, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, text);
  // Dated a minute back: a file modified just before a run counts as modified during it.
  const past = new Date(Date.now() - 60_000);
  utimesSync(abs, past, past);
}

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
    include: ['src/**/*.ts'],
  }),
  'package.json': '{"name":"demo","private":true,"type":"module"}\n',
  'src/api/group.ts': "export const GROUP = 'demo.example.com';\n",
  'src/api/names.ts': 'export const MAX_SIZE = 10;\n',
  'src/api/v1/groupversion.ts':
    "import { defineGroupVersion } from 'kubeforge/markers';\nimport { GROUP } from '../group.js';\nexport const groupVersion = defineGroupVersion({ group: GROUP, version: 'v1' });\n",
  'src/api/v1/shared.ts': `import { type int32, MaxLength, Maximum } from 'kubeforge/markers';
import { MAX_SIZE } from '../names.js';

/** Shared is used by two Kinds. */
export class Shared {
  /** A name. */
  @MaxLength(12)
  name?: string;

  /** A size. */
  @Maximum(MAX_SIZE)
  size?: int32;
}
`,
  'src/api/v1/widget_types.ts': `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Enum, Root, SubresourceStatus } from 'kubeforge/markers';
import { Shared } from './shared.js';

/** WidgetSpec is what a Widget wants. */
export class WidgetSpec {
  /** The shared part. */
  shared?: Shared;

  /** A mode. */
  @Enum('fast', 'slow')
  mode?: string;
}

/** Widget is a test Kind. */
@Root()
@SubresourceStatus()
export class Widget {
  metadata?: V1ObjectMeta;
  spec?: WidgetSpec;
  status?: { ready?: boolean };
}
`,
  'src/api/v1/gadget_types.ts': `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Root } from 'kubeforge/markers';
import type { Shared } from './index.js';

/** GadgetSpec is what a Gadget wants. */
export interface GadgetSpec {
  /** Several shared parts. */
  parts?: Shared[];

  /**
   * A label.
   * @minLength 2
   */
  label?: string;
}

/** Gadget is another test Kind. */
@Root()
export class Gadget {
  metadata?: V1ObjectMeta;
  spec?: GadgetSpec;
}
`,
  'src/api/v1/index.ts':
    "export * from './shared.js';\nexport * from './widget_types.js';\nexport * from './gadget_types.js';\nexport { groupVersion } from './groupversion.js';\n",
  'src/controller/names.ts':
    "export const RESOURCES = ['widgets', 'gadgets'];\nexport const VERBS = ['get', 'list', 'watch'];\n",
  'src/controller/widget_controller.ts': `import { Rbac } from 'kubeforge/markers';
import { RESOURCES, VERBS } from './names.js';

@Rbac({ groups: ['demo.example.com'], resources: RESOURCES, verbs: VERBS })
@Rbac({ groups: ['demo.example.com'], resources: ['widgets', 'gadgets'], verbs: ['get', 'list', 'watch'] })
@Rbac({ groups: [''], resources: ['configmaps'], verbs: ['get'] })
export class WidgetReconciler {}
`,
  'src/webhook/widget_webhook.ts': `import { Webhook } from 'kubeforge/markers';

@Webhook({ path: '/validate-demo-example-com-v1-widget', mutating: false, failurePolicy: 'Fail', sideEffects: 'None', groups: ['demo.example.com'], resources: ['widgets'], verbs: ['create', 'update'], versions: ['v1'], name: 'vwidget.kb.io', admissionReviewVersions: ['v1'] })
export class WidgetValidator {}
`,
};

/** A small deterministic generator (mulberry32): the same seed, the same edits on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** String literals outside import lines (specifiers are not edited: the edit would only break the import). */
function stringLiterals(text: string): { index: number; value: string }[] {
  const out: { index: number; value: string }[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    if (!/^\s*(import|export \*|export \{)/.test(line))
      for (const m of line.matchAll(/'([^'\n]*)'/g))
        out.push({ index: offset + must(m.index, 'm.index') + 1, value: m[1] });
    offset += line.length + 1;
  }
  return out;
}

type Edit = { what: string; apply: (text: string) => string | undefined };

const EDITS: Edit[] = [
  {
    what: 'a string literal gets a letter',
    apply: (t) => {
      const all = stringLiterals(t);
      if (!all.length) return undefined;
      const s = all[Math.floor(pick() * all.length)];
      return `${t.slice(0, s.index + s.value.length)}z${t.slice(s.index + s.value.length)}`;
    },
  },
  {
    what: 'a number changes',
    apply: (t) => {
      const all = [...t.matchAll(/\b\d+\b/g)].filter(
        (m) => !/v\d$/.test(t.slice(0, must(m.index, 'm.index') + m[0].length)),
      );
      if (!all.length) return undefined;
      const m = all[Math.floor(pick() * all.length)];
      const at = must(m.index, 'the index of the number');
      return t.slice(0, at) + String(Number(m[0]) + 1 + Math.floor(pick() * 5)) + t.slice(at + m[0].length);
    },
  },
  {
    what: 'a field is added to a class or interface',
    apply: (t) => {
      const all = [...t.matchAll(/^export (class|interface) \w+ \{\n/gm)];
      if (!all.length) return undefined;
      const m = all[Math.floor(pick() * all.length)];
      const at = must(m.index, 'm.index') + m[0].length;
      return `${t.slice(0, at)}  /** Added by the test. */\n  added${Math.floor(pick() * 1000)}?: string;\n${t.slice(at)}`;
    },
  },
  {
    what: 'an export is added',
    apply: (t) => `${t}export const extra${Math.floor(pick() * 1000)} = 'x';\n`,
  },
];

let pick = random(0x6b66);

/** Every file under config/ (path -> text). */
const outputs = (dir: string) => textsUnder(dir, 'config');

type Outcome = { ok: true; files: Record<string, string> } | { ok: false; error: string };

async function run(dir: string, noCache: boolean): Promise<Outcome> {
  try {
    await runManifests({ projectDir: dir, generatorVersion: 'test', noCache });
    return { ok: true, files: outputs(dir) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

async function cold(dir: string): Promise<Outcome> {
  const copy = mkdtempSync(join(tmpdir(), 'kf-random-cold-'));
  made.push(copy);
  cpSync(join(dir, 'src'), join(copy, 'src'), { recursive: true });
  for (const f of ['tsconfig.json', 'package.json']) cpSync(join(dir, f), join(copy, f));
  return run(copy, true);
}

describe('incremental manifests under random edits', () => {
  it('after every edit of every source file, the cached run agrees with a --no-cache run', async () => {
    pick = random(0x6b66);
    const dir = mkdtempSync(join(tmpdir(), 'kf-random-'));
    made.push(dir);
    for (const [p, t] of Object.entries(FILES)) put(dir, p, t);
    const first = await run(dir, false);
    assert.ok(first.ok, `the fixture generates: ${first.ok ? '' : first.error}`);
    const sources = Object.keys(FILES).filter((p) => p.endsWith('.ts'));
    let compared = 0;
    let failedAlike = 0;
    for (const path of sources) {
      const original = readFileSync(join(dir, path), 'utf8');
      const steps: string[] = [];
      // Every kind of edit once per file, at random places, in a random order but for the new
      // export last (its literal would otherwise be a candidate for the string edit).
      const order = [
        ...EDITS.slice(0, -1)
          .map((e) => ({ e, k: pick() }))
          .sort((a, b) => a.k - b.k),
        { e: must(EDITS.at(-1), 'EDITS.at(-1)'), k: 1 },
      ];
      for (const { e: edit } of order) {
        const before = readFileSync(join(dir, path), 'utf8');
        const after = edit.apply(before);
        if (after === undefined || after === before) continue;
        steps.push(edit.what);
        put(dir, path, after);
        const cached = await run(dir, false);
        const expected = await cold(dir);
        const where = `${path} after: ${steps.join(', ')}`;
        assert.equal(
          cached.ok,
          expected.ok,
          `${where}: cached ${cached.ok ? 'succeeded' : `failed (${(cached as { error: string }).error})`}, cold ${expected.ok ? 'succeeded' : `failed (${(expected as { error: string }).error})`}`,
        );
        if (cached.ok && expected.ok) {
          assert.deepEqual(cached.files, expected.files, `${where}: the cached outputs differ from a cold run's`);
          compared++;
        } else failedAlike++;
      }
      // Back to the original text: the cache must not answer from the record of an edited state.
      put(dir, path, original);
      const back = await run(dir, false);
      const expected = await cold(dir);
      assert.ok(back.ok && expected.ok, `${path} restored: both runs succeed`);
      assert.deepEqual(back.files, expected.files, `${path} restored: the cached outputs differ from a cold run's`);
      compared++;
    }
    // The edits did reach the outputs: a test of agreement on unchanged outputs would prove nothing.
    assert.ok(compared >= sources.length * 2, `compared ${compared} states`);
    assert.ok(failedAlike < compared, `${failedAlike} states failed alike, ${compared} compared`);
  });

  it('the group taken from a const in another file: editing that file changes the CRD', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-random-'));
    made.push(dir);
    for (const [p, t] of Object.entries(FILES)) put(dir, p, t);
    assert.ok((await run(dir, false)).ok);
    put(dir, 'src/api/group.ts', "export const GROUP = 'other.example.com';\n");
    const cached = await run(dir, false);
    assert.ok(cached.ok);
    assert.ok(
      Object.keys(cached.files).some((f) => f.endsWith('other.example.com_widgets.yaml')),
      Object.keys(cached.files).join(', '),
    );
    assert.deepEqual(cached.files, ((await cold(dir)) as { files: Record<string, string> }).files);
  });
});
