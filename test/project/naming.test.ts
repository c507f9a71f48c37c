import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  validateDns1123Label,
  validateDns1123Subdomain,
  validateGroup,
  validateKind,
  validateNpmPackageName,
  validateVersion,
} from '../../src/project/index.js';
import { must } from '../helpers/must.js';

describe('DNS-1123 subdomain (--domain)', () => {
  // apimachinery's IsDNS1123Subdomain bounds the whole name only (253), not each dot-separated part.
  for (const ok of ['example.com', 'my-org.io', 'a', 'x1.y2.z3', `${'a'.repeat(63)}.com`, `${'a'.repeat(64)}.com`]) {
    it(`accepts ${ok.length > 20 ? `${ok.slice(0, 12)}...` : ok}`, () =>
      assert.equal(validateDns1123Subdomain(ok), undefined));
  }
  const cases: [string, RegExp][] = [
    ['', /must not be empty/],
    ['Example.com', /upper-case "E" at position 1/],
    ['my_org.io', /found "_" at position 3/],
    ['example com', /found a space at position 8/],
    ['-example.com', /must start and end with a letter or digit \("-example" does not\)/],
    ['example.com-', /\("com-" does not\)/],
    ['example..com', /empty parts/],
    ['.example.com', /empty parts/],
    [`${'a.'.repeat(127)}a`, /at most 253 characters \(it has 255\)/],
  ];
  for (const [value, rule] of cases) {
    it(`rejects ${JSON.stringify(value.length > 20 ? `${value.slice(0, 12)}...` : value)} naming the rule and a valid example`, () => {
      const d = validateDns1123Subdomain(value, 'domain', '--domain');
      assert.ok(d);
      assert.equal(d.code, 'KF1001');
      assert.match(d.message, rule);
      assert.match(d.message, /DNS-1123 subdomain/);
      assert.match(d.hint ?? '', /--domain needs a DNS-1123 subdomain such as "example\.com"/);
    });
  }
});

describe('DNS-1123 label (--project-name)', () => {
  it('accepts labels', () => {
    for (const ok of ['guestbook', 'my-operator', 'a1', '1a']) assert.equal(validateDns1123Label(ok), undefined, ok);
  });
  it('rejects dots, upper case, edges and length with the rule', () => {
    assert.match(
      must(validateDns1123Label('my.operator'), "validateDns1123Label('my.operator')").message,
      /found "\." at position 3/,
    );
    assert.match(
      must(validateDns1123Label('MyOperator'), "validateDns1123Label('MyOperator')").message,
      /upper-case "M"/,
    );
    assert.match(
      must(validateDns1123Label('operator-'), "validateDns1123Label('operator-')").message,
      /must start and end with a letter or digit/,
    );
    assert.match(
      must(validateDns1123Label('a'.repeat(64)), "validateDns1123Label('a'.repeat(64))").message,
      /at most 63 characters \(it has 64\)/,
    );
    assert.match(
      must(
        must(
          validateDns1123Label('x_y', 'project name', '--project-name'),
          "validateDns1123Label('x_y', 'project name', '--project-name')",
        ).hint,
        "validateDns1123Label('x_y', 'project name', '--project-name')!.hint",
      ),
      /--project-name needs a DNS-1123 label such as "my-operator"/,
    );
  });
});

describe('other names', () => {
  it('npm package names', () => {
    assert.equal(validateNpmPackageName('my-operator'), undefined);
    assert.equal(validateNpmPackageName('@acme/my-operator'), undefined);
    assert.match(
      must(validateNpmPackageName('MyOperator'), "validateNpmPackageName('MyOperator')").message,
      /must be lower case/,
    );
    assert.match(
      must(validateNpmPackageName('_private'), "validateNpmPackageName('_private')").message,
      /must not start with "\." or "_"/,
    );
    assert.match(must(validateNpmPackageName('a b'), "validateNpmPackageName('a b')").message, /URL-safe/);
    assert.match(
      must(validateNpmPackageName('@a/b/c'), "validateNpmPackageName('@a/b/c')").message,
      /"name" or "@scope\/name"/,
    );
  });
  it('Kinds, versions, groups', () => {
    assert.equal(validateKind('CronJob'), undefined);
    assert.match(must(validateKind('cronJob'), "validateKind('cronJob')").message, /upper-case letter/);
    assert.match(must(validateKind('Cron_Job'), "validateKind('Cron_Job')").message, /found "_"/);
    for (const v of ['v1', 'v1alpha1', 'v2beta3', 'v10']) assert.equal(validateVersion(v), undefined, v);
    for (const v of ['1', 'v0', 'v1gamma1', 'V1', 'v1alpha']) assert.ok(validateVersion(v), v);
    assert.equal(validateGroup(''), undefined, 'core group');
    assert.equal(validateGroup('batch'), undefined);
    assert.match(must(validateGroup('Batch'), "validateGroup('Batch')").message, /upper-case "B"/);
  });
});
