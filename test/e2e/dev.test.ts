/**
 * `kubeforge dev` end to end (issue #27's "Done when"), as a user runs it: pack kubeforge, init a
 * project, create an API with a defaulting + validating webhook, then run the installed
 * `kubeforge dev` (a local control plane from KUBEBUILDER_ASSETS, the real kube-apiserver) and
 * save files while it runs:
 *   - a type gains a field with a default: the CRD on the server gains it, and a new object gets the default;
 *   - the controller's event message changes: the next reconcile emits the new message;
 *   - the validator refuses an empty spec.foo: the next create is refused with the new message;
 *   - a type error: located (KF1410, a warning), and the new build runs anyway (--type-check async);
 *   - a syntax error: located (KF1405), and the old manager (same pid) still reconciles; the message
 *     says which build runs, since when;
 *   - 20 successive saves of one file, alternating saves by rename (vim, JetBrains, `sed -i`,
 *     write-file-atomic) and in place, then a delete and a re-create, then a `git checkout` of five
 *     files: each one reaches the running manager (the manager logs the marks the files hold, and
 *     the build number it runs);
 *   - SIGINT: exit 0, the manager, etcd and kube-apiserver are gone, the project's git status
 *     shows only the edits (and the regenerated CRD), .kubeforge/dev is ignored by git.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { initProject, MINUTES, ok, packKubeforge, sh } from './helpers.js';
import { must } from '../helpers/must.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-dev-'));
const project = join(work, 'fleet');
const GROUP = 'ship.example.com';
const CRD = `frigates.${GROUP}`;
const FRIGATES = `/apis/${GROUP}/v1/namespaces/default/frigates`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `kubeforge dev` running, its output collected; `waitFor` resolves when a pattern shows up after `from`. */
class DevRun {
  out = '';
  err = '';
  readonly proc: ChildProcess;
  readonly exited: Promise<number | null>;
  constructor(cwd: string) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    this.proc = spawn(join(cwd, 'node_modules/.bin/kubeforge'), ['dev'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    must(this.proc.stdout, 'this.proc.stdout').on('data', (c) => (this.out += c));
    must(this.proc.stderr, 'this.proc.stderr').on('data', (c) => (this.err += c));
    this.exited = new Promise((r) => this.proc.on('exit', (code) => r(code)));
  }
  /** The rebuild of a save of `file`: its change line after `from`, then the ready line after that. */
  async rebuilt(file: string, from: number): Promise<RegExpMatchArray> {
    const change = await this.waitFor(
      'out',
      new RegExp(`change +[^\\n]*${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      from,
    );
    return this.waitFor(
      'out',
      /ready +manager pid (\d+) runs build (\d+) \([^)]*\): save -> running in ([\d.]+ m?s)/,
      from + must(change.index, 'change.index'),
    );
  }
  async waitFor(stream: 'out' | 'err', re: RegExp, from: number, timeoutMs = 120_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = this[stream].slice(from).match(re);
      if (m) return m;
      if (this.proc.exitCode !== null)
        assert.fail(`kubeforge dev exited (${this.proc.exitCode}) before ${re}:\n${this.out}\n${this.err}`);
      if (Date.now() > deadline) assert.fail(`no ${re} within ${timeoutMs} ms:\n${this.out}\n${this.err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      assert.fail(`${what}: not within ${timeoutMs} ms${last ? ` (${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Replaces each [from, to] in `file` and writes it once (one save). */
function edit(file: string, ...replacements: [string | RegExp, string][]): void {
  const p = join(project, file);
  let text = readFileSync(p, 'utf8');
  for (const [from, to] of replacements) {
    const next = text.replace(from, to);
    assert.notEqual(next, text, `${file}: ${from} not found`);
    text = next;
  }
  writeFileSync(p, text);
}

const MARKS = ['a', 'b', 'c', 'd', 'e'];
const markFile = (m: string, value: string) => `export const ${m.toUpperCase()} = '${value}';\n`;
/** src/mark.ts: logs (JSON, as the manager logs) its mark, the five marks and the build it runs in. */
const markModule = (mark: string) =>
  `${MARKS.map((m) => `import { ${m.toUpperCase()} } from './marks/${m}.js';`).join('\n')}\n` +
  `export const MARK = '${mark}';\n` +
  `process.stdout.write(\`\${JSON.stringify({ msg: 'dev mark', mark: MARK, marks: [${MARKS.map((m) => m.toUpperCase()).join(', ')}].join('+'), build: process.env.KUBEFORGE_DEV_BUILD })}\\n\`);\n`;

/** The ways editors and tools save a file: by rename (four of them) and in place. */
const SAVES: Record<string, (file: string, text: string) => void> = {
  'in place': (file, text) => writeFileSync(file, text),
  'vim (backupcopy=no)': (file, text) => {
    renameSync(file, `${file}~`);
    writeFileSync(file, text);
    unlinkSync(`${file}~`);
  },
  'JetBrains safe write': (file, text) => {
    writeFileSync(`${file}___jb_tmp___`, text);
    renameSync(file, `${file}___jb_old___`);
    renameSync(`${file}___jb_tmp___`, file);
    unlinkSync(`${file}___jb_old___`);
  },
  'sed -i': (file, text) => {
    // The real sed: it writes a temporary file beside the original and renames it over.
    const current = must(
      readFileSync(file, 'utf8').match(/export const MARK = '([^']*)';/),
      `the MARK line of ${file}`,
    )[1];
    const next = must(text.match(/export const MARK = '([^']*)';/), 'the MARK line of the new text')[1];
    ok(
      sh('sed', ['-i', `s/export const MARK = '${current}';/export const MARK = '${next}';/`, file], project),
      'sed -i',
    );
  },
  'write-file-atomic': (file, text) => {
    writeFileSync(`${file}.${process.pid}.tmp`, text);
    renameSync(`${file}.${process.pid}.tmp`, file);
  },
};

describe('e2e: kubeforge dev on a generated project with webhooks', { timeout: 30 * MINUTES }, () => {
  let dev: DevRun | undefined;
  let rest: RestClient | undefined;

  before(() => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver',
    );
    const tarball = packKubeforge(work);
    mkdirSync(project);
    ok(initProject(project, tarball), 'kubeforge init');
    const kf = (args: string[]) =>
      ok(sh(join(project, 'node_modules/.bin/kubeforge'), args, project), `kubeforge ${args.join(' ')}`);
    kf(['create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--resource', '--controller']);
    kf([
      'create',
      'webhook',
      '--group',
      'ship',
      '--version',
      'v1',
      '--kind',
      'Frigate',
      '--defaulting',
      '--programmatic-validation',
    ]);
    // The manager logs what src/mark.ts and the five files of src/marks hold, and its build.
    mkdirSync(join(project, 'src/marks'));
    for (const m of MARKS) writeFileSync(join(project, `src/marks/${m}.ts`), markFile(m, 'base'));
    writeFileSync(join(project, 'src/mark.ts'), markModule('m0'));
    edit('src/main.ts', [/\nimport /, "\nimport './mark.js';\nimport "]);
    const git = (...args: string[]) =>
      ok(sh('git', ['-c', 'user.email=e2e@example.com', '-c', 'user.name=e2e', ...args], project), `git ${args[0]}`);
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'scaffold');
    // A branch where the five files differ, for the checkout.
    git('checkout', '-q', '-b', 'other');
    for (const m of MARKS) writeFileSync(join(project, `src/marks/${m}.ts`), markFile(m, 'other'));
    git('commit', '-qam', 'other marks');
    git('checkout', '-q', 'main');
  });

  after(async () => {
    rest?.close();
    if (dev && dev.proc.exitCode === null) {
      dev.proc.kill('SIGKILL');
      await dev.exited;
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('applies type, controller and validator edits while running; runs a build with type errors (warned) and keeps the old manager on a syntax error; 20 alternating saves, a delete and re-create and a git checkout each reach the manager; Ctrl-C leaves nothing behind', {
    timeout: 20 * MINUTES,
  }, async () => {
    dev = new DevRun(project);
    const d = dev;
    try {
      await steps(d);
    } catch (e) {
      // The whole log of kubeforge dev explains a failure better than the assertion alone.
      if (e instanceof Error) e.message += `\n--- kubeforge dev stdout ---\n${d.out}\n--- stderr ---\n${d.err}`;
      throw e;
    }
  });

  async function steps(d: DevRun): Promise<void> {
    const planeLine = await d.waitFor('out', /etcd pid (\d+), kube-apiserver pid (\d+)/, 0, 180_000);
    const [etcdPid, apiserverPid] = [Number(planeLine[1]), Number(planeLine[2])];
    const first = await d.waitFor('out', /manager running \(pid (\d+), build 1\).*watching src\//, 0, 300_000);
    const managers = [Number(first[1])];
    assert.match(d.out, /1 CRD\(s\), 1 ClusterRole\(s\), 2 webhook configuration\(s\)/);

    const kubeconfig = join(project, '.kubeforge/dev/kubeconfig');
    assert.ok(existsSync(kubeconfig), 'the kubeconfig is written for kubectl');
    assert.match(d.out, new RegExp(`export KUBECONFIG=${kubeconfig.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    rest = new RestClient(kc);
    const api = rest;

    // The webhook configurations point at the local server with the dev CA.
    const vwc = await api.get(
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating-webhook-configuration',
    );
    assert.match(
      vwc.webhooks[0].clientConfig.url,
      /^https:\/\/127\.0\.0\.1:\d+\/validate-ship-example-com-v1-frigate$/,
    );
    assert.equal(
      Buffer.from(vwc.webhooks[0].clientConfig.caBundle, 'base64').toString(),
      readFileSync(join(project, '.kubeforge/dev/certs/ca.crt'), 'utf8'),
    );

    // 1. A type gains a field with a default: the CRD on the server gains it.
    let mark = d.out.length;
    edit(
      'src/api/v1/frigate_types.ts',
      [/import \{ /, 'import { Default, int32, '],
      [
        '  foo?: string;\n',
        '  foo?: string;\n\n  /** crew is how many sailors serve on board. */\n  @Default(12)\n  crew?: int32;\n',
      ],
    );
    let ready = await d.rebuilt('src/api/v1/frigate_types.ts', mark);
    managers.push(Number(ready[1]));
    const crd = await api.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`);
    const crew = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.crew;
    assert.deepEqual(
      { type: crew.type, format: crew.format, default: crew.default },
      { type: 'integer', format: 'int32', default: 12 },
    );
    const created = await api.request('POST', FRIGATES, {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Frigate', metadata: { name: 'one' }, spec: { foo: 'a' } },
    });
    assert.equal(created.spec.crew, 12, 'the API server defaults the new field');

    // 2. The controller's event message changes: the next reconcile runs the new code.
    mark = d.out.length;
    edit('src/controller/frigate_controller.ts', [
      "'generation %d reconciled', generation",
      "'generation %d reconciled by the edited controller', generation",
    ]);
    ready = await d.rebuilt('src/controller/frigate_controller.ts', mark);
    managers.push(Number(ready[1]));
    await api.request('POST', FRIGATES, {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Frigate', metadata: { name: 'two' }, spec: { foo: 'b' } },
    });
    const eventFor = (name: string) =>
      eventually(`an event of the edited controller for ${name}`, async () => {
        const list = await api.get(
          `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${name}`)}`,
        );
        return (list.items as { message: string }[]).find(
          (e) => e.message === 'generation 1 reconciled by the edited controller',
        );
      });
    await eventFor('two');
    await d.waitFor(
      'out',
      /event +Normal Reconciled frigate\/default\/two: generation 1 reconciled by the edited controller/,
      mark,
    );
    await d.waitFor('out', /reconcile +frigate: \d+ done/, mark);

    // 3. The validator refuses an empty spec.foo: the next create is refused with the new message.
    mark = d.out.length;
    edit(
      'src/webhook/v1/frigate_webhook.ts',
      [/import \{ ([^}]*)\} from 'kubeforge\/runtime';/, "import { $1, FieldErrors, field } from 'kubeforge/runtime';"],
      [
        "ctx.logger.info({ name: obj.metadata?.name }, 'validation for Frigate upon creation');",
        "ctx.logger.info({ name: obj.metadata?.name }, 'validation for Frigate upon creation');\n    if (!obj.spec?.foo) throw new FieldErrors([field.required('spec.foo', 'a frigate needs a foo (edited validator)')]);",
      ],
    );
    ready = await d.rebuilt('src/webhook/v1/frigate_webhook.ts', mark);
    managers.push(Number(ready[1]));
    await assert.rejects(
      api.request('POST', FRIGATES, {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Frigate', metadata: { name: 'bare' }, spec: {} },
      }),
      (e: unknown) => e instanceof StatusError && /a frigate needs a foo \(edited validator\)/.test(e.message),
    );
    await d.waitFor('out', /validation for Frigate upon creation .*name=bare/, mark);

    // 4. A type error: located (KF1410), and the new build runs anyway (--type-check async).
    mark = d.out.length;
    let errMark = d.err.length;
    edit('src/controller/frigate_controller.ts', [
      '    return {};\n  }\n',
      "    const broken: number = 'not a number';\n    void broken;\n    return {};\n  }\n",
    ]);
    ready = await d.rebuilt('src/controller/frigate_controller.ts', mark);
    managers.push(Number(ready[1]));
    await d.waitFor('err', /KF1410/, errMark);
    assert.match(d.err.slice(errMark), /src\/controller\/frigate_controller\.ts\(\d+,\d+\): error TS2322/);
    await d.waitFor(
      'out',
      new RegExp(`typecheck +build ${ready[2]}: type errors \\(above\\); the manager runs it anyway`),
      mark,
    );

    // 4b. A syntax error: located (KF1405), the old manager keeps reconciling, and says since when.
    mark = d.out.length;
    errMark = d.err.length;
    edit('src/controller/frigate_controller.ts', [
      "    const broken: number = 'not a number';\n",
      '    const broken: number = ;\n',
    ]);
    await d.waitFor('err', /KF1405/, errMark);
    assert.match(
      d.err.slice(errMark),
      /src\/controller\/frigate_controller\.ts\(\d+,\d+\): error TS1109: Expression expected/,
    );
    await d.waitFor(
      'out',
      new RegExp(
        `build \\d+ does not compile: the running manager \\(pid ${ready[1]}\\) is the previous build, build ${ready[2]}, running since \\d\\d:\\d\\d:\\d\\d \\(\\d+ s ago\\); save a fix`,
      ),
      mark,
    );
    const current = managers[managers.length - 1];
    assert.ok(alive(current), 'the previous manager still runs');
    assert.doesNotMatch(d.out.slice(mark), /ready +manager pid/);
    await api.request('POST', FRIGATES, {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Frigate', metadata: { name: 'three' }, spec: { foo: 'c' } },
    });
    await eventFor('three');
    mark = d.out.length;
    edit('src/controller/frigate_controller.ts', ['    const broken: number = ;\n', '    const broken = 1;\n']);
    ready = await d.rebuilt('src/controller/frigate_controller.ts', mark);
    managers.push(Number(ready[1]));

    // 5. Every save reaches the running manager: 20 of one file, alternating by rename and in place.
    const markTs = join(project, 'src/mark.ts');
    const byRename = Object.keys(SAVES).filter((k) => k !== 'in place');
    const reaches = async (markValue: string, marks: string, from: number, what: string) => {
      const line = await d
        .waitFor(
          'out',
          new RegExp(`manager +dev mark +mark=${markValue} marks=${marks.replace(/\+/g, '\\+')} build=(\\d+)`),
          from,
          60_000,
        )
        .catch((e: Error) => assert.fail(`${what}: ${e.message}`));
      const r = await d.waitFor('out', /ready +manager pid (\d+) runs build (\d+)/, from, 60_000);
      assert.equal(line[1], r[2], `${what}: the manager runs the build its ready line names`);
      managers.push(Number(r[1]));
    };
    const base = MARKS.map(() => 'base').join('+');
    for (let i = 1; i <= 20; i++) {
      const how = i % 2 === 0 ? 'in place' : byRename[((i - 1) / 2) % byRename.length];
      mark = d.out.length;
      SAVES[how](markTs, markModule(`m${i}`));
      await reaches(`m${i}`, base, mark, `save ${i} (${how})`);
    }
    // A delete (the manager cannot load without it) and a re-create.
    mark = d.out.length;
    unlinkSync(markTs);
    await d.waitFor('out', /change +build \d+: src\/mark\.ts \(deleted\)/, mark);
    await d.waitFor('err', /KF1406/, 0);
    assert.equal(existsSync(join(project, '.kubeforge/dev/build/src/mark.js')), false, 'its output is removed');
    mark = d.out.length;
    writeFileSync(markTs, markModule('recreated'));
    await reaches('recreated', base, mark, 're-created');
    // A git checkout of five files.
    mark = d.out.length;
    ok(sh('git', ['checkout', '-q', 'other'], project), 'git checkout other');
    await reaches('recreated', MARKS.map(() => 'other').join('+'), mark, 'git checkout of five files');

    // 6. Ctrl-C: nothing left behind.
    d.proc.kill('SIGINT');
    assert.equal(await d.exited, 0, `kubeforge dev exit code\n${d.out}\n${d.err}`);
    assert.match(d.out, /local control plane stopped/);
    for (const pid of [...managers, etcdPid, apiserverPid]) assert.equal(alive(pid), false, `pid ${pid} is gone`);
    assert.equal(existsSync(kubeconfig), false, 'the kubeconfig of the stopped plane is removed');
    assert.equal(existsSync(join(project, '.kubeforge/dev/plane')), false, 'the plane data is removed');
    const status = ok(sh('git', ['status', '--porcelain', '--untracked-files=all'], project), 'git status');
    assert.deepEqual(status.split('\n').filter(Boolean).sort(), [
      ' M config/crd/bases/ship.example.com_frigates.yaml',
      ' M src/api/v1/frigate_types.ts',
      ' M src/controller/frigate_controller.ts',
      ' M src/mark.ts',
      ' M src/webhook/v1/frigate_webhook.ts',
    ]);
    ok(
      sh('git', ['check-ignore', '-q', '.kubeforge/dev/build/src/main.js'], project),
      '.kubeforge/dev is ignored by git',
    );
  }
});
