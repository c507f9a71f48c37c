/**
 * End to end (issue #44, "any package manager"): with each package manager this machine can
 * install from the package registry (pnpm, yarn and bun, through npm and its configuration), a
 * project made by `kubeforge init --package-manager <pm>` against the packed kubeforge installs
 * with that package manager (its lockfile, no package-lock.json), records it in PROJECT, gets a
 * Kind from `create api`, builds and passes its unit tier run by that package manager
 * (`<pm> run test:unit`); its Makefile, workflows and Dockerfile name that package manager.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { assertAllPassed, MINUTES, ok, packKubeforge, repo, sh } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-pm-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** The package managers, installed once with npm into a cache folder of their own. */
const tools = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubeforge', 'package-managers');
const CASES = [
  { pm: 'pnpm', lockfile: 'pnpm-lock.yaml', run: ['pnpm', 'run'] },
  { pm: 'yarn', lockfile: 'yarn.lock', run: ['yarn', 'run'] },
  { pm: 'bun', lockfile: 'bun.lock', run: ['bun', 'run'] },
] as const;

let tarball = '';
let env: NodeJS.ProcessEnv = {};

before(() => {
  const bin = join(tools, 'node_modules', '.bin');
  if (!CASES.every(({ pm }) => existsSync(join(bin, pm)))) {
    mkdirSync(tools, { recursive: true });
    ok(
      sh('npm', ['install', '--prefix', tools, '--no-audit', '--no-fund', ...CASES.map((c) => c.pm)], tools),
      'npm install pnpm yarn bun',
    );
  }
  // npm_config_user_agent of this run would make npm the default: each case passes its flag.
  env = { PATH: `${bin}${delimiter}${process.env.PATH}`, npm_config_user_agent: '' };
  tarball = packKubeforge(work);
});

describe('init --package-manager: a project installs, builds and runs its unit tier with it', () => {
  for (const { pm, lockfile, run } of CASES) {
    it(`${pm}`, { timeout: 15 * MINUTES }, () => {
      const project = join(work, `${pm}-project`);
      mkdirSync(project);
      const kubeforge = (...args: string[]) =>
        sh(process.execPath, [join(repo, 'bin/kubeforge.js'), ...args], project, env);
      ok(
        kubeforge('init', '--domain', 'example.com', '--kubeforge-source', tarball, '--package-manager', pm),
        `kubeforge init --package-manager ${pm}`,
      );
      assert.ok(existsSync(join(project, lockfile)), `${lockfile} written by ${pm} install`);
      assert.ok(!existsSync(join(project, 'package-lock.json')), 'no package-lock.json');
      assert.ok(existsSync(join(project, 'node_modules/kubeforge/package.json')), 'kubeforge installed');
      const record = (parse(readFileSync(join(project, 'PROJECT'), 'utf8')) as { plugins?: Record<string, unknown> })
        .plugins?.['packagemanager.kubeforge.io/v1-alpha'];
      assert.deepEqual(record, { name: pm });

      const makefile = readFileSync(join(project, 'Makefile'), 'utf8');
      assert.match(makefile, new RegExp(`\\t${pm} install\\n`));
      assert.doesNotMatch(makefile, /\bnpm (install|run|test|start)\b/);
      assert.match(readFileSync(join(project, 'Dockerfile'), 'utf8'), new RegExp(`COPY package.json ${lockfile}\\*`));
      assert.match(
        readFileSync(join(project, '.github/workflows/test.yml'), 'utf8'),
        new RegExp(`run: ${pm} install --frozen-lockfile`),
      );

      ok(kubeforge('create', 'api', '--group', 'fleet', '--version', 'v1', '--kind', 'Frigate'), 'create api');
      // The frozen install CI runs accepts the lockfile the project was made with.
      ok(sh(pm, ['install', '--frozen-lockfile'], project, env), `${pm} install --frozen-lockfile`);
      const unit = sh(run[0], [...run.slice(1), 'test:unit'], project, { ...env, KUBEBUILDER_ASSETS: '' });
      const out = ok(unit, `${pm} run test:unit`) + unit.stderr;
      assert.ok(assertAllPassed(out, `${pm} run test:unit`) > 0, 'unit tests ran');
      assert.ok(existsSync(join(project, 'build/src/main.js')), 'built');
    });
  }
});
