// The CRD check's rules, one by one, on hand-made schemas and CRDs (the corpus in
// test/hostile/crd-corpus.test.ts runs them through the real analysis and API server).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  CODE_HELP,
  CODES,
  checkCRD,
  checkRE2,
  loadRuleCheck,
  validateValue,
} from '../../src/manifests/crdcheck/index.js';
import { checkSchema } from '../../src/manifests/crdcheck/schema.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();

const spec = (props: Record<string, JSONSchemaProps>, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: { type: 'object', properties: props, ...extra },
  },
});
const codes = (s: JSONSchemaProps, status = false) => checkSchema(s, status).map((v) => `${v.code} ${v.message}`);

// The CEL rule check loads on demand; these tests check CRDs with rules directly.
before(() => loadRuleCheck());

describe('RE2 syntax', () => {
  const ok = [
    '',
    '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
    '(?i)abc',
    '(?P<n>x)',
    '[[:alpha:]]+',
    '\\pL\\p{Greek}',
    'a{2,5}?',
    'a{,3}',
    '\\Qa.b\\E',
    '[]a]',
    '[^]a]',
    '[a-]',
    '\\x41\\x{263a}',
    '\\012',
    'a|',
    '(?:a|b)*',
    '\\/',
    '\\z',
  ];
  for (const p of ok) it(`accepts ${JSON.stringify(p)}`, () => assert.equal(checkRE2(p), undefined));
  const bad: [string, RegExp][] = [
    ['[a-', /missing closing \]/],
    ['(?=a)', /lookahead/],
    ['(?!a)', /lookahead/],
    ['(?<=a)b', /lookbehind/],
    ['(?<!a)b', /lookbehind/],
    ['(a)\\1', /backreferences/],
    ['a*+', /nested repetition.*possessive/],
    ['a**', /nested repetition/],
    ['(?>a)', /atomic/],
    ['\\u0041', /\\x\{hhhh\}/],
    ['[z-a]', /end comes before the start/],
    ['(a', /missing closing \)/],
    ['a)', /unexpected \)/],
    ['*a', /missing argument/],
    ['a{1001}', /at most 1000/],
    ['a{3,2}', /smaller than the minimum/],
    ['\\k<n>', /named backreferences/],
    ['\\p{Foo}', /unknown Unicode class/],
    ['\\', /trailing backslash/],
    ['[\\b]', /inside a character class/],
    ['(?#c)', /unsupported Perl syntax/],
    ['\\Z', /\\z/],
  ];
  // kube-apiserver 1.37 creates CRDs with these patterns (Go 1.22+ reads (?<n>) as (?P<n>), and
  // Go has always taken a capture name twice).
  for (const p of ['(?<n>x)', '(?P<n>a)(?P<n>b)', '(?<n>a)(?P<n>b)']) {
    it(`takes ${JSON.stringify(p)}, as the API server does`, () => {
      assert.equal(checkRE2(p), undefined);
    });
  }
  for (const [p, re] of bad) {
    it(`refuses ${JSON.stringify(p)}`, () => {
      const r = checkRE2(p);
      assert.ok(r, 'expected a problem');
      assert.match(r.message, re);
    });
  }
});

