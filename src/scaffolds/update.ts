/**
 * `kubeforge alpha update`: Kubebuilder's three-way upgrade of a project's scaffold.
 *
 * - ancestor: the clean scaffold of the kubeforge that made the project (PROJECT's `cliVersion`,
 *   or --from-version), re-made from PROJECT by that kubeforge's own `alpha generate`;
 * - original: the user's tree (the committed files of the current branch, or --from-branch);
 * - upgrade: the clean scaffold of the running kubeforge (or --to-version), made the same way.
 *
 * Every file is merged three ways with `git merge-file` (git's own line merge and conflict
 * markers); the result goes on a new branch (committed when there is no conflict, or with
 * --force), or into the work tree with --in-place. The user's branch is never changed, and a
 * dirty tree is refused, so nothing the user has not committed is at stake.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createRequire } from 'node:module';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DiagnosticError, type Diagnostic, error, formatDiagnostics, warning } from '../diagnostics/index.js';
import { PROJECT_FILE, ProjectFile } from '../project/index.js';
import type { CommandIo } from '../machinery/runner.js';
import { packageRoot, packageVersion } from '../util/package-root.js';
import { BOILERPLATE_FILE } from './init.js';
import { packFileList, TARBALL_DIR } from './kubeforge-source.js';
import { migrateSource } from './codemods.js';
import { DiskHost } from '../machinery/index.js';
import { CommandGuard, InterruptedError } from '../machinery/guard.js';
import { CLI_INTEGRITY_KEY, integrityOf, isSha512Integrity, projectLockedIntegrity } from './cli-integrity.js';
import { createHash } from 'node:crypto';

export interface UpdateOptions {
  /** The kubeforge that made the project: a version, or a path to a kubeforge package folder or .tgz (default: PROJECT's cliVersion). */
  fromVersion?: string;
  /** The kubeforge to upgrade to: as fromVersion (default: the running kubeforge). */
  toVersion?: string;
  /** The branch holding the user's project (default: the current branch). */
  fromBranch?: string;
  /** The branch the result goes on (default: kubeforge-update-from-<from>-to-<to>). */
  outputBranch?: string;
  /** Commit the result even when files have conflicts (their markers committed, the files listed). */
  force?: boolean;
  /** Write the result into the current work tree instead of a new branch (nothing committed). */
  inPlace?: boolean;
  /** Paths (files or folders, relative to the project) kept as they are on the user's branch, never merged. */
  restorePath?: string[];
  /**
   * Run a kubeforge fetched from a package registry although nothing recorded says what it must
   * be (no `cliIntegrity` in PROJECT, no integrity in the project's package-lock.json).
   */
  allowUnverifiedCli?: boolean;
}

export interface UpdateResult {
  from: string;
  to: string;
  /** The branch the result is on (undefined with --in-place). */
  branch?: string;
  /** Whether the result was committed. */
  committed: boolean;
  /** Files whose content changed (added, merged or taken from the upgrade). */
  changed: string[];
  /** Files removed (the new scaffold dropped them and you had not changed them). */
  removed: string[];
  /** Files with conflict markers, or deleted on one side and changed on the other. */
  conflicts: string[];
}

/** Never merged: dependencies, build output, kubeforge's own state (the tarball is handled on its own). */
const IGNORED_TOP = new Set(['node_modules', 'build', 'dist', '.git', TARBALL_DIR]);

const fail = (code: string, message: string, hint: string, extra: Partial<Diagnostic> = {}) =>
  new DiagnosticError(error(code, message, { hint, ...extra }));

interface Git {
  (args: string[], opts?: { input?: string | Buffer; allowFail?: boolean }): SpawnSyncReturns<Buffer>;
  text(args: string[]): string;
}

function gitIn(cwd: string): Git {
  const run = ((args: string[], opts: { input?: string | Buffer; allowFail?: boolean } = {}) => {
    const r = spawnSync('git', args, { cwd, input: opts.input, maxBuffer: 512 * 1024 * 1024 });
    if (r.error)
      throw fail(
        'KF1320',
        `git could not be run (${r.error.message})`,
        'alpha update uses git for its branches and its line merge: install git and make sure it is on PATH',
      );
    if (r.status !== 0 && !opts.allowFail)
      throw fail(
        'KF1320',
        `git ${args.join(' ')} failed: ${r.stderr.toString('utf8').trim()}`,
        "see git's message above; nothing was changed",
      );
    return r;
  }) as Git;
  run.text = (args) => run(args).stdout.toString('utf8').trim();
  return run;
}

/** A kubeforge package that can be run: its folder (bin/kubeforge.js) and version. */
interface Kubeforge {
  dir: string;
  version: string;
  /** How the user named it, for messages. */
  label: string;
}

/** The folder holding the running kubeforge's dependencies (an old kubeforge is run against them when it has none of its own). */
function dependencyDir(): string | undefined {
  const req = createRequire(join(packageRoot(), 'package.json'));
  for (const dir of req.resolve.paths('commander') ?? []) if (existsSync(join(dir, 'commander'))) return dir;
  return undefined;
}

/** Makes a kubeforge package folder runnable: when its dependencies do not resolve, a copy next to a link to the running kubeforge's. */
function runnable(dir: string, work: string, label: string): string {
  try {
    createRequire(join(dir, 'package.json')).resolve('commander');
    return dir;
  } catch {
    const deps = dependencyDir();
    if (!deps)
      throw fail(
        'KF1323',
        `kubeforge ${label} has no dependencies installed, and the running kubeforge's cannot be found to run it with`,
        `run npm install in ${dir}`,
      );
    const copy = mkdtempSync(join(work, 'pkg-'));
    for (const name of readdirSync(dir))
      if (name !== 'node_modules' && name !== '.git') cpSync(join(dir, name), join(copy, name), { recursive: true });
    symlinkSync(deps, join(copy, 'node_modules'), 'dir');
    return copy;
  }
}

function readPackage(dir: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
  } catch {
    return undefined;
  }
}

