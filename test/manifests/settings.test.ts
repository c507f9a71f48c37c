/**
 * The manifests options as data: PROJECT's `manifests.kubeforge.io/v1-alpha` record (settings.ts)
 * read and checked (a bad value is KF1098 at its key, with the fix), written with the rest of
 * PROJECT kept, and read under the flags an older project's package.json `manifests` script still
 * passes (those win). Through the CLI: a bad record exits 1 with nothing written, a run on an older
 * project changes no file but the manifests, and a flag given by hand against the script warns.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import {
  checkGivenSettings,
  describeSettings,
  projectManifestsSettings,
  projectWithSettings,
  recordedSettings,
} from '../../src/manifests/settings.js';
import { K8S_NEWEST_VERSION, K8S_VERSIONS } from '../../src/manifests/k8s-version.js';
import { ProjectFile, serializeProject } from '../../src/project/index.js';
import { treeHash } from '../helpers/tree.js';
import { kubeforgeIn, linkKubeforgeDependencies } from '../helpers/cli.js';
import { must } from '../helpers/must.js';

const repo = process.env.KUBEFORGE_REPO_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const work = mkdtempSync(join(tmpdir(), 'kf-settings-'));
after(() => rmSync(work, { recursive: true, force: true }));

const OLDEST = K8S_VERSIONS[0];

const BASE = serializeProject({
  version: '3',
  domain: 'kubeforge.io',
  layout: ['typescript.kubeforge.io/v1'],
  projectName: 'fixture-maxdesclen',
  repo: 'fixture-maxdesclen',
  resources: [],
  extra: { cliVersion: '0.1.0', plugins: { 'grafana.kubebuilder.io/v1-alpha': {} } },
});

/** PROJECT with this YAML as its manifests record (the lines under the plugin id). */
const withRecord = (lines: string) =>
  BASE.replace(
    '  grafana.kubebuilder.io/v1-alpha: {}\n',
    `  grafana.kubebuilder.io/v1-alpha: {}\n  manifests.kubeforge.io/v1-alpha:\n${lines
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n')}\n`,
  );

