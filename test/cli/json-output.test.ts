/**
 * `--json` on every command (issue #44): stdout holds exactly one JSON document, valid against
 * the schema the package ships (schemas/output.schema.json, checked by Ajv, a real JSON Schema
 * validator), on success and on failure; the exit code is the one of the same run without --json;
 * what is printed for people goes to stderr. Each command is run for a success and a failure
 * where it has both.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { kubeforgeIn, linkKubeforgeDependencies } from '../helpers/cli.js';
import { packageRoot } from '../../src/util/package-root.js';
import { DIAGNOSTIC_CODES } from '../../src/diagnostics/codes.js';
import type { OutputDocument } from '../../src/machinery/report.js';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/index.js';

const repo = packageRoot();
const schema = JSON.parse(readFileSync(join(repo, 'schemas/output.schema.json'), 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string; files: string[] };
const knownCodes = new Set(DIAGNOSTIC_CODES.map((c) => c.code));

const root = mkdtempSync(join(tmpdir(), 'kf-json-'));
after(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
const fresh = (name: string) => {
  const dir = join(root, `${name}-${n++}`);
  mkdirSync(dir);
  return dir;
};

/**
 * `kubeforge <args> --json` in `cwd`: the document, checked against the schema and against the
 * run's exit code; and the exit code of the same command without --json when `compare` (a run that writes nothing twice).
 */
async function json(
  cwd: string,
  args: string[],
  options: { compare?: boolean } = {},
): Promise<{ doc: OutputDocument; code: number; err: string }> {
  const r = await kubeforgeIn(cwd, ...args, '--json');
  let doc: OutputDocument;
  try {
    doc = JSON.parse(r.out) as OutputDocument;
  } catch (e) {
    throw new Error(`stdout is not one JSON document: ${(e as Error).message}\n${r.out}\n--- stderr\n${r.err}`);
  }
  assert.ok(validate(doc), `${args.join(' ')}: ${JSON.stringify(validate.errors, null, 2)}\n${r.out}`);
  assert.equal(r.out.trimEnd().split('\n').at(-1), '}', 'one document, nothing after it');
  assert.equal(doc.exitCode, r.code);
  assert.equal(doc.ok, r.code === 0);
  assert.equal(doc.kubeforgeVersion, pkg.version);
  for (const d of doc.diagnostics) assert.ok(knownCodes.has(d.code), `${d.code} is listed in codes.ts`);
  if (options.compare) {
    const plain = await kubeforgeIn(cwd, ...args);
    assert.equal(plain.code, r.code, 'the exit code is the one without --json');
  }
  return { doc, code: r.code, err: r.err };
}

const paths = (set: { written: { path: string }[] } | undefined) => set?.written.map((w) => w.path) ?? [];

