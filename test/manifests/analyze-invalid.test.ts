// Invalid inputs at the analysis level: each problem gives its code, file:line:col, a message
// naming the symbol and a hint saying how to fix it; every problem of a project is reported in
// one run. (CLI-level behaviour, exit codes and untouched disks, are tested with the command.)
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { formatDiagnostics, type Diagnostic } from '../../src/diagnostics/index.js';
import { analyzeProject } from './analyze-helper.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const invalid = join(root, 'test/fixtures/manifests/invalid');

/** `file:line:col CODE` plus a fragment the message must contain. */
type Expect = [where: string, code: string, fragment: string];

async function check(name: string, expected: Expect[]): Promise<Diagnostic[]> {
  const dir = join(invalid, name);
  const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
  const got = r.diagnostics.map((d) => ({ where: `${relative(dir, d.file ?? '')}:${d.line}:${d.column}`, d }));
  for (const [where, code, fragment] of expected) {
    const hit = got.find((g) => g.where === where && g.d.code === code && g.d.message.includes(fragment));
    assert.ok(
      hit,
      `expected ${where} ${code} "${fragment}"; got:\n${got.map((g) => `${g.where} ${g.d.code} ${g.d.message}`).join('\n')}`,
    );
    assert.equal(hit.d.severity, 'error');
    assert.ok(hit.d.hint && hit.d.hint.length > 10, `${where} ${code} has no useful hint`);
  }
  assert.equal(
    r.diagnostics.length,
    expected.length,
    `unexpected extra diagnostics:\n${got.map((g) => `${g.where} ${g.d.code} ${g.d.message}`).join('\n')}`,
  );
  return r.diagnostics;
}

describe('invalid inputs: types', () => {
  it('reports every unsupported type of the project in one run', async () => {
    const diags = await check('types', [
      ['src/api/v1/bad_types.ts:6:14', 'KF3002', 'makes type Node recursive (Node -> Node)'],
      ['src/api/v1/bad_types.ts:13:7', 'KF3002', 'makes type A recursive (A -> B -> A)'],
      ['src/api/v1/bad_types.ts:17:10', 'KF3003', 'field "pair" of BadSpec is a tuple'],
      ['src/api/v1/bad_types.ts:18:14', 'KF3004', 'field "callback" of BadSpec is a function type'],
      ['src/api/v1/bad_types.ts:19:9', 'KF3005', 'field "sym" of BadSpec has type \'symbol\''],
      ['src/api/v1/bad_types.ts:20:9', 'KF3005', 'field "big" of BadSpec has type \'bigint\''],
      ['src/api/v1/bad_types.ts:21:12', 'KF3006', 'field "either" of BadSpec is a union of A | Node'],
      ['src/api/v1/bad_types.ts:22:11', 'KF3006', 'field "mixed" of BadSpec is a union of string | number'],
      ['src/api/v1/bad_types.ts:23:10', 'KF3001', 'field "free" of BadSpec has type \'unknown\''],
      ['src/api/v1/bad_types.ts:24:11', 'KF3001', 'field "loose" of BadSpec has type \'any\''],
      ['src/api/v1/bad_types.ts:25:9', 'KF3001', 'field "obj" of BadSpec has type \'object\''],
      ['src/api/v1/bad_types.ts:28:12', 'KF3007', 'field "lookup" of BadSpec is a Map'],
      ['src/api/v1/bad_types.ts:29:3', 'KF3008', 'field "untyped" of BadSpec has no type annotation'],
      ['src/api/v1/bad_types.ts:30:13', 'KF3010', "cannot resolve type 'NotDeclared'"],
      ['src/api/v1/bad_types.ts:31:11', 'KF3009', 'has type V1NotAModel from @kubernetes/client-node'],
      ['src/api/v1/bad_types.ts:32:17', 'KF3007', 'Record keys must be string'],
    ]);
    const byCode = new Map(diags.map((d) => [d.code, d.hint]));
    assert.match(byCode.get('KF3001') ?? '', /@PreserveUnknownFields\(\)/);
    assert.match(byCode.get('KF3006') ?? '', /IntOrString|merge them/);
  });
});