describe('default values', () => {
  it('must validate and survive pruning', () => {
    const obj: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'string' }, n: { type: 'integer', maximum: 3 } },
      required: ['a'],
    };
    assert.deepEqual(validateValue({ a: 'x', n: 2 }, obj), []);
    assert.match(validateValue({ a: 'x', b: 1 }, obj)[0].message, /default\.b is a field the schema does not declare/);
    assert.ok(validateValue({ a: 'x', b: 1 }, obj)[0].pruned);
    // The API server's words (src/apiserver/structural.ts, judged by test/fake/differential.test.ts).
    const messages = (v: unknown, s: JSONSchemaProps) => validateValue(v, s).map((p) => p.message);
    assert.deepEqual(messages({ n: 2 }, obj), ['default.a: Required value']);
    assert.deepEqual(messages({ a: 'x', n: 5 }, obj), [
      'default.n: Invalid value: 5: default.n in body should be less than or equal to 3',
    ]);
    assert.deepEqual(messages('x', obj), [
      'default: Invalid value: "string": default in body must be of type object: "string"',
    ]);
    assert.deepEqual(messages(null, { type: 'string' }), [
      'default: Invalid value: "null": default in body must be of type string: "null"',
    ]);
    assert.deepEqual(validateValue(null, { type: 'string', nullable: true }), []);
    assert.deepEqual(messages('ABC', { type: 'string', pattern: '^[a-z]+$' }), [
      `default: Invalid value: "ABC": default in body should match '^[a-z]+$'`,
    ]);
    // RE2, not JavaScript: (?i) is a flag group, \z the end of the text.
    assert.deepEqual(messages('ABC', { type: 'string', pattern: '(?i)^abc\\z' }), []);
    assert.equal(messages('xyz', { type: 'string', pattern: '(?i)^abc$' }).length, 1);
    assert.deepEqual(
      messages(['a', 'a'], { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' }),
      ['default[1]: Duplicate value: "a"'],
    );
    assert.deepEqual(messages('soon', { type: 'string', format: 'date-time' }), [
      'default: Invalid value: "soon": default in body must be of type date-time: "soon"',
    ]);
    assert.deepEqual(validateValue({ any: 1 }, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), []);
    assert.deepEqual(
      validateValue('x', { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }),
      [],
    );
  });

  it('are reported by the schema check, and refused inside metadata', () => {
    assert.deepEqual(codes(spec({ n: { type: 'integer', default: 'x' } })), [
      `${CODES.default} default "x" is refused: default: Invalid value: "string": default in body must be of type integer: "string"`,
    ]);
    const s = spec({});
    must(s.properties, 's.properties').metadata = { type: 'object', default: {} } as JSONSchemaProps;
    assert.ok(codes(s).some((c) => c.includes('metadata')));
  });
});

describe('structural rules', () => {
  it('needs a type on every field, except int-or-string and preserved nodes', () => {
    assert.match(codes(spec({ free: {} }))[0], /KF4603 has no type/);
    assert.deepEqual(codes(spec({ free: { 'x-kubernetes-preserve-unknown-fields': true } })), []);
    assert.deepEqual(
      codes(spec({ q: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true } })),
      [],
    );
  });
  it('refuses uniqueItems, properties beside additionalProperties, arrays without items', () => {
    assert.match(
      codes(spec({ xs: { type: 'array', items: { type: 'string' }, uniqueItems: true } }))[0],
      /uniqueItems/,
    );
    assert.match(
      codes(
        spec({
          o: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
        }),
      )[0],
      /both properties and additionalProperties/,
    );
    assert.match(codes(spec({ xs: { type: 'array' } }))[0], /without an items schema/);
  });
  it('refuses embedded resources that are not objects or declare nothing', () => {
    assert.match(
      codes(spec({ e: { type: 'string', 'x-kubernetes-embedded-resource': true } }))[0],
      /must be of type object/,
    );
    assert.match(
      codes(spec({ e: { type: 'object', 'x-kubernetes-embedded-resource': true } }))[0],
      /declares no properties/,
    );
  });
  it('keeps value validations free of structural keywords', () => {
    assert.match(
      codes(spec({ s: { type: 'string', allOf: [{ type: 'string' } as JSONSchemaProps] } }))[0],
      /allOf\[0\] sets type/,
    );
  });
  it('limits the root schema when the status subresource is on', () => {
    const s = spec({});
    s.maxProperties = 3;
    assert.deepEqual(codes(s), []);
    assert.match(codes(s, true)[0], /KF4608 .*'maxProperties'/);
  });
});