function kf1098(text: string): { message: string; line?: number; hint?: string; file?: string } {
  try {
    projectManifestsSettings(text, '/p/PROJECT');
  } catch (e) {
    assert.ok(e instanceof DiagnosticError, String(e));
    assert.equal(e.diagnostics[0].code, 'KF1098');
    return e.diagnostics[0];
  }
  assert.fail(`no KF1098 for:\n${text}`);
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('the options given to a run, checked once (checkGivenSettings)', () => {
  it('takes a whole number (typed or a number), a supported minor, and the switch; refuses the rest with KF1093 / KF1097', () => {
    assert.deepEqual(checkGivenSettings({ maxDescLen: ' 40', k8sVersion: `v${OLDEST}.2`, embeddedObjectMeta: true }), {
      maxDescLen: 40,
      k8sVersion: OLDEST,
      embeddedObjectMeta: true,
    });
    assert.deepEqual(checkGivenSettings({ maxDescLen: 0, embeddedObjectMeta: false }), {
      maxDescLen: 0,
      k8sVersion: undefined,
      embeddedObjectMeta: undefined,
    });
    for (const maxDescLen of ['-1', 'ten', '1.5', -1, 1.5])
      assert.throws(
        () => checkGivenSettings({ maxDescLen }),
        (e: unknown) =>
          e instanceof DiagnosticError &&
          e.diagnostics[0].code === 'KF1093' &&
          e.diagnostics[0].message ===
            `invalid --max-desc-len "${maxDescLen}": expected a whole number of bytes, 0 or more`,
      );
    assert.throws(
      () => checkGivenSettings({ k8sVersion: '1.20' }),
      (e: unknown) => e instanceof DiagnosticError && e.diagnostics[0].code === 'KF1097',
    );
  });
});

describe("PROJECT's manifests record", () => {
  it('reads the three options, and nothing from a PROJECT without the record', () => {
    const text = withRecord(`generateEmbeddedObjectMeta: true\nk8sVersion: "${OLDEST}"\nmaxDescLen: 0`);
    assert.deepEqual(projectManifestsSettings(text, 'PROJECT'), {
      maxDescLen: 0,
      k8sVersion: OLDEST,
      embeddedObjectMeta: true,
    });
    assert.deepEqual(projectManifestsSettings(withRecord('generateEmbeddedObjectMeta: false'), 'PROJECT'), {});
    assert.deepEqual(projectManifestsSettings(BASE, 'PROJECT'), {});
    assert.deepEqual(projectManifestsSettings(undefined, 'PROJECT'), {});
    assert.deepEqual(
      projectManifestsSettings(BASE.replace('{}\n', '{}\n  manifests.kubeforge.io/v1-alpha: {}\n'), 'PROJECT'),
      {},
    );
  });

  it('refuses a bad value with KF1098 at its key (PROJECT, its line) and the fix', () => {
    const cases: [string, string, RegExp, RegExp][] = [
      ['maxDescLen: -1', 'maxDescLen', /maxDescLen is -1, not a whole number/, /maxDescLen: 0/],
      ['maxDescLen: "40"', 'maxDescLen', /maxDescLen is "40"/, /maxDescLen: 80/],
      ['k8sVersion: "1.20"', 'k8sVersion', /k8sVersion is "1\.20", not a Kubernetes minor/, /as a quoted string/],
      [
        'k8sVersion: 1.30',
        'k8sVersion',
        /is the number 1\.3, not a string: YAML reads the unquoted 1\.3 as a number/,
        /k8sVersion: "1\.\d+"/,
      ],
      ['k8sVersion: 1.36', 'k8sVersion', /is the number 1\.36, not a string/, /as a quoted string/],
      ['maxDescLen: .inf', 'maxDescLen', /maxDescLen is Infinity, not a whole number/, /maxDescLen: 0/],
      [
        'maxDescLen: 99999999999999999999',
        'maxDescLen',
        /maxDescLen is 100000000000000000000, not a whole number/,
        /maxDescLen: 0/,
      ],
      ['generateEmbeddedObjectMeta: "yes"', 'generateEmbeddedObjectMeta', /not true or false/, /: true/],
      ['maxDescLength: 0', 'maxDescLength', /maxDescLength is not an option kubeforge knows/, /rename or remove/],
    ];
    for (const [yaml, key, message, hint] of cases) {
      const text = withRecord(`generateEmbeddedObjectMeta: true\n${yaml}`);
      const d = kf1098(text);
      assert.match(d.message, message, yaml);
      assert.match(d.message, new RegExp(`^PROJECT plugins\\.manifests\\.kubeforge\\.io/v1-alpha\\.${key} `), yaml);
      assert.match(must(d.hint, 'd.hint'), hint, yaml);
      assert.equal(d.file, '/p/PROJECT');
      assert.equal(d.line, lineOf(text, `${key}:`), yaml);
    }
    const notMap = BASE.replace('{}\n', '{}\n  manifests.kubeforge.io/v1-alpha: 40\n');
    const d = kf1098(notMap);
    assert.match(d.message, /is not a map of options/);
    assert.equal(d.line, lineOf(notMap, 'manifests.kubeforge.io'));
    // plugins written as a list (Kubebuilder refuses to read such a PROJECT): refused, not ignored.
    const list = BASE.replace(
      /plugins:\n {2}grafana\.kubebuilder\.io\/v1-alpha: \{\}\n/,
      'plugins:\n  - manifests.kubeforge.io/v1-alpha:\n      maxDescLen: 0\n',
    );
    assert.notEqual(list, BASE);
    assert.match(kf1098(list).message, /PROJECT plugins is not a map of plugin ids/);
  });

  it('records given options, the rest of PROJECT kept; nothing when PROJECT already says so', () => {
    const once = must(projectWithSettings(BASE, 'PROJECT', { maxDescLen: 0 }), 'a changed PROJECT');
    assert.deepEqual(once.changed, { maxDescLen: 0 });
    assert.equal(once.text, withRecord('maxDescLen: 0'));
    assert.equal(projectWithSettings(once.text, 'PROJECT', { maxDescLen: 0 }), undefined);
    const twice = must(
      projectWithSettings(once.text, 'PROJECT', { k8sVersion: OLDEST, maxDescLen: 0 }),
      'a changed PROJECT',
    );
    assert.deepEqual(twice.changed, { k8sVersion: OLDEST });
    assert.equal(twice.text, withRecord(`k8sVersion: "${OLDEST}"\nmaxDescLen: 0`));
    assert.equal(
      describeSettings({ maxDescLen: 0, k8sVersion: OLDEST, embeddedObjectMeta: true }),
      `maxDescLen 0, k8sVersion ${OLDEST}, generateEmbeddedObjectMeta true`,
    );
    const parsed = ProjectFile.parse(twice.text).config;
    assert.deepEqual(parsed.extra?.plugins, {
      'grafana.kubebuilder.io/v1-alpha': {},
      'manifests.kubeforge.io/v1-alpha': { k8sVersion: OLDEST, maxDescLen: 0 },
    });
  });

  it("an older project's script flags win over the record; a bad script --k8s-version is located in package.json", () => {
    const files: Record<string, string> = {
      PROJECT: withRecord(`k8sVersion: "${K8S_NEWEST_VERSION}"\nmaxDescLen: 80`),
      'package.json': JSON.stringify({
        scripts: { manifests: `kubeforge manifests --max-desc-len 0 --k8s-version ${OLDEST}` },
      }),
    };
    const source = { read: (p: string) => files[p], projectDir: '/p' };
    assert.deepEqual(recordedSettings(source), { maxDescLen: 0, k8sVersion: OLDEST, embeddedObjectMeta: undefined });
    files['package.json'] = JSON.stringify({ scripts: { manifests: 'kubeforge manifests' } });
    assert.deepEqual(recordedSettings(source), {
      maxDescLen: 80,
      k8sVersion: K8S_NEWEST_VERSION,
      embeddedObjectMeta: undefined,
    });
    // A script --max-desc-len that `make manifests` would refuse is refused where it is written.
    for (const flag of ['--max-desc-len abc', '--max-desc-len=-5', '--max-desc-len']) {
      files['package.json'] = `{\n  "scripts": {\n    "manifests": "kubeforge manifests ${flag}"\n  }\n}\n`;
      assert.throws(
        () => recordedSettings(source),
        (e: unknown) =>
          e instanceof DiagnosticError &&
          e.diagnostics[0].code === 'KF1093' &&
          /in package\.json's manifests script/.test(e.diagnostics[0].message) &&
          e.diagnostics[0].file === '/p/package.json' &&
          e.diagnostics[0].line === 3,
        flag,
      );
    }
    files['package.json'] = '{\n  "scripts": {\n    "manifests": "kubeforge manifests --k8s-version 1.2"\n  }\n}\n';
    assert.throws(
      () => recordedSettings(source),
      (e: unknown) =>
        e instanceof DiagnosticError &&
        e.diagnostics[0].code === 'KF1097' &&
        e.diagnostics[0].file === '/p/package.json' &&
        e.diagnostics[0].line === 3,
    );
  });
});

function stage(name: string, project: string, script = 'kubeforge manifests'): string {
  const dir = join(work, name);
  cpSync(join(repo, 'test/fixtures/manifests/maxdesclen'), dir, { recursive: true });
  writeFileSync(join(dir, 'PROJECT'), project);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'fixture-maxdesclen', private: true, type: 'module', scripts: { manifests: script } }, null, 2)}\n`,
  );
  linkKubeforgeDependencies(repo, dir);
  return dir;
}

const kubeforge = (cwd: string, ...args: string[]) => kubeforgeIn(cwd, ...args, '--generator-version', 'test');

const CRD = 'config/crd/bases/fixtures.kubeforge.io_ships.yaml';

describe('kubeforge manifests and the record (CLI)', () => {
  it('a bad record: exit 1, KF1098 located at PROJECT with its fix, nothing written (a flag given too)', async () => {
    const text = withRecord('maxDescLen: lots');
    const dir = stage('bad', text);
    const before = treeHash(dir);
    for (const args of [[], ['--max-desc-len', '0'], ['--dry-run']]) {
      const r = await kubeforge(dir, 'manifests', ...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.err, /KF1098 +PROJECT plugins\.manifests\.kubeforge\.io\/v1-alpha\.maxDescLen is "lots"/);
      assert.ok(r.err.includes(`PROJECT:${lineOf(text, 'maxDescLen:')}`), r.err);
      assert.match(r.err, /hint: write e\.g\. "maxDescLen: 0"/);
    }
    assert.equal(treeHash(dir), before);
  });

  it('an older project whose script passes the flags: the same manifests, no other file changed; a flag typed against the script is recorded with a warning', async () => {
    // The same options, once in the script (an older project), once in PROJECT.
    const legacy = stage('legacy', BASE, 'kubeforge manifests --max-desc-len 20');
    const recorded = stage('recorded', withRecord('maxDescLen: 20'));
    for (const dir of [legacy, recorded]) {
      const r = await kubeforge(dir, 'manifests');
      assert.equal(r.code, 0, r.err);
      assert.doesNotMatch(r.out, /PROJECT|package\.json/);
    }
    assert.equal(readFileSync(join(legacy, CRD), 'utf8'), readFileSync(join(recorded, CRD), 'utf8'));
    assert.match(readFileSync(join(legacy, CRD), 'utf8'), /description: ShipSpec defines\.\.\./);
    // make manifests on the older project passes the script's flag: nothing recorded, no warning.
    const make = await kubeforge(legacy, 'manifests', '--max-desc-len', '20');
    assert.equal(make.code, 0, make.err);
    assert.equal(make.out, 'manifests are up to date\n');
    assert.equal(make.err, '');
    assert.equal(readFileSync(join(legacy, 'PROJECT'), 'utf8'), BASE);
    // Another value by hand: used for the run and recorded, and the script that overrides it named.
    const typed = await kubeforge(legacy, 'manifests', '--max-desc-len', '0');
    assert.equal(typed.code, 0, typed.err);
    assert.match(typed.out, /^UPDATE PROJECT \(plugins\.manifests\.kubeforge\.io\/v1-alpha: maxDescLen 0\)$/m);
    assert.match(
      typed.err,
      /warning: package\.json's "manifests" script passes --max-desc-len 20, which overrides PROJECT's record for make manifests: remove it from the script to keep maxDescLen 0/,
    );
    assert.doesNotMatch(readFileSync(join(legacy, CRD), 'utf8'), /description:/);
    assert.equal(readFileSync(join(legacy, 'PROJECT'), 'utf8'), withRecord('maxDescLen: 0'));
    // A flag given wins for its run over the record; --dry-run plans the record, --check does not; neither writes.
    const dry = await kubeforge(recorded, 'manifests', '--max-desc-len', '30', '--dry-run');
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /^UPDATE config\/crd\/bases\/fixtures\.kubeforge\.io_ships\.yaml/m);
    assert.match(dry.out, /^UPDATE PROJECT \(plugins\.manifests\.kubeforge\.io\/v1-alpha: maxDescLen 30\)$/m);
    const check = await kubeforge(recorded, 'manifests', '--max-desc-len', '30', '--check');
    assert.equal(check.code, 1);
    assert.doesNotMatch(check.out, /PROJECT/);
    assert.equal(readFileSync(join(recorded, 'PROJECT'), 'utf8'), withRecord('maxDescLen: 20'));
  });
});
