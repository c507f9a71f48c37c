// kubeforge/runtime's label selectors where the runtime takes them: list / deleteAllOf, the
// cache's labelSelector options, labelSelectorPredicate; and nothing() refused as a query. The
// selectors' own parse, print, match and messages are judged by apimachinery in
// test/oracle/apimachinery.test.ts; here, against the fake API server (no binaries).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1ConfigMap, V1LabelSelector } from '@kubernetes/client-node';
import { newCache } from '../../../src/runtime/cache/index.js';
import {
  everything,
  InvalidSelectorError,
  labelSelectorAsSelector,
  nothing,
  parseSelector,
  selectorFromSet,
} from '../../../src/runtime/client/index.js';
import { parseLabelSelector, matchesLabels, selectorString } from '../../../src/runtime/client/selector.js';
import { labelSelectorPredicate } from '../../../src/runtime/controller/index.js';
import { type FakeClient, newFakeClient } from '../../../src/testing/index.js';
import { must } from '../../helpers/must.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const cm = (name: string, labels: Record<string, string>): V1ConfigMap => ({
  ...CM,
  metadata: { name, namespace: 'default', labels },
});
const SETS: Record<string, string>[] = [
  {},
  { app: 'web' },
  { app: 'db', tier: 'x' },
  { tier: 'x' },
  { app: 'web', env: 'prod' },
];

describe('label selectors in kubeforge/runtime', () => {
  let c: FakeClient;
  before(async () => {
    c = await newFakeClient({
      objects: [
        cm('web', { app: 'web' }),
        cm('web-prod', { app: 'web', env: 'prod' }),
        cm('db', { app: 'db', tier: 'x' }),
        cm('bare', {}),
      ],
    });
  });
  after(async () => {
    await c?.close();
  });

  const names = (items: { metadata?: { name?: string } }[]) => items.map((o) => o.metadata?.name).sort();

  it('list({ labelSelector }) takes a Selector, sent as its String()', async () => {
    const sel = labelSelectorAsSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }],
    });
    assert.equal(selectorString(sel), 'app=web,!env', 'sorted by key, as Go prints it');
    assert.deepEqual(names((await c.list<V1ConfigMap>(CM, { namespace: 'default', labelSelector: sel })).items), [
      'web',
    ]);
    const parsed = parseSelector('app in (db,web), env notin (dev)');
    assert.deepEqual(names((await c.list<V1ConfigMap>(CM, { namespace: 'default', labelSelector: parsed })).items), [
      'db',
      'web',
      'web-prod',
    ]);
    assert.equal(selectorString(everything()), undefined, 'everything() is no query at all');
  });

  it('nothing() (an absent metav1.LabelSelector) is refused as a query instead of selecting everything', async () => {
    await assert.rejects(
      c.list(CM, { namespace: 'default', labelSelector: labelSelectorAsSelector(undefined) }),
      /selects no object, and as a query it would select every object/,
    );
    await assert.rejects(c.deleteAllOf(CM, { namespace: 'default', labelSelector: nothing() }), /matchesNothing/);
    assert.equal((await c.list(CM, { namespace: 'default' })).items.length >= 4, true, 'nothing was deleted');
  });

  it('the cache takes a Selector as a per-type or default labelSelector, and in list', async () => {
    const cache = newCache(c.server.config, {
      byObject: [{ object: CM, labelSelector: parseSelector('app') }],
    });
    const stop = new AbortController();
    void cache.start(stop.signal);
    try {
      assert.deepEqual(names((await cache.list<V1ConfigMap>(CM, { namespace: 'default' })).items), [
        'db',
        'web',
        'web-prod',
      ]);
      const sel = labelSelectorAsSelector({ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] });
      assert.deepEqual(names((await cache.list<V1ConfigMap>(CM, { namespace: 'default', labelSelector: sel })).items), [
        'web-prod',
      ]);
      await assert.rejects(cache.list(CM, { namespace: 'default', labelSelector: nothing() }), /matchesNothing/);
    } finally {
      stop.abort();
    }
  });

  it("the cache's in-memory match of a Selector agrees with the Selector's own", () => {
    for (const s of [
      '',
      'app',
      '!app',
      'app=web',
      'app==web',
      'app!=web',
      'app in (web,db)',
      'app notin (web)',
      'tier,app=db',
    ]) {
      const sel = parseSelector(s);
      const reqs = parseLabelSelector(sel);
      for (const labels of SETS)
        assert.equal(matchesLabels(reqs, labels), sel.matches(labels), `${s} on ${JSON.stringify(labels)}`);
    }
  });

  it("labelSelectorPredicate takes a metav1.LabelSelector (controller-runtime's LabelSelectorPredicate), a Selector or a label map", () => {
    const obj = (labels?: Record<string, string>) => ({ object: { ...CM, metadata: { name: 'x', labels } } });
    const ls: V1LabelSelector = { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'db'] }] };
    const byLabelSelector = labelSelectorPredicate(ls);
    assert.deepEqual(
      SETS.map((l) => must(byLabelSelector.create, 'byLabelSelector.create')(obj(l))),
      SETS.map((l) => labelSelectorAsSelector(ls).matches(l)),
    );
    assert.equal(
      must(
        labelSelectorPredicate(parseSelector('!app')).create,
        "labelSelectorPredicate(parseSelector('!app')).create",
      )(obj(undefined)),
      true,
    );
    assert.equal(
      must(
        labelSelectorPredicate({ app: 'web' }).create,
        "labelSelectorPredicate({ app: 'web' }).create",
      )(obj({ app: 'web', env: 'prod' })),
      true,
    );
    assert.equal(
      must(
        labelSelectorPredicate({ app: 'web' }).create,
        "labelSelectorPredicate({ app: 'web' }).create",
      )(obj({ app: 'db' })),
      false,
    );
    assert.equal(
      must(labelSelectorPredicate({}).create, 'labelSelectorPredicate({}).create')(obj(undefined)),
      true,
      'an empty selector selects everything',
    );
    assert.equal(
      must(
        labelSelectorPredicate(selectorFromSet({ tier: 'x' })).update,
        "labelSelectorPredicate(selectorFromSet({ tier: 'x' })).update",
      )({
        objectOld: obj().object,
        objectNew: obj({ tier: 'x' }).object,
      }),
      true,
    );
    assert.throws(
      () => labelSelectorPredicate({ matchExpressions: [{ key: 'app', operator: 'Equals', values: ['web'] }] }),
      (e) => e instanceof InvalidSelectorError && e.message === '"Equals" is not a valid label selector operator',
    );
  });

  it('an invalid selector throws InvalidSelectorError with the field errors behind the message', () => {
    assert.throws(
      () => parseSelector('app in (a b)'),
      (e) =>
        e instanceof InvalidSelectorError &&
        e.message === "unable to parse requirement: found 'b', expected: ',' or ')'",
    );
    assert.throws(
      () => labelSelectorAsSelector({ matchExpressions: [{ key: 'app', operator: 'In', values: ['bad value'] }] }),
      (e) =>
        e instanceof InvalidSelectorError &&
        e.errors.length === 1 &&
        e.errors[0].field === 'values[0][app]' &&
        e.message.startsWith('values[0][app]: Invalid value: "bad value": a valid label must be'),
    );
  });
});