describe('list and map types', () => {
  const item = (
    props: Record<string, JSONSchemaProps>,
    required: string[] = [],
    extra: Partial<JSONSchemaProps> = {},
  ): JSONSchemaProps => ({ type: 'object', properties: props, ...(required.length ? { required } : {}), ...extra });
  it('needs map keys that are required or defaulted scalars', () => {
    const list = (it: JSONSchemaProps, keys = ['name']): JSONSchemaProps => ({
      type: 'array',
      items: it,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': keys,
    });
    assert.deepEqual(codes(spec({ l: list(item({ name: { type: 'string' } }, ['name'])) })), []);
    assert.deepEqual(codes(spec({ l: list(item({ name: { type: 'string', default: 'a' } })) })), []);
    assert.match(codes(spec({ l: list(item({ name: { type: 'string' } })) }))[0], /optional and has no default/);
    assert.match(
      codes(spec({ l: list(item({ name: { type: 'array', items: { type: 'string' } } }, ['name'])) }))[0],
      /must be a scalar/,
    );
    assert.match(codes(spec({ l: list(item({ a: { type: 'string' } }, ['a'])) }))[0], /not a field of the items/);
    assert.match(codes(spec({ l: list(item({ name: { type: 'string' } }, ['name']), []) }))[0], /without keys/);
    assert.match(
      codes(
        spec({
          l: {
            type: 'array',
            items: { type: 'string' },
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['a'],
          },
        }),
      ).join('\n'),
      /items are not objects/,
    );
  });
  it('accepts sets of scalars and atomic objects only', () => {
    assert.deepEqual(
      codes(spec({ l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } })),
      [],
    );
    assert.match(
      codes(spec({ l: { type: 'array', items: item({ a: { type: 'string' } }), 'x-kubernetes-list-type': 'set' } }))[0],
      /set of objects/,
    );
    assert.deepEqual(
      codes(
        spec({
          l: {
            type: 'array',
            items: item({ a: { type: 'string' } }, [], { 'x-kubernetes-map-type': 'atomic' }),
            'x-kubernetes-list-type': 'set',
          },
        }),
      ),
      [],
    );
    assert.match(
      codes(
        spec({ l: { type: 'array', items: { type: 'string', nullable: true }, 'x-kubernetes-list-type': 'set' } }),
      )[0],
      /must not be nullable/,
    );
  });
  it('puts listType on arrays and mapType on objects', () => {
    assert.match(codes(spec({ s: { type: 'string', 'x-kubernetes-list-type': 'set' } }))[0], /only allowed on arrays/);
    assert.match(
      codes(spec({ s: { type: 'string', 'x-kubernetes-map-type': 'atomic' } }))[0],
      /only allowed on objects/,
    );
  });
});

describe('CEL rules (x-kubernetes-validations)', () => {
  const rule = (r: Record<string, unknown>): JSONSchemaProps => ({
    type: 'string',
    'x-kubernetes-validations': [r as { rule: string }],
  });
  it('refuses oldSelf where old and new values cannot be matched', () => {
    const immutable = rule({ rule: 'self == oldSelf', message: 'immutable' });
    assert.deepEqual(codes(spec({ s: immutable })), []);
    const inItems = (listType?: 'map') =>
      spec({
        l: {
          type: 'array',
          ...(listType ? { 'x-kubernetes-list-type': listType, 'x-kubernetes-list-map-keys': ['k'] } : {}),
          items: { type: 'object', required: ['k'], properties: { k: { type: 'string' }, s: immutable } },
        },
      });
    assert.match(codes(inItems())[0], /KF4611 rule "self == oldSelf" uses oldSelf .*inside \.spec\.l/);
    assert.deepEqual(codes(inItems('map')), []);
    assert.match(
      codes(spec({ o: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { s: immutable } } }))[0],
      /uses oldSelf/,
    );
  });
  it('checks messages, reasons and field paths', () => {
    assert.match(codes(spec({ s: rule({ rule: 'self.size() > 1\n&& true' }) }))[0], /several lines without a message/);
    assert.match(codes(spec({ s: rule({ rule: 'true', message: ' ' }) }))[0], /must be non-empty and on one line/);
    assert.match(codes(spec({ s: rule({ rule: 'true', reason: 'Nope' }) }))[0], /reason 'Nope'/);
    assert.match(codes(spec({ s: rule({ rule: 'true', optionalOldSelf: true }) }))[0], /optionalOldSelf/);
    const obj = (fieldPath: string) =>
      spec({
        o: {
          type: 'object',
          properties: { a: { type: 'array', items: { type: 'string' } } },
          'x-kubernetes-validations': [{ rule: 'true', fieldPath }],
        },
      });
    assert.deepEqual(codes(obj('.a')), []);
    assert.deepEqual(codes(obj("['a']")), []);
    assert.match(codes(obj('.a[0]'))[0], /fieldPath ".a\[0\]" does not name a field/);
    assert.match(codes(obj('.b'))[0], /does not name a field/);
  });
});

