/**
 * The claims of `manifests --check-compat` that depend on the API server, checked on the real
 * kube-apiserver (KUBEBUILDER_ASSETS, v1.37): for corpus pairs (test/fixtures/compat/corpus), the
 * "before" CRD is installed, objects are stored, the "after" CRD is applied, and the server's
 * behaviour is compared with what the finding's message says:
 *  - a tightened bound / narrowed enum / new CEL rule: stored objects stay readable, an update
 *    that leaves the value unchanged passes (ratcheting), an update that changes it and a create
 *    are refused;
 *  - a removed served version: no longer readable through it; a version no longer served likewise,
 *    the objects still readable through the served one;
 *  - a removed field: pruned from stored objects as they are read, unknown to strict validation;
 *  - preserve-unknown-fields removed: undeclared fields pruned as objects are read;
 *  - a new required field without a default: creates without it refused; stored objects without it
 *    can be updated while the object holding it is unchanged (ratcheting), not once it changes;
 *  - a list made a set or map: creates with duplicates refused, stored duplicates ratcheted;
 *  - nullable removed: nulls dropped, sent ones and stored ones as they are read;
 *  - a changed default: new objects get it, stored objects keep the value written with them;
 *  - storage version changed without a webhook: apiVersion rewritten only, fields pruned through the other version;
 *  - a scope change: the server refuses the CRD update;
 *  - a changed type or an added format: ratcheted like a bound, stored values served as they are;
 *  - a map made granular (or atomic): how server-side apply merges it, field managers' conflicts;
 *  - a removed status or scale subresource: /status and /scale get 404, status written through the object;
 *  - every CRD of the corpus, before and after, is accepted by the server (so no pair tests a CRD that cannot exist).
 * Each pair's verdict (diffCRDs) is asserted too, so the test ties the words to the rule.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { diffCRDs } from '../../src/manifests/compat.js';
import { TestEnvironment } from '../../src/testing/index.js';
import { must } from '../helpers/must.js';
import type { Obj } from '../helpers/chart.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const corpus = join(root, 'test/fixtures/compat/corpus');

function pair(name: string, group: string): { before: Obj; after: Obj; rules: string[] } {
  const file = readdirSync(corpus).find((f) => f.replace(/^\d+-/, '') === `${name}.yaml`);
  assert.ok(file, name);
  const c = parse(readFileSync(join(corpus, file), 'utf8')) as { before: Obj; after: Obj };
  for (const crd of [c.before, c.after]) {
    crd.spec.group = group;
    crd.metadata.name = `widgets.${group}`;
  }
  return { ...c, rules: diffCRDs(c.before, c.after).map((f) => f.rule) };
}

let env: TestEnvironment;

function kubectl(args: string[], input?: unknown): { status: number | null; out: string; err: string } {
  const r = spawnSync('kubectl', ['--kubeconfig', env.kubeconfigPath, ...args], {
    input: input === undefined ? undefined : JSON.stringify(input),
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

function ok(args: string[], input?: unknown): string {
  const r = kubectl(args, input);
  assert.equal(r.status, 0, `kubectl ${args.join(' ')}: ${r.err}`);
  return r.out;
}

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** Polls until `probe` holds (the server picks a new CRD schema up asynchronously); fails after 30 s. */
async function until(what: string, probe: () => boolean): Promise<void> {
  const end = Date.now() + 30_000;
  while (!probe()) {
    if (Date.now() > end) assert.fail(`timed out waiting for: ${what}`);
    await sleep(250);
  }
}

async function install(crd: Obj): Promise<void> {
  ok(['apply', '--server-side', '--force-conflicts', '-f', '-'], crd);
  ok(['wait', '--for=condition=Established', '--timeout=30s', `crd/${crd.metadata.name}`]);
}

/** A Widget; size is set (the corpus' base CRD has the rule `self.size >= 0` on spec) unless given. */
function widget(group: string, name: string, spec: Obj, version = 'v1'): Obj {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'Widget',
    metadata: { name, namespace: 'default' },
    spec: { size: 1, ...spec },
  };
}