/** Unpacks a kubeforge .tgz (npm's layout: package/...) into `work`; returns the package folder. */
function unpack(tgz: string, work: string, label: string): string {
  const out = mkdtempSync(join(work, 'tgz-'));
  const r = spawnSync('tar', ['-xzf', tgz, '-C', out]);
  if (r.error || r.status !== 0)
    throw fail(
      'KF1323',
      `kubeforge ${label}: ${tgz} could not be unpacked (${r.error?.message ?? r.stderr.toString('utf8').trim()})`,
      'pass a kubeforge package .tgz (as npm pack writes) or a package folder',
    );
  const dir = join(out, 'package');
  if (readPackage(dir)?.name !== 'kubeforge')
    throw fail(
      'KF1323',
      `kubeforge ${label}: ${tgz} is not a kubeforge package (no package/package.json named "kubeforge")`,
      'pass a kubeforge package .tgz (as npm pack writes) or a package folder',
    );
  return dir;
}

/**
 * Finds the kubeforge named by `spec`: a path to a package folder or .tgz; else a version, looked
 * up in the project's own .kubeforge/ (the tarball init packed), then the running kubeforge when
 * the versions are equal, then npm (`npm pack kubeforge@<version>`, when a registry has it).
 */
function resolveKubeforge(
  spec: string | undefined,
  side: 'from' | 'to',
  project: string,
  cwd: string,
  work: string,
  userPackageJson: string | undefined,
  io: CommandIo,
  trust: Trust,
): Kubeforge {
  const running = packageVersion();
  const flag = side === 'from' ? '--from-version' : '--to-version';
  if (spec === undefined) return { dir: packageRoot(), version: running, label: `${running} (running)` };
  const path = resolve(cwd, spec);
  if (spec.includes('/') || spec.endsWith('.tgz') || isAbsolute(spec) || spec.startsWith('.')) {
    if (!existsSync(path))
      throw fail(
        'KF1323',
        `${flag} ${spec}: no such file or folder`,
        `pass a kubeforge version, a kubeforge package folder or a .tgz of one`,
      );
    const dir = statSync(path).isDirectory() ? path : unpack(path, work, spec);
    const pkg = readPackage(dir);
    if (pkg?.name !== 'kubeforge' || !existsSync(join(dir, 'bin', 'kubeforge.js')))
      throw fail(
        'KF1323',
        `${flag} ${spec}: not a kubeforge package (package.json named "kubeforge" and bin/kubeforge.js)`,
        'pass the folder of a built kubeforge (with dist/) or a .tgz of one',
      );
    if (!existsSync(join(dir, 'dist', 'cli', 'index.js')))
      throw fail(
        'KF1323',
        `${flag} ${spec}: kubeforge is not built (no dist/cli/index.js)`,
        `run npm run build in ${dir}`,
      );
    return { dir: runnable(dir, work, spec), version: pkg.version ?? spec, label: `${pkg.version ?? '?'} (${spec})` };
  }
  // The exact kubeforge the project depends on, when init packed it into .kubeforge/.
  const referenced = /"kubeforge":\s*"file:(\.kubeforge\/kubeforge-[^"]+\.tgz)"/.exec(userPackageJson ?? '')?.[1];
  const packed = existsSync(join(project, TARBALL_DIR))
    ? readdirSync(join(project, TARBALL_DIR)).filter(
        (n) => n === `kubeforge-${spec}.tgz` || (n.startsWith(`kubeforge-${spec}-`) && n.endsWith('.tgz')),
      )
    : [];
  const own =
    referenced && packed.includes(basename(referenced))
      ? basename(referenced)
      : packed.length === 1
        ? packed[0]
        : undefined;
  if (own && side === 'from')
    return {
      dir: runnable(unpack(join(project, TARBALL_DIR, own), work, spec), work, spec),
      version: spec,
      label: `${spec} (${TARBALL_DIR}/${own})`,
    };
  if (spec === running) return { dir: packageRoot(), version: running, label: `${running} (running)` };
  return fetchKubeforge(spec, flag, work, trust, io);
}

/** What vouches for a kubeforge fetched from a registry: the integrity recorded for its version, or the user's opt-in. */
interface Trust {
  /** The integrity PROJECT (cliIntegrity, for its cliVersion) or the committed package-lock.json records, by version. */
  integrity(version: string): { value: string; where: string } | undefined;
  allowUnverified: boolean;
}

/** A version npm resolves from the registry and nothing else (no tag, range, URL, git or file spec, which npm pack would fetch or build otherwise). */
const EXACT_VERSION = /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * `npm pack kubeforge@<version>` (scripts off), verified before anything of it runs: the
 * tarball's sha512 must equal the integrity recorded for that version (KF1329 otherwise, nothing
 * run). Without a recorded integrity the registry is not asked at all, unless
 * --allow-unverified-cli: whoever holds the name on the registry decides what it serves.
 */