describe('bounds', () => {
  it('refuses ranges no value can satisfy', () => {
    assert.match(
      codes(spec({ n: { type: 'integer', minimum: 5, maximum: 1 } }))[0],
      /KF4607 minimum 5 is greater than maximum 1/,
    );
    assert.match(
      codes(spec({ n: { type: 'integer', minimum: 1, exclusiveMinimum: true, maximum: 1 } }))[0],
      /minimum 1 \(exclusive\)/,
    );
    assert.match(
      codes(spec({ n: { type: 'integer', maximum: 1, allOf: [{ minimum: 4 }] } }))[0],
      /minimum 4 is greater than maximum 1/,
    );
    assert.match(
      codes(spec({ s: { type: 'string', minLength: 3, maxLength: 1 } }))[0],
      /minLength 3 is greater than maxLength 1/,
    );
    assert.match(
      codes(spec({ s: { type: 'array', items: { type: 'string' }, minItems: 3, maxItems: 1 } }))[0],
      /minItems 3/,
    );
    assert.match(codes(spec({ s: { type: 'object', minProperties: 3, maxProperties: 1 } }))[0], /minProperties 3/);
    assert.match(codes(spec({ s: { type: 'string', maxLength: -1 } }))[0], /negative/);
    assert.match(codes(spec({ n: { type: 'number', multipleOf: 0 } }))[0], /greater than 0/);
    assert.match(codes(spec({ s: { type: 'string', enum: [1] } }))[0], /enum value 1/);
    assert.deepEqual(codes(spec({ n: { type: 'integer', minimum: 1, maximum: 1 } })), []);
  });
});

describe('CRD-level rules', () => {
  const crd = (
    over: {
      group?: string;
      names?: Record<string, unknown>;
      version?: Record<string, unknown>;
      metadata?: Record<string, unknown>;
    } = {},
  ) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'x', ...(over.metadata ?? {}) },
    spec: {
      group: over.group ?? 'example.com',
      names: { kind: 'Thing', listKind: 'ThingList', plural: 'things', singular: 'thing', ...(over.names ?? {}) },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: spec({ replicas: { type: 'integer' } }) },
          ...(over.version ?? {}),
        },
      ],
    },
  });
  const msgs = (c: object) => checkCRD(c).map((d) => `${d.code} ${d.message}`);
  it('accepts a plain CRD', () => assert.deepEqual(msgs(crd()), []));
  it('checks names', () => {
    assert.match(msgs(crd({ names: { plural: 'Things' } }))[0], /KF4601 resource plural name 'Things'/);
    assert.match(
      msgs(crd({ names: { kind: 'Bad_Kind', listKind: 'Bad_KindList' } }))[0],
      /KF4601 Kind name 'Bad_Kind'/,
    );
    assert.match(msgs(crd({ names: { shortNames: ['A'] } }))[0], /short name 'A'/);
  });
  it('checks the group', () => {
    assert.match(msgs(crd({ group: 'nodot' }))[0], /KF4602 .*no dot/);
    assert.match(msgs(crd({ group: 'apps.k8s.io' }))[0], /protected/);
    assert.deepEqual(
      msgs(crd({ group: 'apps.k8s.io', metadata: { annotations: { 'api-approved.kubernetes.io': 'https://x' } } })),
      [],
    );
  });
  it('checks scale paths', () => {
    const scale = (s: Record<string, string>) => msgs(crd({ version: { subresources: { scale: s } } }));
    assert.deepEqual(
      scale({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' }).filter(
        (m) => !m.includes('status.replicas'),
      ),
      [],
    );
    assert.match(
      scale({ specReplicasPath: 'spec.replicas', statusReplicasPath: '.status.x' })[0],
      /starting with '\.'/,
    );
    assert.match(scale({ specReplicasPath: '.status.replicas', statusReplicasPath: '.status.x' })[0], /under \.spec\./);
  });
  it('checks printer columns and labels', () => {
    assert.match(
      msgs(crd({ version: { additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: 'spec.a' }] } }))[0],
      /KF4609/,
    );
    assert.match(msgs(crd({ metadata: { labels: { 'a b': 'x' } } }))[0], /KF4610 label key/);
  });
  it("refuses a printer column type or format the server refuses, in the server's words; an empty format is none", () => {
    const column = (c: Record<string, unknown>) =>
      checkCRD(crd({ version: { additionalPrinterColumns: [{ name: 'A', jsonPath: '.spec.replicas', ...c }] } })).map(
        (d) => `${d.severity} ${d.code} ${d.message}`,
      );
    for (const type of ['integer', 'number', 'string', 'boolean', 'date']) assert.deepEqual(column({ type }), []);
    assert.deepEqual(column({ type: 'text' }), [
      `error KF4609 @PrintColumn "A" of Thing has type 'text', which the API server refuses (must be one of boolean,date,integer,number,string)`,
    ]);
    assert.deepEqual(column({}), [
      'error KF4609 @PrintColumn "A" of Thing has no type, which the API server refuses (must be one of boolean,date,integer,number,string)',
    ]);
    assert.deepEqual(column({ type: 'string', format: '' }), []);
    assert.deepEqual(column({ type: 'string', format: 'uri' }), [
      'error KF4609 @PrintColumn "A" of Thing has format \'uri\', which the API server refuses (must be one of byte,date,date-time,double,float,int32,int64,password)',
    ]);
  });
  it('warns on each format the server does not recognise for its type, as it warns (KF4615), anywhere in the schema', () => {
    const warned = (props: Record<string, JSONSchemaProps>) =>
      checkCRD(crd({ version: { schema: { openAPIV3Schema: spec(props) } } })).map(
        (d) => `${d.severity} ${d.code} ${d.message.replace(/: the API server says so.*/, '')}`,
      );
    // What the server recognises: string formats (with or without '-', as go-openapi normalises),
    // int32 / int64 on integers, float / double on numbers.
    assert.deepEqual(
      warned({
        a: { type: 'string', format: 'date-time' },
        b: { type: 'string', format: 'datetime' },
        c: { type: 'string', format: 'k8s-short-name' },
        d: { type: 'string', format: 'uuid4' },
        e: { type: 'integer', format: 'int32' },
        f: { type: 'number', format: 'double' },
        g: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], format: 'uri' },
      }),
      [],
    );
    assert.deepEqual(
      warned({
        phone: { type: 'string', format: 'phone' },
        n: { type: 'integer', format: 'double' },
        f: { type: 'number', format: 'int64' },
        b: { type: 'boolean', format: 'bool' },
        o: { type: 'object', format: 'date' },
        l: { type: 'array', items: { type: 'string', format: 'Email' } },
        m: { type: 'object', additionalProperties: { type: 'string', format: 'url' } },
        j: { type: 'integer', allOf: [{ format: 'int32' }] },
      }),
      [
        'warning KF4615 Kind Thing (Thing v1 .spec.b): unrecognized format "bool"',
        'warning KF4615 Kind Thing (Thing v1 .spec.f): unrecognized format "int64"',
        'warning KF4615 Kind Thing (Thing v1 .spec.j): unrecognized format "int32"',
        'warning KF4615 Kind Thing (Thing v1 .spec.l[*]): unrecognized format "Email"',
        'warning KF4615 Kind Thing (Thing v1 .spec.m[*]): unrecognized format "url"',
        'warning KF4615 Kind Thing (Thing v1 .spec.n): unrecognized format "double"',
        'warning KF4615 Kind Thing (Thing v1 .spec.o): unrecognized format "date"',
        'warning KF4615 Kind Thing (Thing v1 .spec.phone): unrecognized format "phone"',
      ],
    );
  });
});

