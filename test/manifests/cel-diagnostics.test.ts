// Invalid CEL rules found by `manifests` before anything is written: each is an error located at
// its @XValidation marker (file:line:col) with cel-go's message and a hint; rules over the API
// server's cost budget are errors too (the server refuses the CRD), naming the bounds to add.
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { checkGeneratedCRDs, loadRuleCheck } from '../../src/manifests/crdcheck/index.js';
import { analyzeProject } from './analyze-helper.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const dir = join(root, 'test/fixtures/manifests/invalid/cel');

describe('CEL rules in manifests', async () => {
  const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
  await loadRuleCheck(r.kinds.map((k) => k.schema)); // as the CRD generator's prepare does
  const diags = checkGeneratedCRDs(r.crds, r.diagnostics).flat();
  const at = (d: (typeof diags)[number]) => `${relative(dir, d.file ?? '')}:${d.line}:${d.column}`;
  const f = 'src/api/v1/cel_types.ts';

  it('the analysis itself is clean', () =>
    assert.deepEqual(
      r.diagnostics.filter((d) => d.severity === 'error'),
      [],
    ));

  const expected: [string, string, RegExp][] = [
    [`${f}:5:1`, 'KF4612', /rule "self.nope > 0" does not compile: <input>:1:5: undefined field 'nope'/],
    [`${f}:6:1`, 'KF4612', /<input>:1:9: undefined field 'missing'/],
    [`${f}:8:3`, 'KF4612', /found no matching overload for '_\+_' applied to '\(int, string\)'/],
    [`${f}:9:3`, 'KF4612', /<input>:1:1\d: Syntax error/],
    [`${f}:10:3`, 'KF4612', /cel expression must evaluate to a bool \(it is int\)/],
    [`${f}:11:3`, 'KF4612', /undeclared reference to 'foo'/],
    [`${f}:12:3`, 'KF4612', /no matching overload for 'startsWith' applied to 'string.\(int\)'/],
    [`${f}:13:3`, 'KF4612', /no matching overload for 'size' applied to 'int.\(\)'/],
    [`${f}:14:3`, 'KF4612', /type 'list\(string\)' does not support field selection/],
    [`${f}:15:24`, 'KF4612', /'_<_' applied to '\(google.protobuf.Timestamp, int\)'/],
    [`${f}:16:3`, 'KF4612', /'_%_' applied to '\(double, double\)'/],
    [`${f}:17:3`, 'KF4612', /'_>_' applied to '\(string, int\)'/],
    [
      `${f}:18:3`,
      'KF4613',
      /messageExpression "self" does not compile: messageExpression must evaluate to a string \(it is int\)/,
    ],
    [`${f}:19:3`, 'KF4613', /messageExpression "'x' \+ self" does not compile: .*'_\+_' applied to '\(string, int\)'/],
    [`${f}:20:3`, 'KF4612', /'_==_' applied to '\(string, int\)'/],
    [`${f}:21:3`, 'KF4612', /'_\*_' applied to '\(string, int\)'/],
    [`${f}:22:3`, 'KF4612', /'matches' applied to 'string.\(int\)'/],
    [`${f}:23:3`, 'KF4612', /undefined field 'nope'/],
    [`${f}:24:3`, 'KF4612', /'@in' applied to '\(int, string\)'/],
    [`${f}:25:3`, 'KF4612', /'!_' applied to '\(int\)'/],
    [`${f}:26:3`, 'KF4612', /'_\?_:_' applied to '\(int, bool, bool\)'/],
    [`${f}:27:3`, 'KF4612', /'charAt' applied to 'string.\(string\)'/],
    [`${f}:28:3`, 'KF4612', /'int' applied to '\(list\(string\)\)'/],
    [`${f}:29:3`, 'KF4612', /'quantity' applied to '\(int\)'/],
    [`${f}:30:3`, 'KF4612', /'isSorted' applied to '\(list\(int\)\)'/],
    [`${f}:31:3`, 'KF4612', /type 'string' does not support field selection/],
    [`${f}:32:3`, 'KF4612', /undefined field 'dashed__name'/],
    [
      `${f}:33:3`,
      'KF4612',
      /field "v" of RulesSpec \(Rules v1 \.spec\.v\[\*\]\): rule "self > 1" .*'_>_' applied to '\(string, int\)'/,
    ],
    [
      `${f}:34:3`,
      'KF4612',
      /rule "self.matches\('\(\?=a\)b'\)" does not compile: <input>:1:14: invalid matches argument \(invalid regular expression "\(\?=a\)b": .*lookahead/,
    ],
    [
      `${f}:39:3`,
      'KF4614',
      /estimated cost .* exceeds the API server's per-rule budget of 10000000 by a factor of more than 100x: the API server refuses the CRD/,
    ],
  ];
  for (const [where, code, message] of expected) {
    it(`${where} ${code} ${message.source.slice(0, 60)}`, () => {
      const d = diags.find((x) => at(x) === where && x.code === code);
      assert.ok(d, `no ${code} at ${where}; got:\n${diags.map((x) => `${at(x)} ${x.code} ${x.message}`).join('\n')}`);
      assert.equal(d.severity, 'error');
      assert.match(d.message, message);
      assert.ok(d.hint && d.hint.length > 10, 'a hint');
    });
  }

  it('valid rules give nothing; every error is one of the expected', () => {
    const errors = diags.filter((d) => d.severity === 'error');
    assert.equal(errors.length, expected.length, errors.map((x) => `${at(x)} ${x.code} ${x.message}`).join('\n'));
  });

  it('a rule over the per-rule cost budget is an error naming the bounds to add; nothing is a warning', () => {
    // (the per-CRD total is over too; it is not reported again when a rule already is)
    assert.deepEqual(
      diags.filter((d) => d.severity === 'warning').map((x) => x.message),
      [],
    );
    const cost = diags.filter((d) => d.code === 'KF4614');
    assert.equal(cost.length, 1, cost.map((x) => x.message).join('\n'));
    assert.equal(at(cost[0]), `${f}:39:3`);
    assert.match(cost[0].hint ?? '', /maxItems on the field itself.*maxLength on \[\*\]/);
  });
});

describe('CEL rules: nothing is written', () => {
  it('manifests fails with the located errors and writes no file', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, existsSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { runManifests } = await import('../../src/manifests/pipeline.js');
    const { analyzeProject: analyze } = await import('../../src/analysis/analyze.js');
    const { DiagnosticError } = await import('../../src/diagnostics/index.js');
    const d = mkdtempSync(join(tmpdir(), 'kf-cel-'));
    try {
      const files: Record<string, string> = {
        'tsconfig.json': JSON.stringify({
          compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
          include: ['src/**/*.ts'],
        }),
        'package.json': '{"name":"demo","private":true,"type":"module"}\n',
        'src/api/v1/groupversion.ts':
          "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'demo.example.com', version: 'v1' });\n",
        'src/api/v1/widget_types.ts':
          "import { Root, XValidation, type int32 } from 'kubeforge/markers';\nexport class WidgetSpec {\n  @XValidation({ rule: 'self.replica > 0' }) replicas?: int32;\n}\n@Root() export class Widget { metadata?: object; spec?: WidgetSpec }\n",
      };
      for (const [p, text] of Object.entries(files)) {
        mkdirSync(join(d, p, '..'), { recursive: true });
        writeFileSync(join(d, p), text);
      }
      await assert.rejects(runManifests({ projectDir: d }, analyze), (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        const [diag] = e.diagnostics.filter((x) => x.code === 'KF4612');
        assert.equal(`${relative(d, diag.file ?? '')}:${diag.line}:${diag.column}`, 'src/api/v1/widget_types.ts:3:3');
        assert.match(
          diag.message,
          /rule "self.replica > 0" does not compile: <input>:1:5: type 'int' does not support field selection/,
        );
        return true;
      });
      assert.equal(existsSync(join(d, 'config')), false);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
