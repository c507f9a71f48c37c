/**
 * `edit --plugins autoupdate/v1-alpha` (issue #43 point 3): the workflow it writes parses, pins
 * its actions, and its command sequence does what it says on a fixture project, run here step by
 * step as GitHub Actions would (each `run:` in bash -e, `if:` and `${{ steps.<id>.outputs.<name> }}`
 * from the step outputs), with no network and no GitHub:
 *  - `origin` is a bare repository on disk;
 *  - `npx --yes kubeforge@latest` (the newest release) is this kubeforge, given the old kubeforge
 *    the fixture was made by as --from-version (the fixture's PROJECT records no cliVersion; a
 *    project scaffolded now records it and needs none);
 *  - `npm ci` and `gh` are stand-ins that record their calls (gh its issue's body).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { run } from '../../src/cli/index.js';
import { packageRoot, packageVersion } from '../../src/util/package-root.js';
import { kubeforgeAt } from '../oracle/tools.js';
import { unpinned } from '../helpers/workflows.js';
import { must } from '../helpers/must.js';

const repo = packageRoot();
const OLD_COMMIT = 'a2987c0';
const FIXTURE = join(repo, 'test/fixtures/alpha-update/guestbook');
const VERSION = packageVersion();
const BRANCH = `kubeforge-update-from-${VERSION}-to-${VERSION}`;
const WORKFLOW = '.github/workflows/auto_update.yml';

const root = mkdtempSync(join(tmpdir(), 'kf-autoupdate-'));
after(() => rmSync(root, { recursive: true, force: true }));
let old: string;
before(() => {
  old = kubeforgeAt(OLD_COMMIT, repo);
});

async function kubeforge(cwd: string, ...args: string[]) {
  let out = '';
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

/** git with a test identity and no global config (HOME is the test's). */
function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: gitEnv() });
  assert.equal(r.status, 0, `git ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  return r.stdout.trim();
}
const home = join(root, 'home');
const gitEnv = () => ({
  ...process.env,
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
});

interface Step {
  name: string;
  id?: string;
  if?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
}

/** Runs the workflow's `run:` steps in `cwd` as the runner would; returns each step's log. */
function runWorkflow(steps: Step[], cwd: string, bin: string): { logs: Record<string, string> } {
  const outputs: Record<string, Record<string, string>> = {};
  const logs: Record<string, string> = {};
  const expr = (e: string) =>
    e.replace(/\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}/g, (_, id, k) => outputs[id]?.[k] ?? '');
  const value = (e: string) => {
    const m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e.trim());
    if (m) return outputs[m[1]]?.[m[2]] ?? '';
    const s = /^'([^']*)'$/.exec(e.trim());
    assert.ok(s, `an expression this runner reads: ${e}`);
    return s[1];
  };
  const condition = (c: string) => {
    const m = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(c);
    assert.ok(m, `a condition this runner reads: ${c}`);
    return m[2] === '==' ? value(m[1]) === value(m[3]) : value(m[1]) !== value(m[3]);
  };
  const temp = join(root, 'runner-temp');
  mkdirSync(temp, { recursive: true });
  for (const step of steps) {
    if (step.uses) continue; // checkout and setup-node: the repository and Node.js are here already
    if (step.if && !condition(step.if)) {
      logs[step.name] = '(skipped)';
      continue;
    }
    const output = join(temp, `output-${step.id ?? step.name.replace(/\W/g, '')}`);
    writeFileSync(output, '');
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expr(v)]));
    const r = spawnSync('bash', ['-e', '-c', must(step.run, 'step.run')], {
      cwd,
      encoding: 'utf8',
      env: {
        ...gitEnv(),
        PATH: `${bin}:${process.env.PATH}`,
        RUNNER_TEMP: temp,
        GITHUB_OUTPUT: output,
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_REPOSITORY: 'example/guestbook',
        GH_TOKEN: 'not-a-token',
        ...env,
      },
    });
    logs[step.name] = r.stdout + r.stderr;
    assert.equal(r.status, 0, `step "${step.name}":\n${r.stdout}\n${r.stderr}`);
    if (step.id)
      outputs[step.id] = Object.fromEntries(
        readFileSync(output, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
  }
  return { logs };
}

describe('edit --plugins autoupdate/v1-alpha', () => {
  let project: string;
  let origin: string;
  let bin: string;
  let steps: Step[];

  it('writes .github/workflows/auto_update.yml and records the plugin in PROJECT; a second run changes nothing', async () => {
    mkdirSync(home, { recursive: true });
    project = join(root, 'guestbook');
    cpSync(FIXTURE, project, { recursive: true });
    git(project, 'init', '--quiet', '-b', 'main');
    git(project, 'add', '-A');
    git(project, 'commit', '--quiet', '-m', 'the user project');
    const r = await kubeforge(project, 'edit', '--plugins', 'autoupdate/v1-alpha');
    assert.equal(r.code, 0, r.err);
    const yaml = readFileSync(join(project, WORKFLOW), 'utf8');
    const doc = parse(yaml) as { on: Record<string, unknown>; jobs: Record<string, { steps: Step[] }> };
    assert.deepEqual(Object.keys(doc.on).sort(), ['schedule', 'workflow_dispatch']);
    steps = doc.jobs['auto-update'].steps;
    assert.deepEqual(unpinned(yaml), []);
    assert.match(yaml, /kubeforge@latest alpha update --force --restore-path \.github\/workflows/);
    const recorded = parse(readFileSync(join(project, 'PROJECT'), 'utf8')) as { plugins: Record<string, unknown> };
    assert.deepEqual(recorded.plugins, { 'autoupdate.kubebuilder.io/v1-alpha': {} });
    git(project, 'add', '-A');
    git(project, 'commit', '--quiet', '-m', 'add the autoupdate workflow');
    const again = await kubeforge(project, 'edit', '--plugins', 'autoupdate/v1-alpha');
    assert.equal(again.code, 0, again.err);
    assert.equal(git(project, 'status', '--porcelain'), '', 'a second run changes nothing');
  });

  it("runs the workflow's steps: alpha update with the conflicts committed, the branch pushed, an issue opened with the pull request link and the conflicts", () => {
    origin = join(root, 'origin.git');
    git(root, 'init', '--quiet', '--bare', '-b', 'main', origin);
    git(project, 'remote', 'add', 'origin', origin);
    git(project, 'push', '--quiet', 'origin', 'main');
    bin = join(root, 'bin');
    mkdirSync(bin);
    const log = join(root, 'calls.log');
    const stub = (name: string, body: string) => {
      writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    };
    stub('npm', `echo "npm $*" >> "${log}"`);
    stub(
      'npx',
      `[ "$1" = --yes ] && [ "$2" = kubeforge@latest ] || { echo "unexpected npx $*" >&2; exit 2; }
shift 2
exec node "${join(repo, 'bin/kubeforge.js')}" "$@" --from-version "${old}"`,
    );
    stub(
      'gh',
      `echo "gh $*" >> "${log}"
while [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" "${join(root, 'issue.md')}"; shift; done`,
    );
    const { logs } = runWorkflow(steps, project, bin);
    assert.match(logs['Run kubeforge alpha update'], /Conflicts \(1\):\n\s+Makefile/);
    assert.equal(git(origin, 'rev-parse', '--verify', `refs/heads/${BRANCH}`).length, 40, 'the branch is pushed');
    // --restore-path .github/workflows: the workflows on the branch are main's.
    assert.equal(git(origin, 'diff', '--stat', 'main', BRANCH, '--', '.github/workflows'), '');
    assert.match(git(origin, 'show', `${BRANCH}:Makefile`), /^<<<<<<< /m, 'the conflict is committed (--force)');
    const calls = readFileSync(log, 'utf8');
    assert.match(calls, /^npm ci --no-audit --no-fund$/m);
    assert.match(calls, new RegExp(`^gh issue create --title Upgrade the scaffold: ${BRANCH} --body-file `, 'm'));
    const issue = readFileSync(join(root, 'issue.md'), 'utf8');
    assert.ok(issue.includes(`https://github.com/example/guestbook/compare/main...${BRANCH}?expand=1`), issue);
    assert.match(issue, /Conflicts \(1\):\n\s+Makefile/);
  });

  it('alpha update without --restore-path brings the pinned actions to workflows made before them; the auto-update workflow keeps them as they were', async () => {
    const dir = join(root, 'pins');
    cpSync(FIXTURE, dir, { recursive: true });
    git(dir, 'init', '--quiet', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', 'the user project');
    const before = readFileSync(join(dir, '.github/workflows/lint.yml'), 'utf8');
    assert.notDeepEqual(unpinned(before), [], `kubeforge ${OLD_COMMIT} wrote unpinned actions`);
    const r = await kubeforge(dir, 'alpha', 'update', '--from-version', old, '--force');
    assert.equal(r.code, 0, r.out + r.err);
    for (const w of ['lint.yml', 'test.yml', 'test-e2e.yml'])
      assert.deepEqual(unpinned(readFileSync(join(dir, '.github/workflows', w), 'utf8')), [], w);
    // The branch the workflow pushed (previous test) kept main's workflows: unpinned still.
    assert.notDeepEqual(unpinned(git(origin, 'show', `${BRANCH}:.github/workflows/lint.yml`)), []);
  });

  it('alpha generate replays the plugin: the new scaffold has the workflow and PROJECT records it (so alpha update carries it)', async () => {
    const out = join(root, 'regenerated');
    const r = await kubeforge(
      project,
      'alpha',
      'generate',
      '--output-dir',
      out,
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(readFileSync(join(out, WORKFLOW), 'utf8'), readFileSync(join(project, WORKFLOW), 'utf8'));
    const recorded = parse(readFileSync(join(out, 'PROJECT'), 'utf8')) as { plugins: Record<string, unknown> };
    assert.deepEqual(recorded.plugins, { 'autoupdate.kubebuilder.io/v1-alpha': {} });
  });

  it('run again from a fresh clone: the branch is on origin already, so nothing is pushed and no second issue', () => {
    const clone = join(root, 'clone');
    git(root, 'clone', '--quiet', origin, clone);
    rmSync(join(root, 'calls.log'));
    const { logs } = runWorkflow(steps, clone, bin);
    assert.match(logs['Push the branch'], /pushed by an earlier run/);
    assert.equal(logs['Open an issue'], '(skipped)');
    assert.ok(!readFileSync(join(root, 'calls.log'), 'utf8').includes('gh '));
    assert.ok(existsSync(join(clone, WORKFLOW)));
  });
});