function fetchKubeforge(spec: string, flag: string, work: string, trust: Trust, io: CommandIo): Kubeforge {
  if (!EXACT_VERSION.test(spec))
    throw fail(
      'KF1323',
      `kubeforge ${JSON.stringify(spec)} is not a version (x.y.z): only an exact version is fetched from a registry`,
      `pass ${flag} <version>, or a path to a kubeforge package folder or .tgz`,
    );
  const version = spec.replace(/^v/, '');
  const recorded = trust.integrity(version);
  if (!recorded && !trust.allowUnverified)
    throw fail(
      'KF1329',
      `kubeforge ${version} is not in the project (${TARBALL_DIR}/), and nothing recorded says what its package must be (no ${CLI_INTEGRITY_KEY} in ${PROJECT_FILE} for it, no integrity in package-lock.json): it is not fetched from a registry, where whoever holds the name "kubeforge" decides what it serves`,
      `pass ${flag} <path to a kubeforge ${version} package folder or .tgz you trust>, or --allow-unverified-cli to run what the registry serves`,
    );
  io.err(`Fetching kubeforge ${version} with npm pack...\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(
    npm,
    ['pack', `kubeforge@${version}`, '--pack-destination', work, '--silent', '--ignore-scripts'],
    {
      cwd: work,
      encoding: 'utf8',
      timeout: 5 * 60_000,
    },
  );
  const file = r.status === 0 ? r.stdout.trim().split('\n').pop() : undefined;
  if (!file || !existsSync(join(work, file))) {
    throw fail(
      'KF1323',
      `kubeforge ${spec} could not be obtained: the project has no ${TARBALL_DIR}/kubeforge-${spec}-*.tgz, and npm pack kubeforge@${spec} failed${r.stderr ? ` (${r.stderr.trim().split('\n').pop()})` : ''}`,
      `pass ${flag} <path to a kubeforge ${spec} package folder or .tgz>`,
    );
  }
  const got = integrityOf(readFileSync(join(work, file)));
  if (recorded && got !== recorded.value)
    throw fail(
      'KF1329',
      `kubeforge ${version} from the registry is not the package ${recorded.where} records: its integrity is ${got}, ${recorded.where} says ${recorded.value}; it was not run`,
      `someone else's package is served under that name and version, or the record was changed: pass ${flag} <path to a kubeforge ${version} package folder or .tgz you trust>`,
    );
  if (!recorded)
    io.err(
      `warning: kubeforge ${version} from the registry is run unverified (--allow-unverified-cli); its integrity is ${got}\n`,
    );
  return {
    dir: runnable(unpack(join(work, file), work, version), work, version),
    version,
    label: `${version} (npm${recorded ? `, integrity as ${recorded.where} records` : ', unverified'})`,
  };
}

/**
 * What a kubeforge package is, for comparing two: the version and the bytes of the files it
 * packs (package.json aside: npm and kubeforge's own packing write it differently).
 */
function packageIdentity(dir: string): string {
  const host = new DiskHost(dir);
  const h = createHash('sha256').update(readPackage(dir)?.version ?? '');
  for (const f of packFileList(host))
    if (f !== 'package.json') h.update(`\0${f}\0`).update(host.read(f) ?? Buffer.alloc(0));
  return h.digest('hex');
}

/** Files of a folder (relative, sorted), without the ignored top-level folders. */
function filesOf(dir: string, under = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, under)).sort()) {
    if (!under && IGNORED_TOP.has(name)) continue;
    const rel = under ? `${under}/${name}` : name;
    if (statSync(join(dir, rel)).isDirectory()) out.push(...filesOf(dir, rel));
    else out.push(rel);
  }
  return out;
}