function get(group: string, name: string, version = 'v1'): { status: number | null; obj?: Obj; err: string } {
  const r = kubectl(['get', `widgets.${version}.${group}`, name, '-n', 'default', '-o', 'json']);
  return { status: r.status, obj: r.status === 0 ? (JSON.parse(r.out) as Obj) : undefined, err: r.err };
}

/** The stored object, which the test has created: a missing one fails naming it. */
function stored(group: string, name: string, version = 'v1'): Obj {
  return must(get(group, name, version).obj, `${name} (${version}) in ${group}`);
}

/** Replaces the object with `change` applied to what the server returns. */
function update(
  group: string,
  name: string,
  change: (o: Obj) => void,
  version = 'v1',
): { status: number | null; err: string } {
  const o = stored(group, name, version);
  change(o);
  const r = kubectl(['replace', '-f', '-'], o);
  return { status: r.status, err: r.err };
}

function create(obj: Obj, extra: string[] = []): { status: number | null; err: string } {
  const r = kubectl(['create', '--dry-run=server', ...extra, '-f', '-'], obj);
  return { status: r.status, err: r.err };
}

describe('check-compat claims on a real API server', () => {
  before(async () => {
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
  });
  after(async () => {
    await env?.stop();
  });

  /** A tightening rule: readable, ratcheted when unchanged, refused when changed, refused on create. */
  async function tightened(
    name: string | ReturnType<typeof pair>,
    rule: string,
    group: string,
    spec: Obj,
    change: (s: Obj) => void,
    refusal: RegExp,
  ): Promise<void> {
    const p = typeof name === 'string' ? pair(name, group) : name;
    assert.deepEqual(p.rules, [rule]);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { ...spec, note: 'first' }));
    await install(p.after);
    await until('the new schema refuses a create', () => create(widget(group, 'probe', spec)).status !== 0);
    const read = get(group, 'old');
    assert.equal(read.status, 0, read.err);
    for (const [k, v] of Object.entries(spec))
      assert.deepEqual(must(read.obj, 'the stored object').spec[k], v, `stored ${k} stays readable`);
    const same = update(group, 'old', (o) => {
      o.spec.note = 'second';
    });
    assert.equal(same.status, 0, `an update leaving the value unchanged passes (ratcheting): ${same.err}`);
    const changed = update(group, 'old', (o) => change(o.spec));
    assert.notEqual(changed.status, 0, 'an update that changes the value to another refused one is refused');
    assert.match(changed.err, refusal);
    const c = create(widget(group, 'new', spec));
    assert.notEqual(c.status, 0);
    assert.match(c.err, refusal);
  }

  it('maximum-tightened: stored objects readable, unchanged values ratcheted, changes and creates refused', async () => {
    await tightened(
      'maximum-lowered',
      'maximum-tightened',
      'max.compat.example.com',
      { size: 8 },
      (s) => {
        s.size = 7;
      },
      /spec\.size: Invalid value: \d+: spec\.size in body should be less than or equal to 5/,
    );
  });

  it('enum-narrowed: likewise', async () => {
    await tightened(
      'enum-value-removed',
      'enum-narrowed',
      'enum.compat.example.com',
      { mode: 'c' },
      (s) => {
        s.mode = 'd';
      },
      /spec\.mode: Unsupported value: "[cd]": supported values: "a", "b"/,
    );
  });

  it('pattern-changed: likewise', async () => {
    await tightened(
      'pattern-added',
      'pattern-changed',
      'pattern.compat.example.com',
      { name: 'ABC' },
      (s) => {
        s.name = 'DEF';
      },
      /spec\.name in body should match/,
    );
  });

  it('cel-rule-added: stored objects readable, an update leaving the field unchanged passes, one that changes it is refused', async () => {
    const group = 'cel.compat.example.com';
    const p = pair('cel-rule-added', group);
    assert.deepEqual(p.rules, ['cel-rule-added']);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 8, name: 'first' }));
    await install(p.after);
    await until('the rule refuses a create', () => create(widget(group, 'probe', { size: 8 })).status !== 0);
    assert.equal(stored(group, 'old').spec.size, 8);
    const labelled = update(group, 'old', (o) => {
      o.metadata.labels = { touched: 'yes' };
    });
    assert.equal(labelled.status, 0, `spec unchanged: ratcheted: ${labelled.err}`);
    const changed = update(group, 'old', (o) => {
      o.spec.name = 'second';
    });
    assert.notEqual(changed.status, 0, 'spec changed: the rule on spec runs');
    assert.match(changed.err, /at most 5/);
    // The transition-rule pair is no finding: it does not judge a create, nor an update keeping the size.
    const t = pair('cel-transition-rule-added', 'celt.compat.example.com');
    assert.deepEqual(t.rules, []);
    await install(t.before);
    ok(['create', '-f', '-'], widget('celt.compat.example.com', 'old', { size: 8 }));
    await install(t.after);
    await until(
      'the transition rule refuses a shrink',
      () =>
        update('celt.compat.example.com', 'old', (o) => {
          o.spec.size = 1;
        }).status !== 0,
    );
    assert.equal(
      update('celt.compat.example.com', 'old', (o) => {
        o.spec.name = 'kept';
      }).status,
      0,
    );
    assert.equal(create(widget('celt.compat.example.com', 'new', { size: 9 })).status, 0);
  });

  it('served-version-removed: the version is no longer readable; version-unserved: likewise, the objects readable through the served version', async () => {
    const group = 'versions.compat.example.com';
    const p = pair('served-version-removed', group);
    assert.deepEqual(p.rules, ['served-version-removed']);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 1 }, 'v1'));
    assert.equal(get(group, 'old', 'v1').status, 0);
    await install(p.after);
    await until('v1 is gone', () => get(group, 'old', 'v1').status !== 0);
    assert.match(get(group, 'old', 'v1').err, /the server doesn't have a resource type|NotFound|not found/i);
    assert.equal(stored(group, 'old', 'v2').spec.size, 1);

    const g2 = 'unserved.compat.example.com';
    const u = pair('version-unserved', g2);
    assert.deepEqual(u.rules, ['version-unserved']);
    await install(u.before);
    ok(['create', '-f', '-'], widget(g2, 'old', { size: 2 }, 'v1'));
    await install(u.after);
    await until('v1 is not served', () => get(g2, 'old', 'v1').status !== 0);
    assert.equal(stored(g2, 'old', 'v2').spec.size, 2);
  });

  it('served-version-removed: the server refuses removing a version still in status.storedVersions', async () => {
    const group = 'stored.compat.example.com';
    const p = pair('served-version-removed', group);
    // v1 the storage version of the base: objects are stored as v1.
    p.before.spec.versions[0].storage = true;
    p.before.spec.versions[1].storage = false;
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 1 }, 'v1'));
    const r = kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], p.after);
    assert.notEqual(r.status, 0);
    assert.match(r.err, /status\.storedVersions\[0\]: Invalid value: "v1": missing from spec\.versions/);
  });

  it('field-removed: the stored value is pruned as the object is read, and strict validation refuses the field', async () => {
    const group = 'removed.compat.example.com';
    const p = pair('field-removed', group);
    assert.deepEqual(p.rules, ['field-removed']);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 1, name: 'kept-before' }));
    await install(p.after);
    await until('name is pruned on read', () => get(group, 'old').obj?.spec.name === undefined);
    assert.equal(stored(group, 'old').spec.size, 1);
    const strict = create(widget(group, 'new', { name: 'x' }), ['--validate=strict']);
    assert.notEqual(strict.status, 0);
    assert.match(strict.err, /unknown field "spec\.name"/);
    const warn = create(widget(group, 'new', { name: 'x' }), ['--validate=warn']);
    assert.equal(warn.status, 0);
    assert.match(warn.err, /unknown field "spec\.name"/);
  });

  it('preserve-unknown-fields-removed: undeclared fields are pruned as objects are read', async () => {
    const group = 'preserve.compat.example.com';
    const p = pair('preserve-unknown-removed', group);
    assert.deepEqual(p.rules, ['preserve-unknown-fields-removed']);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { extra: { x: 'declared', y: 'free' } }));
    assert.equal(stored(group, 'old').spec.extra.y, 'free');
    await install(p.after);
    await until('extra.y is pruned on read', () => get(group, 'old').obj?.spec.extra.y === undefined);
    assert.equal(stored(group, 'old').spec.extra.x, 'declared');
  });

  it('required-added: creates without the field are refused; a stored object without it can be updated while its spec is unchanged (ratcheting), not once the spec changes', async () => {
    const group = 'required.compat.example.com';
    const p = pair('required-added-new-field', group);
    assert.deepEqual(p.rules, ['required-added']);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 1 }));
    await install(p.after);
    await until('owner is required on create', () => create(widget(group, 'probe', { size: 1 })).status !== 0);
    assert.match(create(widget(group, 'probe', { size: 1 })).err, /spec\.owner: Required value/);
    assert.equal(stored(group, 'old').spec.size, 1);
    const labelled = update(group, 'old', (o) => {
      o.metadata.labels = { touched: 'yes' };
    });
    assert.equal(labelled.status, 0, `spec unchanged: ratcheted: ${labelled.err}`);
    const u = update(group, 'old', (o) => {
      o.spec.size = 2;
    });
    assert.notEqual(u.status, 0, 'an update that changes the spec must add the field');
    assert.match(u.err, /spec\.owner: Required value/);
  });

  it('nullable-removed: null values are dropped: sent from now on, and stored ones as they are read', async () => {
    const group = 'nullable.compat.example.com';
    const p = pair('nullable-removed', group);
    assert.deepEqual(p.rules, ['nullable-removed']);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { note: null }));
    assert.equal(stored(group, 'old').spec.note, null);
    await install(p.after);
    const dropped = () => {
      const r = kubectl(
        ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
        widget(group, 'probe', { note: null }),
      );
      return r.status === 0 && !('note' in (JSON.parse(r.out) as Obj).spec);
    };
    await until('a null note is dropped on create', dropped);
    assert.equal('note' in stored(group, 'old').spec, false, 'a stored null reads as absent');
  });

  it('list-type-changed (atomic -> map): stored duplicates stay readable and updatable (ratcheted); creates with duplicates are refused', async () => {
    const group = 'listtype.compat.example.com';
    const p = pair('list-type-atomic-to-map', group);
    assert.deepEqual(p.rules, ['list-type-changed']);
    await install(p.before);
    const dup = [
      { name: 'a', port: 1 },
      { name: 'a', port: 2 },
    ];
    ok(['create', '-f', '-'], widget(group, 'old', { ports: dup }));
    await install(p.after);
    await until(
      'duplicate keys are refused on create',
      () => create(widget(group, 'probe', { ports: dup })).status !== 0,
    );
    assert.match(create(widget(group, 'probe', { ports: dup })).err, /spec\.ports\[1\]: Duplicate value/);
    assert.equal(stored(group, 'old').spec.ports.length, 2);
    const same = update(group, 'old', (o) => {
      o.spec.size = 2;
    });
    assert.equal(same.status, 0, `the list unchanged: ratcheted: ${same.err}`);
    // 1.37 ratchets the duplicates themselves: an update adding an item to that list passes too.
    const changed = update(group, 'old', (o) => void o.spec.ports.push({ name: 'b', port: 3 }));
    assert.equal(changed.status, 0, changed.err);
    assert.equal(stored(group, 'old').spec.ports.length, 3);
  });

  it('default-changed: new objects get the new default; stored objects keep the value written with them', async () => {
    const group = 'default.compat.example.com';
    const p = pair('default-changed', group);
    assert.deepEqual(p.rules, ['default-changed']);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', {}));
    assert.equal(stored(group, 'old').spec.count, 1);
    await install(p.after);
    const defaulted = () => {
      const r = kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], widget(group, 'probe', {}));
      return r.status === 0 && (JSON.parse(r.out) as Obj).spec.count === 2;
    };
    await until('a new object gets count 2', defaulted);
    assert.equal(stored(group, 'old').spec.count, 1, 'the default was persisted with the object');
  });

  it('storage-version-changed (no webhook): conversion only rewrites apiVersion, so fields one version lacks are pruned when read through it', async () => {
    const group = 'storage.compat.example.com';
    const p = pair('storage-version-changed', group);
    assert.deepEqual(p.rules, ['storage-version-changed']);
    await install(p.before);
    await install(p.after);
    ok(['create', '-f', '-'], widget(group, 'new', { color: 'red' }, 'v2'));
    assert.equal(stored(group, 'new', 'v2').spec.color, 'red');
    const v1 = stored(group, 'new', 'v1');
    assert.equal(v1.apiVersion, `${group}/v1`);
    assert.equal('color' in v1.spec, false, 'read through v1: pruned');
    assert.equal(v1.spec.size, 1, 'the fields both declare are passed as they are');
  });

  it('type-changed: stored values are served as they are, unchanged ones ratcheted; updates and creates setting the old type refused', async () => {
    const group = 'type.compat.example.com';
    const p = pair('type-integer-to-string', group);
    assert.deepEqual(p.rules, ['type-changed']);
    await tightened(
      p,
      'type-changed',
      group,
      { size: 8 },
      (s) => {
        s.size = 9;
      },
      /spec\.size in body must be of type string: "integer"/,
    );
    assert.equal(
      typeof stored(group, 'old').spec.size,
      'number',
      'the stored integer is served as an integer, not converted',
    );
    assert.equal(create(widget(group, 'new', { size: '8' })).status, 0, 'a string is accepted');
  });

  it('format-changed: values not of the new format are ratcheted when stored and unchanged, refused on create and change', async () => {
    const group = 'format.compat.example.com';
    await tightened(
      pair('format-added', group),
      'format-changed',
      group,
      { name: 'NOT_A_HOST!' },
      (s) => {
        s.name = 'ALSO_BAD!';
      },
      /spec\.name in body must be of type hostname/,
    );
    const g2 = 'format2.compat.example.com';
    await tightened(
      pair('format-changed', g2),
      'format-changed',
      g2,
      { email: 'someone@example.com' },
      (s) => {
        s.email = 'other@example.com';
      },
      /spec\.email in body must be of type uri/,
    );
    const g3 = 'int32.compat.example.com';
    await tightened(
      pair('format-int64-to-int32', g3),
      'format-changed',
      g3,
      { size: 2 ** 40 },
      (s) => {
        s.size = 2 ** 40 + 1;
      },
      /Checked value must be of type integer with format int32/,
    );
  });

  it('format changes that are no finding: the server does not enforce the new format', async () => {
    for (const [name, spec] of [
      ['format-unchecked-added', { name: '!! not a label !!' }],
      ['format-password-added', { name: '!! anything !!' }],
      ['format-int32-to-int64', { size: 2 ** 40 }],
    ] as const) {
      const group = `${name}.compat.example.com`;
      const p = pair(name, group);
      assert.deepEqual(p.rules, [], name);
      await install(p.after);
      const c = create(widget(group, 'new', spec));
      assert.equal(c.status, 0, `${name}: ${c.err}`);
    }
  });

  it('map-type-changed: atomic -> granular merges server-side applies field by field; granular -> atomic makes them conflict, and a forced apply drops the fields it does not send', async () => {
    const group = 'maptype.compat.example.com';
    const p = pair('map-type-changed', group);
    assert.deepEqual(p.rules, ['map-type-changed']);
    for (const c of [p.before, p.after])
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.selector.properties.b = { type: 'string' };
    const apply = (manager: string, name: string, selector: Obj, force = false) =>
      kubectl(
        ['apply', '--server-side', `--field-manager=${manager}`, ...(force ? ['--force-conflicts'] : []), '-f', '-'],
        {
          apiVersion: `${group}/v1`,
          kind: 'Widget',
          metadata: { name, namespace: 'default' },
          spec: { size: 1, selector },
        },
      );
    assert.match(diffCRDs(p.before, p.after)[0].message, /merges the object field by field/);
    await install(p.before);
    assert.equal(apply('a', 'old', { a: 'x' }).status, 0);
    const atomic = apply('b', 'old', { b: 'y' });
    assert.notEqual(atomic.status, 0, 'atomic: another manager applying part of the map conflicts');
    assert.match(atomic.err, /conflict/i);
    await install(p.after);
    assert.deepEqual(stored(group, 'old').spec.selector, { a: 'x' }, 'the stored object is unchanged');
    await until('granular: the other manager merges its field', () => apply('b', 'old', { b: 'y' }).status === 0);
    assert.deepEqual(stored(group, 'old').spec.selector, { a: 'x', b: 'y' });

    // The other way: granular -> atomic.
    const back = diffCRDs(p.after, p.before);
    assert.deepEqual(
      back.map((f) => f.rule),
      ['map-type-changed'],
    );
    assert.match(
      back[0].message,
      /conflicts with the other managers of the object, and when forced drops the fields it does not send/,
    );
    await install(p.before);
    await until('atomic again: a partial apply conflicts', () => apply('a', 'old', { a: 'x2' }).status !== 0);
    assert.match(apply('a', 'old', { a: 'x2' }).err, /conflict/i);
    assert.equal(apply('a', 'old', { a: 'x2' }, true).status, 0);
    assert.deepEqual(stored(group, 'old').spec.selector, { a: 'x2' }, 'forced: the field it does not send is dropped');
  });

  it('status-subresource-removed: /status gets 404, and status is written through the object itself', async () => {
    const group = 'status.compat.example.com';
    const p = pair('status-subresource-removed', group);
    assert.deepEqual(p.rules, ['status-subresource-removed']);
    const patchStatus = (replicas: number, sub: boolean) =>
      kubectl([
        'patch',
        `widgets.${group}`,
        'old',
        '-n',
        'default',
        ...(sub ? ['--subresource=status'] : []),
        '--type=merge',
        '-p',
        JSON.stringify({ status: { replicas } }),
      ]);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 1 }));
    assert.equal(patchStatus(1, true).status, 0);
    assert.equal(patchStatus(2, false).status, 0);
    assert.equal(
      stored(group, 'old').status.replicas,
      1,
      'with the subresource, an update of the object ignores status',
    );
    await install(p.after);
    await until('/status is gone', () => patchStatus(3, true).status !== 0);
    assert.match(patchStatus(3, true).err, /NotFound|not found/);
    assert.equal(patchStatus(4, false).status, 0);
    assert.equal(stored(group, 'old').status.replicas, 4, 'without it, the object carries its status');
  });

  it('scale-paths-changed: /scale reads and writes the new path, and shows what the stored objects hold there', async () => {
    const group = 'scalepath.compat.example.com';
    const p = pair('scale-spec-replicas-path-changed', group);
    assert.deepEqual(p.rules, ['scale-paths-changed']);
    const replicas = () =>
      JSON.parse(ok(['get', '--raw', `/apis/${group}/v1/namespaces/default/widgets/old/scale`])).spec.replicas as
        | number
        | undefined;
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 3, count: 7 }));
    assert.equal(replicas(), 3);
    await install(p.after);
    await until('/scale reads .spec.count', () => replicas() === 7);
    ok(['scale', `widgets.${group}/old`, '-n', 'default', '--replicas=5']);
    const o = stored(group, 'old');
    assert.equal(o.spec.count, 5, 'kubectl scale writes the new path');
    assert.equal(o.spec.size, 3, 'the old path is left as it was');
  });

  it('status-subresource-added: updates of the object ignore status from now on', async () => {
    const group = 'statusadd.compat.example.com';
    const removed = pair('status-subresource-removed', group);
    const p = { before: removed.after, after: removed.before };
    assert.deepEqual(
      diffCRDs(p.before, p.after).map((f) => f.rule),
      ['status-subresource-added'],
    );
    assert.deepEqual(pair('subresources-added', group).rules, ['status-subresource-added']);
    const patchStatus = (replicas: number) =>
      kubectl([
        'patch',
        `widgets.${group}`,
        'old',
        '-n',
        'default',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { replicas } }),
      ]);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 1 }));
    assert.equal(patchStatus(1).status, 0);
    assert.equal(stored(group, 'old').status.replicas, 1);
    await install(p.after);
    await until(
      'status written with the object is ignored',
      () => patchStatus(2).status === 0 && stored(group, 'old').status.replicas === 1,
    );
    ok([
      'patch',
      `widgets.${group}`,
      'old',
      '-n',
      'default',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { replicas: 3 } }),
    ]);
    assert.equal(stored(group, 'old').status.replicas, 3, 'through /status it is written');
  });

  it('plural-changed: a CRD cannot change its plural in place; the new CRD has none of the stored objects', async () => {
    const group = 'plural.compat.example.com';
    const p = pair('plural-changed', group);
    p.after.metadata.name = `gadgets.${group}`;
    assert.deepEqual(
      diffCRDs(p.before, p.after).map((f) => f.rule),
      ['plural-changed'],
    );
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 1 }));
    const inPlace = kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], {
      ...p.after,
      metadata: { name: `widgets.${group}` },
    });
    assert.notEqual(inPlace.status, 0, 'the plural is immutable');
    assert.match(inPlace.err, /spec\.names\.plural: Invalid value: "gadgets": field is immutable/);
    assert.match(diffCRDs(p.before, p.after)[0].message, /spec\.names\.plural is immutable/);
    ok(['apply', '--server-side', '-f', '-'], p.after);
    const listed = kubectl(['get', `gadgets.${group}`, '-n', 'default', '-o', 'name']);
    assert.equal(
      listed.out.includes('old'),
      false,
      `the objects stored under widgets are not gadgets: ${listed.out}${listed.err}`,
    );
    assert.equal(get(group, 'old').status, 0, 'they stay under the old CRD (until it is deleted, with them)');
  });

  it('scale-subresource-removed: /scale gets 404 (kubectl scale fails)', async () => {
    const group = 'scale.compat.example.com';
    const p = pair('scale-subresource-removed', group);
    assert.deepEqual(p.rules, ['scale-subresource-removed']);
    const scale = (n: number) => kubectl(['scale', `widgets.${group}/old`, '-n', 'default', `--replicas=${n}`]);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 1 }));
    assert.equal(scale(3).status, 0);
    assert.equal(stored(group, 'old').spec.size, 3);
    await install(p.after);
    await until('/scale is gone', () => scale(4).status !== 0);
    assert.match(scale(4).err, /NotFound|not found/);
    assert.equal(stored(group, 'old').spec.size, 3);
  });

  it('every CRD of the corpus, before and after, is one the API server accepts (dry-run create)', () => {
    const refused: string[] = [];
    for (const f of readdirSync(corpus)
      .filter((x) => x.endsWith('.yaml'))
      .sort()) {
      const c = parse(readFileSync(join(corpus, f), 'utf8')) as { before: Obj; after: Obj };
      for (const [side, crd] of [
        ['before', c.before],
        ['after', c.after],
      ] as const) {
        const r = kubectl(['create', '--dry-run=server', '-f', '-'], crd);
        if (r.status !== 0) refused.push(`${f} ${side}: ${r.err.trim()}`);
      }
    }
    assert.deepEqual(refused, []);
  });

  it('scope-changed: the server refuses the CRD update', async () => {
    const group = 'scope.compat.example.com';
    const p = pair('scope-changed', group);
    assert.deepEqual(p.rules, ['scope-changed']);
    await install(p.before);
    ok(['create', '-f', '-'], widget(group, 'old', { size: 1 }));
    const r = kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], p.after);
    assert.notEqual(r.status, 0);
    assert.match(r.err, /spec\.scope: Invalid value: "Cluster": field is immutable/);
  });
});
