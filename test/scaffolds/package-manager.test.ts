/**
 * `init --package-manager` (issue #44): the default read from npm_config_user_agent, an unknown
 * value refused (KF1008, nothing written), the files each package manager gets, the PROJECT
 * record, and `alpha generate` keeping it. Installing with the real package managers is
 * test/e2e/package-managers.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { kubeforgeIn } from '../helpers/cli.js';
import {
  PACKAGE_MANAGERS,
  packageManager,
  packageManagerOfAgent,
  resolvePackageManager,
} from '../../src/scaffolds/package-manager.js';
import { DiagnosticError } from '../../src/diagnostics/index.js';

const root = mkdtempSync(join(tmpdir(), 'kf-pm-'));
after(() => rmSync(root, { recursive: true, force: true }));

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const record = (dir: string) =>
  (parse(read(dir, 'PROJECT')) as { plugins?: Record<string, unknown> }).plugins?.[
    'packagemanager.kubeforge.io/v1-alpha'
  ];

async function init(name: string, ...args: string[]): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir);
  const r = await kubeforgeIn(dir, 'init', '--domain', 'example.com', '--skip-install', ...args);
  assert.equal(r.code, 0, r.err);
  return dir;
}

describe('package managers', () => {
  it('the default is the package manager that ran kubeforge (npm_config_user_agent), else npm', () => {
    assert.equal(packageManagerOfAgent('pnpm/10.4.1 npm/? node/v22.12.0 linux x64'), 'pnpm');
    assert.equal(packageManagerOfAgent('yarn/1.22.22 npm/? node/v22.12.0 linux x64'), 'yarn');
    assert.equal(packageManagerOfAgent('bun/1.2.0 npm/? node/v22.6.0 linux x64'), 'bun');
    assert.equal(packageManagerOfAgent('npm/10.9.0 node/v22.12.0 linux x64 workspaces/false'), 'npm');
    assert.equal(packageManagerOfAgent(undefined), 'npm');
    assert.equal(packageManagerOfAgent('cnpm/9.0.0'), 'npm');
    assert.equal(resolvePackageManager(undefined, 'pnpm/10.0.0'), 'pnpm');
    assert.equal(resolvePackageManager('yarn', 'pnpm/10.0.0'), 'yarn', 'the flag wins');
    assert.throws(
      () => resolvePackageManager('deno'),
      (e: unknown) => e instanceof DiagnosticError && e.diagnostics[0].code === 'KF1008',
    );
  });

  it('an unknown --package-manager is KF1008 and writes nothing', async () => {
    const dir = join(root, 'unknown');
    mkdirSync(dir);
    const r = await kubeforgeIn(dir, 'init', '--domain', 'example.com', '--skip-install', '--package-manager', 'deno');
    assert.equal(r.code, 1);
    assert.match(r.err, /KF1008 {2}unknown --package-manager "deno": expected one of npm, pnpm, yarn, bun/);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('npm records nothing in PROJECT and keeps the npm commands', async () => {
    const dir = await init('npm', '--package-manager', 'npm');
    assert.equal(record(dir), undefined);
    assert.match(read(dir, 'Makefile'), /\tnpm install --no-audit --no-fund\n/);
    assert.match(read(dir, '.github/workflows/test.yml'), /cache: npm\n[\s\S]*run: npm ci --no-audit --no-fund\n/);
  });

  for (const pm of PACKAGE_MANAGERS.filter((p) => p !== 'npm')) {
    it(`${pm}: every install and run step uses it, PROJECT records it, alpha generate keeps it`, async () => {
      const dir = await init(pm, '--package-manager', pm);
      const m = packageManager(pm);
      assert.deepEqual(record(dir), { name: pm });
      const makefile = read(dir, 'Makefile');
      assert.match(makefile, new RegExp(`\\t${m.install}\\n`));
      assert.match(makefile, new RegExp(`\\t${m.run} manifests\\n`));
      assert.match(makefile, new RegExp(`KUBEBUILDER_ASSETS="\\$\\$assets" ${m.test}\\n`));
      assert.match(makefile, new RegExp(`${m.exec} kubeforge setup-envtest`));
      assert.doesNotMatch(makefile, /\bnpm (install|run|test|start|ci)\b|\bnpx kubeforge\b/);
      const scripts = (JSON.parse(read(dir, 'package.json')) as { scripts: Record<string, string> }).scripts;
      assert.equal(scripts['test:unit'], `${m.run} build && kubeforge test --unit`);
      const docker = read(dir, 'Dockerfile');
      assert.match(
        docker,
        new RegExp(`COPY package.json ${m.lockfile}\\*${m.settingsFile ? ` ${m.settingsFile}` : ''} \\./`),
      );
      const dockerignore = read(dir, '.dockerignore');
      assert.match(
        dockerignore,
        new RegExp(`\\n!${m.lockfile.replace('.', '\\.')}\\n`),
        'the lockfile reaches the image build',
      );
      assert.doesNotMatch(dockerignore, /package-lock/);
      if (pm === 'pnpm') {
        // pnpm runs esbuild's install script only when allowed; the image build copies the setting.
        assert.deepEqual(parse(read(dir, 'pnpm-workspace.yaml')), { allowBuilds: { esbuild: true } });
        assert.match(dockerignore, /\n!pnpm-workspace\.yaml\n/);
      } else assert.equal(m.settingsFile, '');
      assert.match(docker, new RegExp(`RUN npm install -g ${pm}\\n`));
      assert.match(docker, new RegExp(`RUN ${m.run} build && ${m.run} bundle`));
      for (const wf of ['lint', 'test', 'test-e2e']) {
        const text = read(dir, `.github/workflows/${wf}.yml`);
        assert.doesNotMatch(text, /cache: npm|npm ci/, wf);
        assert.match(text, new RegExp(`run: npm install -g ${pm}\\n[\\s\\S]*run: ${m.ci}\\n`), wf);
        assert.ok(parse(text), `${wf}.yml is YAML`);
      }
      assert.match(read(dir, '.devcontainer/post-create.sh'), new RegExp(`\\n${m.ci}\\n`));

      const out = join(root, `${pm}-generated`);
      const g = await kubeforgeIn(dir, 'alpha', 'generate', '--output-dir', out, '--skip-install');
      assert.equal(g.code, 0, g.err);
      assert.deepEqual(record(out), { name: pm });
      assert.equal(read(out, 'Makefile'), makefile);
    });
  }
});