function git(dir: string, ...args: string[]): string {
  const r = spawnSync(
    'git',
    ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

/** A copy of testdata/project whose node_modules are this repository's, committed and tagged v1.0.0. */
function project(): string {
  const dir = fresh('project');
  cpSync(join(repo, 'testdata/project'), dir, { recursive: true });
  linkKubeforgeDependencies(repo, dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'release');
  git(dir, 'tag', 'v1.0.0');
  return dir;
}

describe('--json: one document on stdout, valid against schemas/output.schema.json', () => {
  it('the schema is shipped in the package and exported', () => {
    assert.ok(pkg.files.includes('schemas'));
    const exportsMap = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).exports as Record<string, string>;
    assert.equal(exportsMap['./schemas/output.schema.json'], './schemas/output.schema.json');
  });

  it("the schema's command names every command the CLI has", () => {
    const names = (cmd: Command, prefix = ''): string[] =>
      cmd.commands.flatMap((c) => {
        const path = `${prefix}${c.name()}`;
        return [path, ...names(c, `${path} `)];
      });
    const paths = names(buildProgram({ out: () => {}, err: () => {}, color: false } as never));
    const listed = (schema as { properties: { command: { enum: string[] } } }).properties.command.enum;
    assert.ok(paths.includes('test'), paths.join(', '));
    assert.deepEqual(
      paths.filter((p) => !listed.includes(p)),
      [],
      'commands missing from schemas/output.schema.json',
    );
  });

  it('init: the plan (--dry-run), the result, and a refusal', async () => {
    const dir = fresh('init');
    const flags = ['--domain', 'example.com', '--skip-install', '--kubeforge-source', 'link'];
    const plan = await json(dir, ['init', ...flags, '--dry-run'], { compare: true });
    assert.equal(plan.doc.command, 'init');
    assert.equal(plan.doc.plan?.root, dir);
    assert.ok(paths(plan.doc.plan).includes('PROJECT'));
    assert.ok(plan.doc.plan?.written.every((w) => w.action === 'create'));
    assert.equal(plan.doc.result, undefined);
    assert.match(plan.err, /CREATE PROJECT/, 'the human plan goes to stderr');

    const done = await json(dir, ['init', ...flags]);
    assert.equal(done.code, 0, done.err);
    assert.deepEqual(paths(done.doc.result), paths(plan.doc.plan));
    for (const p of paths(done.doc.result)) assert.ok(existsSync(join(dir, p)), p);

    const again = await json(dir, ['init', '--domain', 'example.com', '--skip-install'], { compare: true });
    assert.equal(again.code, 1);
    assert.equal(again.doc.diagnostics[0].code, 'KF1002');
    assert.equal(again.doc.diagnostics[0].severity, 'error');
    assert.ok(again.doc.diagnostics[0].hint);

    const noDomain = await json(fresh('init'), ['init'], { compare: true });
    assert.equal(noDomain.code, 1);
    assert.deepEqual(
      noDomain.doc.diagnostics.map((d) => d.code),
      ['KF1000'],
    );
  });

  it('create api and create webhook: plans with the CRD, results, kept files, refusals', async () => {
    const dir = project();
    const plan = await json(
      dir,
      ['create', 'api', '--group', 'batch', '--version', 'v3', '--kind', 'Widget', '--dry-run'],
      { compare: true },
    );
    assert.equal(plan.code, 0, plan.err);
    assert.equal(plan.doc.command, 'create api');
    assert.ok(paths(plan.doc.plan).includes('src/api/v3/widget_types.ts'));
    assert.ok(paths(plan.doc.plan).includes('config/crd/bases/batch.tutorial.kubebuilder.io_widgets.yaml'));
    // A kustomization every Kind shares exists already: kept as it is.
    assert.deepEqual(plan.doc.plan?.kept, [{ path: 'config/crd/kustomizeconfig.yaml' }]);

    const done = await json(dir, ['create', 'api', '--group', 'batch', '--version', 'v3', '--kind', 'Widget']);
    assert.equal(done.code, 0, done.err);
    assert.deepEqual(paths(done.doc.result), paths(plan.doc.plan));
    // v3 group-version file was written by this run; a second Kind of v3 keeps it as it is.
    const second = await json(dir, [
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v3',
      '--kind',
      'Gadget',
      '--dry-run',
    ]);
    assert.deepEqual(
      second.doc.plan?.kept.map((k) => k.path),
      ['config/crd/kustomizeconfig.yaml', 'src/api/v3/groupversion.ts'],
    );

    const badKind = await json(dir, ['create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'cron-job'], {
      compare: true,
    });
    assert.equal(badKind.code, 1);
    assert.equal(badKind.doc.diagnostics[0].code, 'KF1001');
    const unknown = await json(dir, ['create', 'api', '--bogus'], { compare: true });
    assert.equal(unknown.code, 1);
    assert.equal(unknown.doc.command, 'create api');
    assert.equal(unknown.doc.diagnostics[0].code, 'KF1007');

    const hook = await json(
      dir,
      ['create', 'webhook', '--group', 'batch', '--version', 'v3', '--kind', 'Widget', '--defaulting', '--dry-run'],
      { compare: true },
    );
    assert.equal(hook.code, 0, hook.err);
    assert.equal(hook.doc.command, 'create webhook');
    assert.ok(paths(hook.doc.plan).includes('src/webhook/v3/widget_webhook.ts'), paths(hook.doc.plan).join(' '));
    const noKind = await json(
      dir,
      ['create', 'webhook', '--group', 'batch', '--version', 'v9', '--kind', 'Nothing', '--defaulting'],
      { compare: true },
    );
    assert.equal(noKind.code, 1);
    assert.ok(noKind.doc.diagnostics.length > 0);
    assert.ok(noKind.doc.diagnostics.every((d) => d.severity === 'error'));
  });

  it('edit: a plan and a refusal', async () => {
    const dir = project();
    const plan = await json(dir, ['edit', '--multigroup', '--dry-run'], { compare: true });
    assert.equal(plan.code, 0, plan.err);
    assert.equal(plan.doc.command, 'edit');
    assert.deepEqual(paths(plan.doc.plan), ['PROJECT']);
    const bad = await json(dir, ['edit', '--license-file', 'no/such/header.txt'], { compare: true });
    assert.equal(bad.code, 1);
    assert.equal(bad.doc.diagnostics[0].code, 'KF1006');
  });

  it('manifests: up to date; --check with its findings; --check-compat with its findings', async () => {
    const dir = project();
    const check = await json(dir, ['manifests', '--check'], { compare: true });
    assert.equal(check.code, 0, check.err);
    assert.deepEqual(check.doc.findings, []);
    assert.deepEqual(check.doc.plan?.written, []);

    const types = join(dir, 'src/api/v1/cronjob_types.ts');
    writeFileSync(
      types,
      readFileSync(types, 'utf8').replace(
        '  @Minimum(0)\n  startingDeadlineSeconds?: int64;',
        '  @Minimum(5)\n  startingDeadlineSeconds?: int64;',
      ),
    );
    const stale = await json(dir, ['manifests', '--check'], { compare: true });
    assert.equal(stale.code, 1);
    const crd = 'config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml';
    assert.deepEqual(stale.doc.findings, [
      {
        check: 'check',
        rule: 'out-of-date',
        severity: 'error',
        message: `${crd} is out of date: kubeforge manifests would update it`,
        file: crd,
      },
    ]);
    assert.deepEqual(
      stale.doc.diagnostics.map((d) => d.code),
      ['KF4501'],
    );

    const compat = await json(dir, ['manifests', '--check-compat', 'v1.0.0'], { compare: true });
    assert.equal(compat.code, 1);
    const [finding] = compat.doc.findings ?? [];
    assert.equal(compat.doc.findings?.length, 1);
    assert.equal(finding.check, 'check-compat');
    assert.equal(finding.rule, 'minimum-tightened');
    assert.equal(finding.severity, 'error');
    assert.equal(finding.file, types);
    assert.equal(finding.field, '.spec.startingDeadlineSeconds');
    assert.equal(finding.version, 'v1');
    assert.equal(finding.groupKind, 'CronJob.batch.tutorial.kubebuilder.io');
    const line = readFileSync(types, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('startingDeadlineSeconds?'));
    assert.equal(finding.line, line + 1);
    assert.equal(compat.doc.diagnostics[0].code, 'KF4710');
    assert.equal(compat.doc.result, undefined, 'nothing written');

    const allowed = await json(dir, ['manifests', '--check-compat', 'v1.0.0', '--allow', 'minimum-tightened']);
    assert.equal(allowed.code, 0, allowed.err);
    assert.equal(allowed.doc.findings?.[0].allowed, true);
    assert.equal(allowed.doc.findings?.[0].severity, 'warning');
    assert.deepEqual(
      allowed.doc.diagnostics.map((d) => [d.code, d.severity]),
      [['KF4712', 'warning']],
    );
    assert.deepEqual(allowed.doc.result?.written, [{ path: crd, action: 'update' }]);

    const badFlag = await json(dir, ['manifests', '--max-desc-len', 'x'], { compare: true });
    assert.equal(badFlag.code, 1);
    assert.equal(badFlag.doc.diagnostics[0].code, 'KF1093');
  });

  it("a warning printed as text (no KF code) is in the document's warnings, and still on stderr", async () => {
    const dir = project();
    // No PROJECT to record the flag in.
    rmSync(join(dir, 'PROJECT'));
    const r = await json(dir, ['manifests', '--max-desc-len', '40', '--dry-run']);
    assert.equal(r.code, 0, r.err);
    const text =
      'no PROJECT file to record --max-desc-len 40 in (plugins.manifests.kubeforge.io/v1-alpha): pass it to every run yourself';
    assert.deepEqual(r.doc.warnings, [text]);
    assert.match(r.err, new RegExp(`warning: ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const quiet = await json(dir, ['manifests', '--dry-run']);
    assert.equal(quiet.doc.warnings, undefined, 'no warnings, no field');
  });

  it('docs: a plan, a result, and --check failing with its findings', async () => {
    const dir = project();
    const plan = await json(dir, ['docs', '--dry-run'], { compare: true });
    assert.equal(plan.code, 0, plan.err);
    assert.ok(paths(plan.doc.plan).includes('docs/reference/README.md'));
    const check = await json(dir, ['docs', '--check'], { compare: true });
    assert.equal(check.code, 1);
    assert.deepEqual(
      check.doc.findings?.map((f) => f.file),
      paths(plan.doc.plan),
    );
    const done = await json(dir, ['docs']);
    assert.deepEqual(paths(done.doc.result), paths(plan.doc.plan));
    const clean = await json(dir, ['docs', '--check']);
    assert.equal(clean.code, 0);
    assert.deepEqual(clean.doc.findings, []);
  });

  it('alpha generate: the new project as its result; a refusal', async () => {
    const dir = project();
    const out = join(root, `generated-${n++}`);
    const done = await json(dir, ['alpha', 'generate', '--output-dir', out, '--skip-install']);
    assert.equal(done.code, 0, done.err);
    assert.equal(done.doc.command, 'alpha generate');
    assert.equal(done.doc.result?.root, out);
    assert.ok(paths(done.doc.result).includes('PROJECT'));
    assert.ok(paths(done.doc.result).includes('src/api/v1/cronjob_types.ts'));
    const again = await json(dir, ['alpha', 'generate', '--output-dir', out, '--skip-install'], { compare: true });
    assert.equal(again.code, 1);
    assert.equal(again.doc.diagnostics[0].code, 'KF1073');
  });

  it('alpha update: nothing to update on a project this kubeforge made; a refusal outside git', async () => {
    const dir = fresh('update');
    assert.equal((await kubeforgeIn(dir, 'init', '--domain', 'example.com', '--skip-install')).code, 0);
    const refused = await json(dir, ['alpha', 'update'], { compare: true });
    assert.equal(refused.code, 1);
    assert.equal(refused.doc.diagnostics[0].code, 'KF1320');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'init');
    const done = await json(dir, ['alpha', 'update']);
    assert.equal(done.code, 0, done.err);
    assert.deepEqual(done.doc.update, { from: pkg.version, to: pkg.version, committed: false, conflicts: [] });
    assert.equal(done.doc.result?.written.length, 0);
  });

  it('setup-envtest: the assets folder (offline, from KUBEBUILDER_ASSETS); a refusal', async () => {
    const assets = fresh('assets');
    for (const b of ['etcd', 'kube-apiserver']) {
      writeFileSync(join(assets, b), '#!/bin/sh\nexit 1\n');
      chmodSync(join(assets, b), 0o755);
    }
    const saved = process.env.KUBEBUILDER_ASSETS;
    process.env.KUBEBUILDER_ASSETS = assets;
    try {
      const done = await json(root, ['setup-envtest'], { compare: true });
      assert.equal(done.code, 0, done.err);
      assert.equal(done.doc.assets, assets);
    } finally {
      if (saved === undefined) delete process.env.KUBEBUILDER_ASSETS;
      else process.env.KUBEBUILDER_ASSETS = saved;
    }
    const bad = await json(root, ['setup-envtest', '--os', 'plan9'], { compare: true });
    assert.equal(bad.code, 1);
    assert.equal(bad.doc.diagnostics[0].code, 'KF1007');
  });

  it('dev: its refusals', async () => {
    const r = await json(root, ['dev', '--fake', '--kubeconfig', 'x'], { compare: true });
    assert.equal(r.code, 1);
    assert.equal(r.doc.command, 'dev');
    assert.equal(r.doc.diagnostics[0].code, 'KF1412');
    const port = await json(root, ['dev', '--webhook-port', '0']);
    assert.equal(port.doc.diagnostics[0].code, 'KF1407');
  });

  it('completion, version, --help: their text as fields; unknown shells, options and commands refused', async () => {
    const bash = await json(root, ['completion', 'bash'], { compare: true });
    assert.equal(bash.code, 0);
    assert.match(bash.doc.script ?? '', /^# bash completion for kubeforge/);
    const shell = await json(root, ['completion', 'tcsh'], { compare: true });
    assert.equal(shell.code, 1);
    assert.equal(shell.doc.diagnostics[0].code, 'KF1007');

    const version = await json(root, ['version'], { compare: true });
    assert.deepEqual(version.doc.version, { kubeforge: pkg.version, node: process.version });
    const short = await json(root, ['-v']);
    assert.deepEqual(short.doc.version, version.doc.version);
    assert.equal(short.doc.help, undefined);
    const badVersion = await json(root, ['version', '--bogus'], { compare: true });
    assert.equal(badVersion.code, 1);

    const help = await json(root, ['--help'], { compare: true });
    assert.equal(help.code, 0);
    assert.equal(help.doc.command, '');
    assert.match(help.doc.help ?? '', /Usage: kubeforge/);
    // No command at all: the help and exit 0, as Kubebuilder does (and on stdout without --json).
    const bare = await json(root, [], { compare: true });
    assert.equal(bare.code, 0);
    assert.equal(bare.doc.help, help.doc.help);
    const plain = await kubeforgeIn(root);
    assert.equal(plain.code, 0);
    assert.match(plain.out, /^Usage: kubeforge \[options\] \[command\]/);
    const sub = await json(root, ['create', 'api', '--help']);
    assert.equal(sub.doc.command, 'create api');
    assert.match(sub.doc.help ?? '', /--kind <kind>/);
    const unknown = await json(root, ['bogus'], { compare: true });
    assert.equal(unknown.code, 1);
    assert.equal(unknown.doc.diagnostics[0].code, 'KF1007');
  });
});