describe('invalid inputs: markers', () => {
  it('reports misplaced markers, bad arguments and failed preconditions in one run', async () => {
    const diags = await check('markers', [
      ['src/api/v1/markers_types.ts:11:4', 'KF2011', "@minLength on type Word: cannot parse 'three' as JSON"],
      ['src/api/v1/markers_types.ts:15:1', 'KF2002', '@Default cannot be used on class Inner: it belongs on a field'],
      ['src/api/v1/markers_types.ts:17:3', 'KF2002', '@Resource cannot be used on field "name" of Inner'],
      ['src/api/v1/markers_types.ts:21:1', 'KF2002', '@Resource cannot be used on class NotAKind'],
      [
        'src/api/v1/markers_types.ts:27:3',
        'KF2009',
        '@Maximum on field "text" of MarkersSpec: must apply maximum to a numeric value, found string',
      ],
      [
        'src/api/v1/markers_types.ts:30:3',
        'KF2009',
        '@ListMapKey on field "entries" of MarkersSpec: must apply listMapKey to an associative-list',
      ],
      [
        'src/api/v1/markers_types.ts:33:12',
        'KF2003',
        '@Maximum on field "computed" of MarkersSpec: argument n is not a literal: \'compute()\'',
      ],
      ['src/api/v1/markers_types.ts:36:12', 'KF2003', "'dynamicPattern' is not a const with a literal value"],
      [
        'src/api/v1/markers_types.ts:39:14',
        'KF2007',
        '@MinLength on field "wrongType" of MarkersSpec: argument n: expected an integer, found a string',
      ],
      ['src/api/v1/markers_types.ts:42:3', 'KF2004', '@Optional on field "notCalled" of MarkersSpec must be called'],
      ['src/api/v1/markers_types.ts:46:3', 'KF2008', '@Maximum is given more than once on field "twice"'],
      ['src/api/v1/markers_types.ts:49:3', 'KF2001', 'unknown marker @Maximm on field "misspelled"'],
      ['src/api/v1/markers_types.ts:52:3', 'KF2012', '@Minimum on field "notImported" of MarkersSpec is not imported'],
      ['src/api/v1/markers_types.ts:59:3', 'KF2002', '@Maximum cannot be used on method MarkersSpec.method'],
      [
        'src/api/v1/markers_types.ts:60:3',
        'KF3004',
        'class MarkersSpec declares method method, but the objects kubeforge/runtime hands out (client, cache, webhooks) are plain JSON',
      ],
      ['src/api/v1/markers_types.ts:64:13', 'KF2005', "@Resource on Kind Markers: unknown argument 'plural'"],
      [
        'src/api/v1/markers_types.ts:65:14',
        'KF2006',
        "@PrintColumn on Kind Markers: missing required argument 'jsonPath'",
      ],
    ]);
    const hint = (code: string) => diags.find((d) => d.code === code)?.hint ?? '';
    assert.match(hint('KF2001'), /did you mean @Maximum\?/);
    assert.match(hint('KF2005'), /did you mean 'path'\?/);
    assert.match(hint('KF2012'), /add Minimum to the import from 'kubeforge\/markers'/);
    assert.match(diags.find((d) => d.message.includes('associative-list'))?.hint ?? '', /@ListType\('map'\)/);
  });

  it('formats as `file:line:col  CODE  message` with a code frame and the hint', async () => {
    const dir = join(invalid, 'markers');
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    const text = formatDiagnostics(r.diagnostics, { cwd: dir, readSource: () => undefined });
    assert.match(text, /^src\/api\/v1\/markers_types\.ts:27:3 {2}KF2009 {2}@Maximum on field "text" of MarkersSpec/m);
    assert.match(text, /17 errors\n$/);
  });
});