/** The clean scaffold of `kf` for the project's PROJECT, made by that kubeforge's `alpha generate` into `out`. */
function scaffoldWith(kf: Kubeforge, seed: string, out: string, source: string, io: CommandIo, what: string): void {
  io.err(`Scaffolding the ${what} with kubeforge ${kf.label}...\n`);
  const args = [
    'alpha',
    'generate',
    '--input-dir',
    seed,
    '--output-dir',
    out,
    '--skip-install',
    '--kubeforge-source',
    source,
    '--no-color',
  ];
  const r = spawnSync(process.execPath, [join(kf.dir, 'bin', 'kubeforge.js'), ...args], {
    cwd: seed,
    encoding: 'utf8',
    timeout: 10 * 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (r.status !== 0) {
    const said = `${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim().split('\n').slice(-8).join('\n');
    throw fail(
      'KF1324',
      `kubeforge ${kf.label} could not re-scaffold the project for the ${what} (alpha generate exited ${r.status ?? r.signal}):\n${said}`,
      'alpha update needs a kubeforge with `alpha generate` on both sides; pass --from-version / --to-version with one that has it',
    );
  }
}

type Side = Map<string, { data: Buffer; mode: string }>;

function sideOf(dir: string): Side {
  const m: Side = new Map();
  for (const f of filesOf(dir))
    m.set(f, { data: readFileSync(join(dir, f)), mode: statSync(join(dir, f)).mode & 0o111 ? '100755' : '100644' });
  return m;
}

/** The user's files as committed on `ref` (under the project's folder in the repository). */
function committedSide(git: Git, ref: string, prefix: string): Side {
  const listing = git(['ls-tree', '-r', '-z', '--full-tree', ref, '--', prefix || '.']).stdout.toString('utf8');
  const entries = listing
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta, path] = line.split('\t');
      const [mode, type, sha] = meta.split(' ');
      return { mode, type, sha, path: path.slice(prefix.length) };
    })
    .filter((e) => e.type === 'blob' && !IGNORED_TOP.has(e.path.split('/')[0]));
  const m: Side = new Map();
  if (!entries.length) return m;
  const out = git(['cat-file', '--batch'], { input: `${entries.map((e) => e.sha).join('\n')}\n` }).stdout;
  let at = 0;
  for (const e of entries) {
    const nl = out.indexOf(10, at);
    const size = Number(out.subarray(at, nl).toString('utf8').split(' ')[2]);
    m.set(e.path, { data: out.subarray(nl + 1, nl + 1 + size), mode: e.mode === '100755' ? '100755' : '100644' });
    at = nl + 1 + size + 1;
  }
  return m;
}

/** git merge-file's three-way merge of one file: the merged bytes and whether it has conflicts. */
function mergeFile(
  git: Git,
  work: string,
  path: string,
  ancestor: Buffer,
  ours: Buffer,
  theirs: Buffer,
  labels: [string, string, string],
): { data: Buffer; conflicted: boolean } {
  const dir = mkdtempSync(join(work, 'merge-'));
  const [o, b, t] = ['ours', 'base', 'theirs'].map((n) => join(dir, n));
  writeFileSync(o, ours);
  writeFileSync(b, ancestor);
  writeFileSync(t, theirs);
  const r = git(
    [
      'merge-file',
      '-p',
      '-L',
      `${labels[0]}:${path}`,
      '-L',
      `${labels[1]}:${path}`,
      '-L',
      `${labels[2]}:${path}`,
      o,
      b,
      t,
    ],
    { allowFail: true },
  );
  rmSync(dir, { recursive: true, force: true });
  // Exit status: the number of conflicts (capped at 127); negative (>127 as a byte) on an error.
  if (r.status === null || r.status > 127)
    throw fail(
      'KF1320',
      `git merge-file failed on ${path}: ${r.stderr.toString('utf8').trim()}`,
      "see git's message; nothing was changed",
    );
  return { data: r.stdout, conflicted: r.status > 0 };
}

const isBinary = (b: Buffer) => b.subarray(0, 8000).includes(0);

/** The result of the three-way merge: per file its new bytes (null: removed), the conflicts and their notes. */
interface Merged {
  result: Map<string, { data: Buffer; mode: string } | null>;
  conflicts: string[];
  notes: Diagnostic[];
}

/** Where and how the merge ran, for the steps after it. */
interface UpdateRun {
  git: Git;
  project: string;
  work: string;
  fromBranch: string;
  prefix: string;
  from: Kubeforge;
  to: Kubeforge;
  /** The output branch; undefined with --in-place. */
  branch?: string;
}

/** Runs the update; see the file's comment. */
export async function runUpdate(options: UpdateOptions, io: CommandIo): Promise<UpdateResult> {
  const project = resolve(io.cwd);
  const restore = checkFlags(options, project);
  // SIGINT / SIGTERM: a flag read at the checkpoints between the steps (the steps run git and
  // kubeforge synchronously); the temporary scaffolds go in the finally, a result being written
  // is taken back, and the exit is 130 / 143 with the disk as it was.
  const guard = await CommandGuard.enter(undefined, 'alpha update');
  try {
    return await update(options, io, project, restore, guard);
  } finally {
    guard.release();
  }
}

/**
 * The flags that need no repository: `--output-branch` names a branch that `--in-place` does not
 * make (KF1325), and each `--restore-path` is a path inside the project (KF1327); returns those
 * paths relative to the project, `/`-separated.
 */
function checkFlags(options: UpdateOptions, project: string): string[] {
  if (options.inPlace && options.outputBranch !== undefined)
    throw fail(
      'KF1325',
      `--output-branch ${options.outputBranch} and --in-place: --in-place writes into the current work tree and makes no branch`,
      'pass one of them: --in-place to merge into the work tree, or --output-branch <name> for a new branch',
    );
  const restore: string[] = [];
  for (const given of options.restorePath ?? []) {
    const rel = relative(project, resolve(project, given.trim())).split(sep).join('/');
    if (given.trim() === '' || rel === '' || rel === '..' || rel.startsWith('../') || isAbsolute(rel))
      throw fail(
        'KF1327',
        `--restore-path ${JSON.stringify(given)}: ${given.trim() === '' ? 'an empty path' : rel === '' ? 'the whole project (nothing would be updated)' : `outside the project (${project})`}`,
        'name a file or folder of the project, relative to it (e.g. --restore-path .github/workflows)',
      );
    restore.push(rel);
  }
  return restore;
}

/** --restore-path: each path names a file or folder on the user's branch (KF1327 otherwise). */
function checkRestorePaths(restore: string[], original: Side, fromBranch: string): void {
  const never = restore.filter((p) => IGNORED_TOP.has(p.split('/')[0]));
  if (never.length)
    throw fail(
      'KF1327',
      `--restore-path ${never.join(', ')}: alpha update never merges ${[...IGNORED_TOP].sort().join(', ')}, so there is nothing to keep`,
      'leave it out: those folders stay as they are on your branch',
    );
  const missing = restore.filter((p) => ![...original.keys()].some((f) => f === p || f.startsWith(`${p}/`)));
  if (missing.length)
    throw fail(
      'KF1327',
      `--restore-path ${missing.join(', ')}: no such file or folder committed on ${fromBranch}, so there is nothing to keep`,
      `name files or folders of your branch (git ls-files shows them); check the spelling`,
    );
}

async function update(
  options: UpdateOptions,
  io: CommandIo,
  project: string,
  restore: string[],
  guard: CommandGuard,
): Promise<UpdateResult> {
  const git = gitIn(project);
  const { prefix, fromBranch } = checkRepository(git, project, options);
  const original = committedSide(git, fromBranch, prefix);
  checkRestorePaths(restore, original, fromBranch);
  const recorded = recordedVersion(original, fromBranch, project);
  const fromSpec = options.fromVersion ?? recorded;
  if (fromSpec === undefined) {
    throw fail(
      'KF1322',
      `${PROJECT_FILE} does not record the kubeforge version that made the project (no cliVersion)`,
      'pass --from-version <version, or path to that kubeforge package folder or .tgz>',
      { file: join(project, PROJECT_FILE), line: 1 },
    );
  }
  const work = mkdtempSync(join(tmpdir(), 'kubeforge-update-'));
  const nothing = 'nothing was changed (the temporary scaffolds are removed)';
  try {
    const userPackage = original.get('package.json')?.data.toString('utf8');
    const trust = trustOf(original, options);
    const from = resolveKubeforge(fromSpec, 'from', project, io.cwd, work, userPackage, io, trust);
    await guard.checkpoint(nothing);
    const to = resolveKubeforge(options.toVersion, 'to', project, io.cwd, work, userPackage, io, trust);
    await guard.checkpoint(nothing);
    const branch = options.inPlace
      ? undefined
      : (options.outputBranch ?? `kubeforge-update-from-${from.version}-to-${to.version}`);
    if (branch !== undefined) checkOutputBranch(git, branch);
    const run: UpdateRun = { git, project, work, fromBranch, prefix, from, to, branch };
    const { ancestor, upgrade } = await interruptible(guard, nothing, () =>
      scaffoldSides(run, original, userPackage, io, guard),
    );
    await guard.checkpoint(nothing);
    io.err('Merging...\n');
    const merged = mergeSides(run, restore, { ancestor, original, upgrade });
    carryTarball(run, merged.result, upgrade, userPackage, original);
    const migrated = migrateUserCode(run, merged, original);
    refuseLinks(run, merged.result);
    await guard.checkpoint(nothing);
    const written = startWrite(run);
    if (merged.result.size > 0)
      io.err(`Writing the result to ${branch === undefined ? 'the work tree' : `branch ${branch}`}...\n`);
    let result: ReturnType<typeof writeResult>;
    try {
      result = writeResult(run, options, merged, written);
    } catch (e) {
      const failed = written.undo();
      if (guard.interrupted) throw new InterruptedError(guard.interrupted, undone(nothing, failed));
      throw e;
    }
    await guard.checkpoint('the result was taken back: nothing was changed', () => written.undo());
    const { changed, removed, committed } = result;
    reportUpdate(run, options, io, merged, changed, removed, committed, migrated);
    return {
      from: from.version,
      to: to.version,
      branch: merged.result.size > 0 ? branch : undefined,
      committed,
      changed,
      removed,
      conflicts: merged.conflicts,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A git work tree with PROJECT, nothing uncommitted, and a --from-branch that exists; its prefix and that branch. */
function checkRepository(git: Git, project: string, options: UpdateOptions): { prefix: string; fromBranch: string } {
  const inside = git(['rev-parse', '--is-inside-work-tree'], { allowFail: true });
  if (inside.status !== 0)
    throw fail(
      'KF1320',
      `${project} is not in a git repository`,
      'alpha update writes its result on a git branch and merges with git: run git init && git add -A && git commit first',
    );
  const prefix = git.text(['rev-parse', '--show-prefix']);
  if (!existsSync(join(project, PROJECT_FILE)))
    throw fail(
      'KF1322',
      `no ${PROJECT_FILE} file in ${project}`,
      'run alpha update in the folder of a project made by kubeforge init',
    );
  const dirty = git(['status', '--porcelain', '--untracked-files=normal', '--', '.'])
    .stdout.toString('utf8')
    .split('\n')
    .filter(Boolean);
  if (dirty.length) {
    const files = dirty.slice(0, 10).map((l) => l.slice(3));
    throw fail(
      'KF1321',
      `the work tree has changes that are not committed (${files.join(', ')}${dirty.length > 10 ? ', ...' : ''})`,
      'commit or stash them first (git stash -u): alpha update never touches uncommitted work',
    );
  }
  const current = git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true })
    .stdout.toString('utf8')
    .trim();
  const fromBranch = options.fromBranch ?? (current || 'HEAD');
  if (git(['rev-parse', '--verify', '--quiet', `${fromBranch}^{commit}`], { allowFail: true }).status !== 0) {
    throw fail(
      'KF1325',
      `--from-branch ${fromBranch}: no such branch or commit`,
      'name a branch that holds the project (git branch --list)',
    );
  }
  if (
    options.inPlace &&
    options.fromBranch &&
    git.text(['rev-parse', `${fromBranch}^{commit}`]) !== git.text(['rev-parse', 'HEAD'])
  ) {
    throw fail(
      'KF1325',
      `--in-place writes into the current work tree, which is not --from-branch ${fromBranch}`,
      `git checkout ${fromBranch} first, or leave out --in-place`,
    );
  }
  return { prefix, fromBranch };
}

/**
 * The integrities the user's branch records: PROJECT's cliIntegrity for its cliVersion (written by
 * init), else the committed package-lock.json's for node_modules/kubeforge at that version
 * (written by npm install). A PROJECT cliIntegrity that is not a sha512 integrity counts as none.
 */
function trustOf(original: Side, options: UpdateOptions): Trust {
  const projectText = original.get(PROJECT_FILE)?.data.toString('utf8') ?? '';
  const { config } = ProjectFile.parse(projectText);
  const cliVersion = config.extra?.cliVersion;
  const cliIntegrity = config.extra?.[CLI_INTEGRITY_KEY];
  const lock = original.get('package-lock.json')?.data.toString('utf8');
  return {
    allowUnverified: options.allowUnverifiedCli === true,
    integrity(version) {
      if (typeof cliVersion === 'string' && cliVersion.replace(/^v/, '') === version && isSha512Integrity(cliIntegrity))
        return { value: cliIntegrity, where: `${PROJECT_FILE} (${CLI_INTEGRITY_KEY})` };
      const locked = projectLockedIntegrity(lock, version);
      return locked ? { value: locked, where: 'package-lock.json' } : undefined;
    },
  };
}

/** The kubeforge version PROJECT records (cliVersion) on the branch; KF1322 without a committed PROJECT. */
function recordedVersion(original: Side, fromBranch: string, project: string): string | undefined {
  const projectText = original.get(PROJECT_FILE)?.data.toString('utf8');
  if (projectText === undefined)
    throw fail(
      'KF1322',
      `${fromBranch} has no committed ${PROJECT_FILE}`,
      'commit PROJECT, or pass --from-branch with the branch that has the project',
    );
  const { config } = ProjectFile.parse(projectText, join(project, PROJECT_FILE));
  const recorded = typeof config.extra?.cliVersion === 'string' ? config.extra.cliVersion : undefined;
  return recorded;
}

/** --output-branch: a valid name, not taken. */
function checkOutputBranch(git: Git, branch: string): void {
  if (git(['check-ref-format', '--branch', branch], { allowFail: true }).status !== 0)
    throw fail(
      'KF1325',
      `--output-branch ${branch}: not a valid branch name`,
      'pass a name git accepts (git check-ref-format --branch <name>)',
    );
  if (git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { allowFail: true }).status === 0) {
    throw fail(
      'KF1325',
      `branch ${branch} already exists`,
      `delete it (git branch -D ${branch}) or pass --output-branch <another name>`,
    );
  }
}

/**
 * Migrates the project's own TypeScript (src/ and test/) to the API of the kubeforge updated to
 * (./codemods.ts): imports of names moved out of the runtime root, renamed types and options.
 * Works on the merged text where the merge wrote a file, else on the committed one; files left
 * with conflicts are not touched. Returns the changes per file, for the report.
 */
function migrateUserCode(run: UpdateRun, merged: Merged, original: Side): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let exportsOfTarget: Record<string, unknown> = {};
  try {
    exportsOfTarget =
      (JSON.parse(readFileSync(join(run.to.dir, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> })
        .exports ?? {};
  } catch {
    return out; // no package.json to judge by: migrate nothing
  }
  const available = (module: string) => `./${module.replace(/^kubeforge\/?/, '')}` in exportsOfTarget;
  const conflicted = new Set(merged.conflicts.map((c) => c.split(' ')[0]));
  for (const [file, entry] of original) {
    if (!/^(src|test)\/.*\.(ts|mts|cts)$/.test(file) || /\.d\.ts$/.test(file) || conflicted.has(file)) continue;
    const current = merged.result.has(file) ? merged.result.get(file) : entry;
    if (!current) continue; // removed by the merge
    const text = current.data.toString('utf8');
    if (!text.includes('kubeforge/runtime')) continue;
    const m = migrateSource(text, file, available);
    if (m.changes.length === 0) continue;
    merged.result.set(file, { data: Buffer.from(m.text), mode: current.mode });
    out.set(file, m.changes);
  }
  return out;
}

/** The ancestor (the old kubeforge's scaffold) and the upgrade (the new one's), both made with alpha generate from the project's PROJECT. */
function scaffoldSides(
  run: UpdateRun,
  original: Side,
  userPackage: string | undefined,
  io: CommandIo,
  guard: CommandGuard,
): { ancestor: Side; upgrade: Side } {
  const { work, from, to } = run;
  // What alpha generate reads: PROJECT, the license header, package.json (the manifests options); no user code.
  const seed = join(work, 'seed');
  mkdirSync(seed);
  for (const f of [PROJECT_FILE, BOILERPLATE_FILE, 'package.json']) {
    const e = original.get(f);
    if (e) {
      mkdirSync(dirname(join(seed, f)), { recursive: true });
      writeFileSync(join(seed, f), e.data);
    }
  }
  // Both scaffolds depend on kubeforge the way the project does (init --kubeforge-source).
  const userDep = /"kubeforge":\s*"([^"]*)"/.exec(userPackage ?? '')?.[1];
  const source =
    userDep === undefined || userDep.startsWith(`file:${TARBALL_DIR}/`)
      ? 'tarball'
      : userDep.startsWith('file:')
        ? 'link'
        : 'registry';
  scaffoldWith(from, seed, join(work, 'ancestor'), source, io, 'ancestor');
  // Between the two scaffolds: an interruption stops before the second one.
  if (guard.interrupted) throw new InterruptedError(guard.interrupted, 'nothing was changed');
  scaffoldWith(to, seed, join(work, 'upgrade'), source, io, 'upgrade');
  const ancestor = sideOf(join(work, 'ancestor'));
  const upgrade = sideOf(join(work, 'upgrade'));
  // The ancestor depends on kubeforge as the user's package.json did: that line is the user's, not a change of theirs.
  const dep = (text: string | undefined) => /"kubeforge":\s*"[^"]*"/.exec(text ?? '')?.[0];
  // So does the upgrade when both are the same kubeforge (its own packing would only rename the tarball).
  const sameKubeforge = from.dir === to.dir || packageIdentity(from.dir) === packageIdentity(to.dir);
  // PROJECT's cliIntegrity is the user's too (the ancestor's kubeforge, unpacked here, has none to record).
  const integrityLine = (text: string | undefined) =>
    new RegExp(`^${CLI_INTEGRITY_KEY}: .*\n`, 'm').exec(text ?? '')?.[0];
  const userProject = original.get(PROJECT_FILE)?.data.toString('utf8');
  const userIntegrity = integrityLine(userProject);
  const cliVersionLine = (text: string | undefined) => /^cliVersion: .*$/m.exec(text ?? '')?.[0];
  // The upgrade too when it records the same cliVersion: the integrity is that version's package's,
  // and the user's record of it (or its absence) stands; a kubeforge npm installed would add one.
  for (const side of [ancestor, upgrade]) {
    const project = side.get(PROJECT_FILE);
    if (!project) continue;
    const text = project.data.toString('utf8');
    if (side === upgrade && cliVersionLine(text) !== cliVersionLine(userProject)) continue;
    if (side === ancestor && !userIntegrity) continue;
    const without = text.replace(new RegExp(`^${CLI_INTEGRITY_KEY}: .*\n`, 'm'), '');
    // PROJECT's keys are sorted: cliIntegrity comes right before cliVersion.
    project.data = Buffer.from(userIntegrity ? without.replace(/^(cliVersion: .*\n)/m, `${userIntegrity}$1`) : without);
  }
  for (const side of sameKubeforge ? [ancestor, upgrade] : [ancestor]) {
    const pkg = side.get('package.json');
    if (!pkg) continue;
    const mine = dep(userPackage);
    const theirs = dep(pkg.data.toString('utf8'));
    if (mine && theirs) pkg.data = Buffer.from(pkg.data.toString('utf8').replace(theirs, mine));
  }
  return { ancestor, upgrade };
}

/** The three-way merge of every file: the upgrade's change where the user made none, git merge-file where both did. */
function mergeSides(
  run: UpdateRun,
  restore: string[],
  sides: { ancestor: Side; original: Side; upgrade: Side },
): Merged {
  const { git, project, work, fromBranch, from, to } = run;
  const { ancestor, original, upgrade } = sides;
  const restored = (f: string) => restore.some((p) => f === p || f.startsWith(`${p}/`));
  const labels: [string, string, string] = [
    `original (${fromBranch})`,
    `ancestor (kubeforge ${from.version})`,
    `upgrade (kubeforge ${to.version})`,
  ];
  const result = new Map<string, { data: Buffer; mode: string } | null>();
  const conflicts: string[] = [];
  const notes: Diagnostic[] = [];
  const all = [...new Set([...ancestor.keys(), ...original.keys(), ...upgrade.keys()])].sort();
  for (const f of all) {
    const a = ancestor.get(f);
    const o = original.get(f);
    const u = upgrade.get(f);
    if (restored(f)) continue;
    const same = (x?: { data: Buffer }, y?: { data: Buffer }) =>
      x === undefined ? y === undefined : y !== undefined && x.data.equals(y.data);
    if (same(o, u) || same(a, u)) continue; // nothing new from the upgrade for this file
    if (same(a, o)) {
      result.set(f, u ?? null); // unchanged by the user: the upgrade's version (or its removal)
      continue;
    }
    // Both sides changed the file.
    if (!o || !u) {
      conflicts.push(f);
      notes.push(
        warning(
          'KF1326',
          o
            ? `${f}: you changed it and kubeforge ${to.version} no longer scaffolds it; kept as yours`
            : `${f}: you deleted it and kubeforge ${to.version} changed it; left deleted`,
          { file: join(project, f), hint: 'decide whether the project still needs it' },
        ),
      );
      continue;
    }
    if (isBinary(o.data) || isBinary(u.data) || (a && isBinary(a.data))) {
      conflicts.push(f);
      notes.push(
        warning('KF1326', `${f}: a binary file both you and kubeforge ${to.version} changed; kept as yours`, {
          file: join(project, f),
          hint: 'compare it with the new scaffold by hand',
        }),
      );
      continue;
    }
    const merged = mergeFile(git, work, f, a?.data ?? Buffer.alloc(0), o.data, u.data, labels);
    if (!merged.data.equals(o.data)) result.set(f, { data: merged.data, mode: o.mode });
    if (merged.conflicted) {
      conflicts.push(f);
      const line =
        merged.data
          .toString('utf8')
          .split('\n')
          .findIndex((l) => l.startsWith('<<<<<<< ')) + 1;
      notes.push(
        warning(
          'KF1326',
          `${f}: your changes and kubeforge ${to.version}'s overlap; both are kept between conflict markers`,
          {
            file: join(project, f),
            line: line || undefined,
            hint: 'keep what you want between <<<<<<< and >>>>>>>, remove the markers',
          },
        ),
      );
    }
  }
  return { result, conflicts, notes };
}

