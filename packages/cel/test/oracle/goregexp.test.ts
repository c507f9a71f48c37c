// Go's regexp.Compile judges kubeforge's verdict on literal CEL patterns (packages/cel/src/re2.ts
// goRegexpError, used where cel-go compiles a constant pattern of matches / find / findAll when
// the API server compiles a rule). The verdict (compiles or not) must be Go's for every
// pattern, and the error text too (re2js is a port of Go's regexp). Test
// infrastructure only: a machine without Go fails here with a message saying so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { goRegexpError } from '../../src/plan.js';
import { findGo } from '../../../../src/envtest/go-build.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();

const PATTERNS = [
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  '(?i)abc',
  '\\pL',
  '\\p{Greek}',
  '[[:alpha:]]',
  'a{2,3}',
  'a{,3}',
  '(?P<n>a)',
  '(?<n>a)',
  '(?P<n>a)(?P<n>b)',
  '\\Qa.b\\E',
  '(?s).',
  '(?U)a+',
  'x*?',
  ')',
  'x++',
  'a**',
  '(?=a)',
  '(?!a)',
  '(?>a)',
  '(?<=a)',
  'a{1001}',
  'a{2,1}',
  '\\8',
  '\\1',
  '[z-a]',
  '(a',
  '[a',
  'a\\',
  '*a',
  '[[:foo:]]',
  '\\C',
  '\\xZ',
  '(?z)',
  '(?i-)',
  '\\u0041',
  '\\pX',
  '\\x{110000}',
  // what JavaScript reads otherwise or refuses, and RE2 takes
  '[[:^alpha:]]',
  '\\p{^Greek}',
  '\\PL',
  'a\\z',
  '(?s:.)',
  '\\Q(?=\\E',
  '[\\d\\pL]',
  // what JavaScript takes, and RE2 refuses
  '(?<=a)b',
  '(?<!a)b',
  '\\k<n>',
  '(?#c)',
  '\\Z',
  '[\\b]',
  'a{1001}',
];
describe("literal patterns: kubeforge's RE2 verdict is Go's regexp.Compile's", () => {
  it("every pattern compiles in both or fails in both, with Go's error text", async () => {
    const go = await findGo();
    if (!go)
      throw new Error(
        "this oracle needs Go (go on PATH or /usr/local/go/bin/go): it compiles the patterns with Go's regexp",
      );
    const r = spawnSync(go, ['run', '.'], {
      cwd: join(root, 'packages/cel/test/oracle/goregexp'),
      input: JSON.stringify(PATTERNS),
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-buildvcs=false', GOTOOLCHAIN: 'local' },
      timeout: 5 * 60_000,
    });
    assert.equal(r.status, 0, `go run failed: ${r.stderr}`);
    const goSays = JSON.parse(r.stdout) as string[];
    const verdicts: string[] = [];
    const wording: string[] = [];
    PATTERNS.forEach((p, i) => {
      const ours = goRegexpError(p) ?? '';
      if ((ours === '') !== (goSays[i] === ''))
        verdicts.push(`${JSON.stringify(p)}: go ${goSays[i] || 'compiles'}, kubeforge ${ours || 'compiles'}`);
      else if (ours !== goSays[i]) wording.push(`${JSON.stringify(p)}: go ${goSays[i]}, kubeforge ${ours}`);
    });
    assert.deepEqual({ verdicts, wording }, { verdicts: [], wording: [] });
    assert.ok(goSays.filter((x) => x).length >= 20, 'most of the patterns are ones Go refuses');
  });
});