describe('invalid inputs: project layout and versions', () => {
  it('a Kind in a folder without groupversion.ts', async () => {
    const [d] = await check('no-groupversion', [
      ['src/api/v1/orphan_types.ts:5:14', 'KF4001', 'Kind Orphan is in src/api/v1, which has no groupversion.ts'],
    ]);
    assert.match(
      d.hint ?? '',
      /create src\/api\/v1\/groupversion\.ts: .*defineGroupVersion\(\{ group: 'example\.com', version: 'v1' \}\)/,
    );
  });

  it('two storage versions, and several versions with none', async () => {
    await check('storage', [
      [
        'src/api/v2/types.ts:5:1',
        'KF4003',
        'CRD for Twice.storage.example.com has more than one storage version: v1, v2',
      ],
      ['src/api/v3/types.ts:10:14', 'KF4004', 'CRD for Unstored.storage.example.com has no storage version'],
    ]);
  });

  it('groupversion.ts without defineGroupVersion, and invalid group / version names', async () => {
    await check('groupversion', [
      ['src/api/v1/groupversion.ts:1:1', 'KF4002', 'src/api/v1/groupversion.ts does not call defineGroupVersion'],
      [
        'src/api/v2/groupversion.ts:3:48',
        'KF4002',
        "group 'Not_A_Group' in defineGroupVersion is not a valid DNS subdomain",
      ],
      ['src/api/v2/groupversion.ts:3:48', 'KF4002', "version '2' in defineGroupVersion is not a valid version name"],
    ]);
  });
});

describe('invalid inputs: defaults and ignored JSDoc tags', () => {
  it('a default that cannot validate is an error; a marker tag on a class field is a warning', async () => {
    const dir = join(invalid, 'defaults');
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    const got = r.diagnostics.map(
      (d) => `${relative(dir, d.file ?? '')}:${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}`,
    );
    assert.deepEqual(got, [
      'src/api/v1/defaults_types.ts:5:6 warning KF2014 JSDoc tag @minimum on field "count" of S is ignored: classes and their fields take decorators',
      'src/api/v1/defaults_types.ts:8:3 error KF2009 @Default on field "n" of S: default value "three" is not of the field\'s type (integer)',
      'src/api/v1/defaults_types.ts:9:3 error KF2009 @Default on field "mode" of S: default value "c" is not one of the allowed values ("a", "b")',
    ]);
    assert.match(r.diagnostics[0].hint ?? '', /@Minimum\(/);
  });
});

describe('invalid inputs: syntax and roots without metadata', () => {
  it('reports syntax errors and warns about a @Root() class that cannot be a Kind', async () => {
    const dir = join(invalid, 'syntax');
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.deepEqual(
      r.diagnostics.map(
        (d) => `${relative(dir, d.file ?? '')}:${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}`,
      ),
      [
        'src/api/v1/types.ts:2:22 warning KF4009 @Root() class NoMeta has no metadata field, so it is not a Kind and gets no CRD',
        'src/api/v1/types.ts:3:36 error KF4012 syntax error: Expression expected.',
      ],
    );
    assert.deepEqual(r.crds, []);
  });
});

describe('invalid inputs: a Kind class whose static handle drifted from its CRD', () => {
  it('reports static gvk / plural / namespaced that differ from the markers, at the value (KF4015)', async () => {
    const diagnostics = await check('statics', [
      [
        'src/api/v1/types.ts:22:34',
        'KF4015',
        'Kind Fleet: static gvk.group is "ship.example.org", but its CRD says "ship.example.com"',
      ],
      [
        'src/api/v1/types.ts:22:75',
        'KF4015',
        'Kind Fleet: static gvk.kind is "Fleets", but its CRD says "Fleet" (the class name)',
      ],
      [
        'src/api/v1/types.ts:23:28',
        'KF4015',
        'Kind Fleet: static plural is "fleets", but its CRD says "fleetz" (@Resource\'s path)',
      ],
      ['src/api/v1/types.ts:24:32', 'KF4015', 'Kind Fleet: static namespaced is true, but its CRD says false'],
    ]);
    assert.match(
      diagnostics[0].hint ?? '',
      /static readonly gvk = \{ group: 'ship\.example\.com', version: 'v1', kind: 'Fleet' \} as const;/,
    );
  });
});