/** The new kubeforge's tarball, when the upgrade's package.json depends on one (init packs it); the old one goes when nothing names it. */
function carryTarball(
  run: UpdateRun,
  result: Merged['result'],
  upgrade: Side,
  userPackage: string | undefined,
  original: Side,
): void {
  const { git, work, fromBranch, prefix } = run;
  const newTarball = /"kubeforge":\s*"file:(\.kubeforge\/kubeforge-[^"]+\.tgz)"/.exec(
    upgrade.get('package.json')?.data.toString('utf8') ?? '',
  )?.[1];
  const isCommitted = (f: string) =>
    git(['cat-file', '-e', `${fromBranch}:${prefix}${f}`], { allowFail: true }).status === 0;
  if (newTarball && existsSync(join(work, 'upgrade', newTarball)) && !isCommitted(newTarball)) {
    result.set(newTarball, { data: readFileSync(join(work, 'upgrade', newTarball)), mode: '100644' });
    const oldTarball = /"kubeforge":\s*"file:(\.kubeforge\/kubeforge-[^"]+\.tgz)"/.exec(userPackage ?? '')?.[1];
    const mergedPkg = (result.get('package.json') ?? original.get('package.json'))?.data.toString('utf8') ?? '';
    if (oldTarball && isCommitted(oldTarball) && !mergedPkg.includes(oldTarball)) result.set(oldTarball, null);
  }
}

