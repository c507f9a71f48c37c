/**
 * End to end: the scaffolded controller tests of two namespaced Kinds share one API server (the
 * project's `npm test`, kubeforge test), and each one's manager caches only its own file's
 * namespace, so it never reconciles the other file's objects. One Kind is scaffolded by plain
 * `create api` (Frigate), the other by the deploy-image plugin (Tender): both templates are checked.
 *
 * The files run one after the other, so a manager can only meet objects an earlier file left
 * behind. Each test file is instrumented (and otherwise run as scaffolded): its `before` leaves an
 * object of the OTHER Kind in its namespace, never deleted; its manager's reconciler records the
 * namespace of every request it gets; its manager test ends by asserting that only its own
 * namespace was reconciled. The files run in both orders, so each manager meets a leftover of its
 * Kind in the other file's namespace once: without `cache: { defaultNamespaces: [namespace] }` it
 * would list and reconcile it, and the test fails.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { initProject, MINUTES, ok, packKubeforge, sh, KUBEFORGE_TEST } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-isolation-'));
const project = join(work, 'fleet');

const FRIGATE = ['create', 'api', '--group', 'fleet', '--version', 'v1', '--kind', 'Frigate'];
const TENDER = [
  'create',
  'api',
  '--group',
  'fleet',
  '--version',
  'v1',
  '--kind',
  'Tender',
  '--plugins',
  'deploy-image/v1-alpha',
  '--image',
  'busybox:1.36',
];

// Each is one test body for both tiers (the fake API server, then the real one), Tender's
// (deploy-image) as Frigate's.
const FRIGATE_TEST = 'build/test/controller/frigate_controller.both.test.js';
const TENDER_TEST = 'build/test/controller/tender_controller.both.test.js';

/** Replaces the one match of `pattern` in `text`, failing when there is not exactly one. */
function replaceOnce(text: string, pattern: RegExp, replacement: string, what: string): string {
  const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
  assert.equal([...text.matchAll(global)].length, 1, `one ${what} in the scaffolded test`);
  return text.replace(pattern, replacement);
}

/**
 * Instruments the scaffolded test of `kind` (test/controller/<kind>_controller.both.test.ts): leaves
 * `leftover` (an object of the other Kind, in this file's namespace) behind, records the
 * namespaces the manager's reconciler is asked about, and asserts at the end of the manager test
 * that they are this file's namespace only. It prints one `isolation <Kind>:` line, with the number
 * of <Kind> objects in other namespaces at that moment (the objects the manager must not see).
 */
function instrument(kind: string, leftover: string): void {
  const file = join(project, `test/controller/${kind.toLowerCase()}_controller.both.test.ts`);
  let text = readFileSync(file, 'utf8');
  text = replaceOnce(
    text,
    /^( *)(await client\.create\(\{ apiVersion: 'v1', kind: 'Namespace', metadata: \{ name: namespace \} \}\);)$/m,
    `$1$2\n$1// e2e: left behind for the test file run next, whose manager must not see it.\n$1await client.create(${leftover});`,
    'Namespace creation',
  );
  text = replaceOnce(
    text,
    /^( *)new (\w+Reconciler)\(mgr\.getClient\(\), (mgr\.getEventRecorder\('[\w-]+'\))\)\.setupWithManager\(mgr\);$/m,
    [
      '$1// e2e: the namespace of every request this manager reconciles.',
      '$1const reconciled = new Set<string>();',
      '$1const managed = new $2(mgr.getClient(), $3);',
      '$1const reconcile = managed.reconcile.bind(managed);',
      '$1managed.reconcile = (req, ctx) => {',
      "$1  reconciled.add(req.namespace ?? '');",
      '$1  return reconcile(req, ctx);',
      '$1};',
      '$1managed.setupWithManager(mgr);',
    ].join('\n'),
    "manager's reconciler",
  );
  text = replaceOnce(
    text,
    /^( *)\} finally \{\n( *)stop\.abort\(\);$/m,
    [
      `$2const elsewhere = (await client.list(${kind})).items.filter((o) => o.metadata?.namespace !== namespace).length;`,
      `$2console.log(\`isolation ${kind}: reconciled \${JSON.stringify([...reconciled])} in \${namespace}; ${kind} objects in other namespaces: \${elsewhere}\`);`,
      "$2assert.deepEqual([...reconciled], [namespace], 'the manager reconciled requests of its own namespace only');",
      '$1} finally {',
      '$2stop.abort();',
    ].join('\n'),
    'end of the manager test',
  );
  writeFileSync(file, text);
}

describe("e2e: two scaffolded test files' managers on one API server never reconcile each other's objects", {
  timeout: 20 * MINUTES,
}, () => {
  const kubeforge = (args: string[]) => sh(join(project, 'node_modules/.bin/kubeforge'), args, project);

  before(() => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (npm test sets it)',
    );
    const tarball = packKubeforge(work);
    mkdirSync(project);
    ok(initProject(project, tarball), 'kubeforge init');
    ok(kubeforge(FRIGATE), 'kubeforge create api Frigate');
    ok(kubeforge(TENDER), 'kubeforge create api Tender --plugins deploy-image/v1-alpha');
    instrument(
      'Frigate',
      "{ apiVersion: 'fleet.example.com/v1', kind: 'Tender', metadata: { name: 'left-behind', namespace }, spec: { size: 1 } }",
    );
    instrument(
      'Tender',
      "{ apiVersion: 'fleet.example.com/v1', kind: 'Frigate', metadata: { name: 'left-behind', namespace }, spec: { foo: 'bar' } }",
    );
    ok(sh('npm', ['run', 'build'], project), 'npm run build');
  });

  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  for (const [first, second] of [
    [FRIGATE_TEST, TENDER_TEST],
    [TENDER_TEST, FRIGATE_TEST],
  ]) {
    const kindOf = (file: string) => (file === FRIGATE_TEST ? 'Frigate' : 'Tender');
    it(`${kindOf(first)}'s file, then ${kindOf(second)}'s on the same control plane: the second manager leaves the first file's ${kindOf(second)} alone`, {
      timeout: 5 * MINUTES,
    }, () => {
      const r = sh(process.execPath, [...KUBEFORGE_TEST, first, second], project);
      const out = ok(r, `kubeforge test ${first} ${second}`);
      assert.match(r.stderr, /^test: one control plane \(kube-apiserver pid \d+\) for 2 test file\(s\)$/m);
      assert.match(out, /^# fail 0$/m);
      for (const kind of ['Frigate', 'Tender']) {
        assert.match(
          out,
          new RegExp(`^\\s*ok \\d+ - runs in a manager: .*${kind}`, 'm'),
          `the ${kind} manager test passed:\n${out}`,
        );
      }
      // Not vacuous: while the second file's manager ran, the first had left a Kind it watches.
      // (The last such line: each file reports from the unit tier first, on its own fake.)
      const line = [
        ...out.matchAll(
          new RegExp(
            `^\\s*# isolation ${kindOf(second)}: reconciled \\["(test-[0-9a-f]{8})"\\] in \\1; ${kindOf(second)} objects in other namespaces: (\\d+)$`,
            'gm',
          ),
        ),
      ].at(-1);
      assert.ok(line, `the ${kindOf(second)} manager test reported what it reconciled:\n${out}`);
      assert.ok(
        Number(line[2]) >= 1,
        `a ${kindOf(second)} of the first file existed in another namespace:\n${line[0]}`,
      );
    });
  }
});