describe('documentation', () => {
  it('docs/manifests.md lists every KF46xx code of the CRD check', () => {
    const doc = readFileSync(join(root, 'docs/manifests.md'), 'utf8');
    for (const code of Object.keys(CODE_HELP)) assert.ok(doc.includes(code), `${code} is not in docs/manifests.md`);
    assert.deepEqual(Object.keys(CODE_HELP).sort(), Object.values(CODES).sort());
  });
});

describe('the CEL rule check loads on demand', () => {
  // A fresh process: the module keeps whether it loaded the check.
  const run = (body: string) => {
    const index = resolve(fileURLToPath(import.meta.url), '../../../src/manifests/crdcheck/index.js');
    const script = `const m = await import(${JSON.stringify(pathToFileURL(index).href)});
const crd = (schema) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.x.io' },
  spec: { group: 'x.io', names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' }, scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] } });
const plain = { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } };
const ruled = { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.nope > 0' }] } } };
${body}`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    return { status: r.status, out: r.stdout.trim(), err: r.stderr };
  };

  it('without rules nothing is loaded; a CRD with rules is refused until the check is loaded, then checked', () => {
    const r = run(`console.log(m.checkCRD(crd(plain)).length);
await m.loadRuleCheck([plain]);
try { m.checkCRD(crd(ruled)); console.log('checked without CEL'); } catch (e) { console.log(e.message); }
await m.loadRuleCheck([plain, ruled]);
console.log(m.checkCRD(crd(ruled)).map((d) => d.code).join(','));`);
    assert.equal(r.status, 0, r.err);
    assert.deepEqual(r.out.split('\n'), [
      '0',
      'the CEL rule check is not loaded: await loadRuleCheck() before checking CRDs with x-kubernetes-validations',
      CODES.celRule,
    ]);
  });
});