/** What writing the result changed so far, and how to take it back. */
interface Written {
  /** The branch made (checked out), if any. */
  branch?: string;
  /** Project files written or removed (relative). */
  paths: string[];
  /** Folders made for them (the outermost of each mkdir). */
  dirs: string[];
  /** Puts the work tree, the index and the branches back as they were; returns the paths it could not restore. */
  undo(): string[];
}

/**
 * Starts writing: what HEAD was (a branch, or a commit when detached), so that {@link Written.undo}
 * can check it out again, drop the new branch, restore the files as HEAD has them (those it does
 * not have are removed) and the index with them. The tree was clean (checkRepository), and
 * --in-place writes only into HEAD's.
 */
function startWrite(run: UpdateRun): Written {
  const { git, project, prefix } = run;
  const head =
    git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true }).stdout.toString('utf8').trim() ||
    git.text(['rev-parse', 'HEAD']);
  const written: Written = {
    paths: [],
    dirs: [],
    undo() {
      const failed: string[] = [];
      if (written.branch !== undefined) {
        git(['checkout', '--quiet', '--force', head], { allowFail: true });
        git(['branch', '--quiet', '-D', written.branch], { allowFail: true });
        written.branch = undefined;
      }
      for (const f of written.paths) {
        const tracked = git(['cat-file', '-e', `${head}:${prefix}${f}`], { allowFail: true }).status === 0;
        if (!tracked && existsSync(join(project, f))) rmSync(join(project, f), { force: true });
        const r = tracked ? git(['checkout', '--quiet', head, '--', f], { allowFail: true }) : { status: 0 };
        if (r.status !== 0) failed.push(f);
      }
      git(['reset', '--quiet'], { allowFail: true });
      for (const d of [...written.dirs].reverse()) removeEmptyDirs(d, project);
      written.paths = [];
      written.dirs = [];
      return failed;
    },
  };
  return written;
}

/** Removes `dir` and the empty folders under it, bottom up, when nothing else is in them. */
function removeEmptyDirs(dir: string, project: string): void {
  if (!dir.startsWith(`${project}${sep}`) || !existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (lstatSync(p).isDirectory()) removeEmptyDirs(p, project);
  }
  if (readdirSync(dir).length === 0) rmSync(dir, { recursive: false, force: true });
}

const undone = (state: string, failed: string[]) =>
  failed.length ? `${state}, except: could not restore ${failed.join(', ')}` : state;

/** Test only: KUBEFORGE_TEST_COMMIT_DELAY_MS makes each written file wait, so a test can signal in the middle. */
function testDelay(): void {
  const ms = Number(process.env.KUBEFORGE_TEST_COMMIT_DELAY_MS) || 0;
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * A step that runs other programs synchronously: when a signal arrived meanwhile (and stopped
 * them too, as a terminal's Ctrl-C does), the failure it caused is the interruption.
 */
async function interruptible<T>(guard: CommandGuard, state: string, step: () => T): Promise<T> {
  try {
    return step();
  } catch (e) {
    await guard.checkpoint(state);
    throw e;
  }
}

/**
 * The result is never written through a symbolic link (as Kubebuilder's scaffolding refuses one):
 * a file the result writes or removes that is a link on the user's branch, or lies under a linked
 * folder, is KF1328, before anything is written. The link would carry the write outside the file
 * git tracks (another file, or outside the project).
 */
function refuseLinks(run: UpdateRun, result: Merged['result']): void {
  const { git, project, fromBranch, prefix } = run;
  const links = new Map<string, string>();
  const listing = git(['ls-tree', '-r', '-z', '--full-tree', fromBranch, '--', prefix || '.']).stdout.toString('utf8');
  for (const line of listing.split('\0').filter(Boolean)) {
    const [meta, path] = line.split('\t');
    if (meta.startsWith('120000 ')) links.set(path.slice(prefix.length), meta.split(' ')[2]);
  }
  const problems: Diagnostic[] = [];
  for (const f of [...result.keys()].sort()) {
    const parts = f.split('/');
    const link = parts.map((_, i) => parts.slice(0, i + 1).join('/')).find((p) => links.has(p));
    const blob = link === undefined ? undefined : links.get(link);
    if (link === undefined || blob === undefined) continue;
    const target = git.text(['cat-file', 'blob', blob]);
    problems.push(
      error(
        'KF1328',
        link === f
          ? `${f} is a symbolic link (to ${target}): alpha update does not write through it`
          : `${f} is under ${link}, a symbolic link (to ${target}): alpha update does not write through it`,
        {
          file: join(project, link),
          hint: `replace the link with the file itself and commit, or keep it as it is with --restore-path ${link}; nothing was changed`,
        },
      ),
    );
  }
  if (problems.length) throw new DiagnosticError(problems);
}

/** Writes the result: on a new branch from the user's (or the current work tree with --in-place), committed unless it has conflicts. */
function writeResult(
  run: UpdateRun,
  options: UpdateOptions,
  merged: Merged,
  written: Written,
): { changed: string[]; removed: string[]; committed: boolean } {
  const { git, project, fromBranch, from, to, branch } = run;
  const { result, conflicts } = merged;
  if (branch !== undefined && result.size > 0) {
    git(['checkout', '--quiet', '-b', branch, fromBranch]);
    written.branch = branch;
  }
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [f, v] of result) {
    const target = join(project, f);
    written.paths.push(f);
    if (v === null) {
      if (existsSync(target)) unlinkSync(target);
      removed.push(f);
    } else {
      const made = mkdirSync(dirname(target), { recursive: true });
      if (made !== undefined) written.dirs.push(made);
      testDelay();
      writeFileSync(target, v.data);
      chmodSync(target, v.mode === '100755' ? 0o755 : 0o644);
      changed.push(f);
    }
  }
  let committed = false;
  if (branch !== undefined && (conflicts.length === 0 || options.force) && result.size > 0) {
    git(['add', '-A', '--', ...[...result.keys()]]);
    const identity =
      git(['config', 'user.email'], { allowFail: true }).status === 0
        ? []
        : ['-c', 'user.name=kubeforge', '-c', 'user.email=kubeforge@localhost'];
    const message = `kubeforge alpha update: scaffold from kubeforge ${from.version} to ${to.version}\n\nThree-way merge of ${fromBranch} with the scaffolds of both versions.${conflicts.length ? `\nConflicts (markers committed, --force):\n${conflicts.map((c) => `  ${c}`).join('\n')}` : ''}\n`;
    git([...identity, 'commit', '--quiet', '--no-verify', '-m', message]);
    committed = true;
  }
  return { changed, removed, committed };
}

/** Says what was done; the conflicts are an error (KF1326) unless --force. */
function reportUpdate(
  run: UpdateRun,
  options: UpdateOptions,
  io: CommandIo,
  merged: Merged,
  changed: string[],
  removed: string[],
  committed: boolean,
  migrated: Map<string, string[]> = new Map(),
): void {
  const { fromBranch, from, to, branch } = run;
  const { result, conflicts, notes } = merged;
  if (io.report) {
    io.report.details.update = {
      from: from.version,
      to: to.version,
      ...(result.size > 0 && branch !== undefined && { branch }),
      committed,
      conflicts: [...conflicts],
    };
    io.report.recordWritten(run.project, changed, removed);
    if (conflicts.length && options.force) io.report.addDiagnostics(notes);
  }
  const where = branch === undefined ? 'the work tree' : `branch ${branch}`;
  if (result.size === 0)
    io.out(
      `Nothing to update: the scaffolds of kubeforge ${from.version} and ${to.version} bring no change to this project (no branch made).\n`,
    );
  else
    io.out(
      `Updated the scaffold from kubeforge ${from.label} to ${to.label} on ${where}${committed ? ' (committed)' : ' (not committed)'}: ${changed.length} file${changed.length === 1 ? '' : 's'} written, ${removed.length} removed.\n`,
    );
  if (migrated.size > 0) {
    io.out(
      `Your code, migrated to kubeforge ${to.version}'s API (${migrated.size} file${migrated.size === 1 ? '' : 's'}):\n`,
    );
    for (const [file, changes] of [...migrated].sort(([a], [b]) => a.localeCompare(b)))
      io.out(`  ${file}: ${changes.join('; ')}\n`);
  }
  if (conflicts.length) {
    io.out(`Conflicts (${conflicts.length}):\n${conflicts.map((c) => `  ${c}`).join('\n')}\n`);
    if (!options.force) {
      throw new DiagnosticError([
        ...notes.map((n) => ({ ...n, severity: 'error' as const })),
        error(
          'KF1326',
          `${conflicts.length} file${conflicts.length === 1 ? '' : 's'} need${conflicts.length === 1 ? 's' : ''} your merge; the result is in ${where}, not committed (${fromBranch} is unchanged)`,
          {
            hint: 'resolve the markers, then git add -A && git commit (or rerun with --force to commit them as they are)',
          },
        ),
      ]);
    }
    io.err(formatDiagnostics(notes, { color: io.color, cwd: io.cwd }));
  }
  if (result.size > 0) io.err('Next: npm install && npm run manifests, then build and test the project.\n');
}
