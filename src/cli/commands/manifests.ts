// `kubeforge manifests`: its flags and the command around the manifests pipeline
// (src/manifests/pipeline.ts, imported lazily: it brings the analysis).
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { addFlags, type FlagTable, type FlagValues, flagValues } from '../flags.js';
import { K8S_NEWEST_VERSION, K8S_VERSIONS } from '../../schema/k8s/data/source.js';
import { DiagnosticError, error } from '../../diagnostics/index.js';
import type { CommandIo, CommandContext } from '../../machinery/runner.js';
import type { Analyzer, ManifestsOptions, RunPlan } from '../../manifests/pipeline.js';
import type { Generator } from '../../manifests/generators.js';
import type { ManifestsSettings } from '../../manifests/settings.js';

export const MANIFESTS_FLAGS = {
  check: {
    type: 'switch',
    description: 'write nothing; exit 1 and list the files that would change (for CI drift checks)',
  },
  dryRun: { type: 'switch', description: 'print the plan (CREATE / UPDATE / DELETE) and write nothing' },
  paths: {
    type: 'list',
    value: '<paths...>',
    description:
      'analyse only these files or folders and update only the CRDs of the Kinds found there (role.yaml, webhook manifests and stale files are left as they are)',
  },
  project: { type: 'string', value: '<dir>', default: '.', description: 'project folder (holds tsconfig.json)' },
  tsconfig: { type: 'string', value: '<file>', description: 'tsconfig to load (default: <project>/tsconfig.json)' },
  generatorVersion: {
    type: 'string',
    value: '<version>',
    description:
      'value of the generator-version annotation (default: env KUBEFORGE_GENERATOR_VERSION, else the kubeforge version)',
  },
  cache: { type: 'negated', description: 'always analyse, even when no input changed since the last run' },
  maxDescLen: {
    type: 'string',
    value: '<n>',
    description:
      "cut every description in the CRD schemas to at most n bytes, at a sentence or word boundary (controller-gen's crd:maxDescLen); 0 drops them. Recorded in PROJECT (plugins.manifests.kubeforge.io/v1-alpha: maxDescLen), which later runs read",
  },
  k8sVersion: {
    type: 'string',
    value: '<minor>',
    description: `the Kubernetes minor whose types embedded Kubernetes types (V1PodTemplateSpec, V1Condition, ...) follow, as controller-gen writes them for that k8s.io/api: ${K8S_VERSIONS.join(', ')} (default ${K8S_NEWEST_VERSION}). Recorded in PROJECT (k8sVersion)`,
  },
  generateEmbeddedObjectMeta: {
    type: 'switch',
    description:
      "keep name, namespace, labels, annotations and finalizers in the schema of an ObjectMeta below a Kind's top, such as a pod template's (controller-gen's crd:generateEmbeddedObjectMeta). Recorded in PROJECT (generateEmbeddedObjectMeta)",
  },
  checkCompat: {
    type: 'string',
    value: '<git-ref|dir>',
    description:
      "compare the CRDs being written with those of a base: config/crd/bases at a git ref of the project's repository, or a folder of released CRD YAML; breaking changes in served versions are errors (nothing written), others warnings",
  },
  allow: {
    type: 'list',
    value: '<rule>',
    repeat: true,
    description:
      'with --check-compat: a compatibility rule (docs/manifests.md: CRD compatibility) whose errors become warnings and whose warnings are dropped; repeatable',
  },
} as const satisfies FlagTable;

export function registerManifests(program: Command, ctx: CliContext): void {
  addFlags(
    program
      .command('manifests')
      .description('generate CRD, RBAC and webhook manifests from the decorator markers (like controller-gen)'),
    MANIFESTS_FLAGS,
  )
    .addHelpText(
      'after',
      `
Writes config/crd/bases/<group>_<plural>.yaml (one CRD per group-kind), config/rbac/role.yaml
and config/webhook/manifests.yaml. Every file starts with a "Code generated" header; files it
produced before and no longer produces are removed. Nothing is written when any error is found.

Examples:
  $ kubeforge manifests
  $ kubeforge manifests --check            # CI: exit 1 when the committed manifests are stale
  $ kubeforge manifests --dry-run          # show what would change
  $ kubeforge manifests --paths src/api/v1 # regenerate the CRDs of one API version only
  $ kubeforge manifests --max-desc-len 0   # CRDs without descriptions (smaller; recorded in PROJECT)
  $ kubeforge manifests --generate-embedded-object-meta   # pod templates keep their labels
  $ kubeforge manifests --k8s-version ${K8S_VERSIONS[0]}   # embedded Kubernetes types as of Kubernetes ${K8S_VERSIONS[0]}
  $ kubeforge manifests --check-compat v1.0.0   # fail on CRD changes that break v1.0.0's clients or objects
  $ kubeforge manifests --check-compat release/crds --allow field-removed
  $ kubeforge manifests --project ../guestbook`,
    )
    .action(async (opts: Record<string, unknown>) => {
      await manifestsCommand(flagValues(MANIFESTS_FLAGS, opts), ctx);
    });
}

/**
 * What `manifests` takes: its flags (every one optional, as the tests and `kubeforge dev` call it),
 * with `--max-desc-len` as typed or a number; the pipeline checks it (a whole number, 0 or more;
 * KF1093) and `--k8s-version` (a supported minor; KF1097) once, as it settles the run's options.
 */
export type ManifestsFlags = Partial<Omit<FlagValues<typeof MANIFESTS_FLAGS>, 'maxDescLen'>> & {
  maxDescLen?: string | number;
};

function readSource(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The pipeline's options from the flags (checked here: KF4703; the --check-compat base loaded; the pipeline checks the rest). */
async function manifestsOptions(
  flags: ManifestsFlags,
  io: CommandIo,
  generators?: readonly Generator[],
): Promise<ManifestsOptions> {
  const projectDir = resolve(io.cwd, flags.project ?? '.');
  let compat: ManifestsOptions['compat'];
  if (flags.allow?.length && flags.checkCompat === undefined) {
    throw new DiagnosticError(
      error('KF4703', '--allow names compatibility rules and needs --check-compat <git-ref|dir>', {
        hint: 'e.g. kubeforge manifests --check-compat v1.0.0 --allow field-removed',
      }),
    );
  }
  if (flags.checkCompat !== undefined) {
    const { loadCompatBase, parseAllow } = await import('../../manifests/compat.js');
    const allow = parseAllow(flags.allow);
    const { report } = io;
    compat = {
      base: loadCompatBase(flags.checkCompat, projectDir, io.cwd),
      allow,
      ...(report && { onFinding: (f) => report.addFindings([f]) }),
    };
    // The check ran: `findings` is in the --json document even when it finds nothing.
    report?.addFindings([]);
  }
  return {
    projectDir,
    tsconfigPath: flags.tsconfig ? resolve(io.cwd, flags.tsconfig) : undefined,
    paths: flags.paths?.map((p) => resolve(io.cwd, p)),
    generatorVersion: flags.generatorVersion,
    // Checked once, by the pipeline as it settles the run's options (KF1093, KF1097).
    maxDescLen: flags.maxDescLen,
    embeddedObjectMeta: flags.generateEmbeddedObjectMeta === true || undefined,
    k8sVersion: flags.k8sVersion,
    check: flags.check,
    dryRun: flags.dryRun,
    noCache: flags.cache === false,
    generators,
    compat,
  };
}

/** What a run records in PROJECT: its new text, and the plan line naming what changed. */
interface ProjectRecord {
  text: string;
  line: string;
}

/**
 * --max-desc-len, --generate-embedded-object-meta and --k8s-version are recorded in PROJECT's
 * manifests record (src/manifests/settings.ts), which every later run reads: the new text, planned
 * with the run and written after its commit, or undefined (nothing new to record; no PROJECT: a
 * warning). A value an older project's package.json `manifests` script passes is that script's
 * (`make manifests` passes it again): not recorded; a different one given by hand is, with a
 * warning that the script's flag still wins for make manifests.
 */
async function projectRecord(
  given: ManifestsSettings,
  options: ManifestsOptions,
  ctx: CommandContext,
): Promise<ProjectRecord | undefined> {
  if (given.maxDescLen === undefined && !given.embeddedObjectMeta && given.k8sVersion === undefined) return undefined;
  const [{ describeSettings, MANIFESTS_PLUGIN, projectWithSettings }, { describeFlags, recordedManifestsOptions }] =
    await Promise.all([import('../../manifests/settings.js'), import('../../manifests/script.js')]);
  const script = recordedManifestsOptions(ctx.host.read('package.json')?.toString('utf8'));
  const scriptArgs = {
    maxDescLen: '--max-desc-len',
    embeddedObjectMeta: '--generate-embedded-object-meta',
    k8sVersion: '--k8s-version',
  } as const;
  const toRecord: ManifestsSettings = {};
  for (const k of Object.keys(scriptArgs) as (keyof typeof scriptArgs)[]) {
    if (given[k] === undefined || given[k] === script[k]) continue;
    Object.assign(toRecord, { [k]: given[k] });
    if (script[k] !== undefined)
      ctx.err(
        `warning: package.json's "manifests" script passes ${scriptArgs[k]}${k === 'embeddedObjectMeta' ? '' : ` ${script[k]}`}, which overrides PROJECT's record for make manifests: remove it from the script to keep ${describeSettings({ [k]: given[k] })}\n`,
      );
  }
  if (Object.keys(toRecord).length === 0) return undefined;
  const text = ctx.host.read('PROJECT')?.toString('utf8');
  if (text === undefined) {
    ctx.err(
      `warning: no PROJECT file to record ${describeFlags(toRecord)} in (plugins.${MANIFESTS_PLUGIN}): pass it to every run yourself\n`,
    );
    return undefined;
  }
  const updated = projectWithSettings(text, resolve(options.projectDir, 'PROJECT'), toRecord);
  return (
    updated && {
      text: updated.text,
      line: `UPDATE PROJECT (plugins.${MANIFESTS_PLUGIN}: ${describeSettings(updated.changed)})\n`,
    }
  );
}

/**
 * The `kubeforge manifests` action, through the command runner: a run that writes holds the
 * project's lock (one kubeforge command at a time) and stops before its commit when interrupted
 * (the stage removed, nothing written). Prints the plan; throws DiagnosticError to exit 1.
 */
export async function manifestsCommand(
  flags: ManifestsFlags,
  io: CommandIo,
  analyzer?: Analyzer,
  generators?: readonly Generator[],
): Promise<void> {
  const options = await manifestsOptions(flags, io, generators);
  const [{ planRun }, { formatDiagnostics }, { runCommand }, { DiskHost, Tree }, { formatPlan }] = await Promise.all([
    import('../../manifests/pipeline.js'),
    import('../../diagnostics/index.js'),
    import('../../machinery/runner.js'),
    import('../../machinery/index.js'),
    import('../../manifests/managed-files.js'),
  ]);
  let record: ProjectRecord | undefined;
  const printRecord = () => {
    if (record) io.out(record.line);
  };
  const printWarnings = (run: RunPlan) => {
    io.report?.addDiagnostics(run.warnings);
    if (run.warnings.length > 0)
      io.err(
        formatDiagnostics(run.warnings, {
          color: io.color,
          cwd: io.cwd,
          readSource: (f) => run.sources?.get(f) ?? readSource(f),
        }),
      );
  };
  const printRun = (run: RunPlan, phase: 'plan' | 'result') => {
    printWarnings(run);
    if (run.compatSummary) io.out(run.compatSummary);
    io.report?.recordChanges(phase, options.projectDir, run.changes);
    if (record) io.report?.recordChanges(phase, options.projectDir, [{ kind: 'update', path: 'PROJECT' }]);
  };
  let staged: RunPlan | undefined;
  try {
    await runCommand<{ tree: InstanceType<typeof Tree>; run: RunPlan }, void>(
      {
        name: 'manifests',
        lockRoot: existsSync(options.projectDir) ? options.projectDir : undefined,
        plan: async (ctx) => {
          staged = await planRun({ ...options, reporter: ctx.reporter }, analyzer);
          if (!flags.check) record = await projectRecord(staged.given ?? {}, options, ctx);
          // The files are staged by the pipeline, not planned in a tree: the runner's tree stays empty.
          return { tree: new Tree(ctx.host), run: staged };
        },
        preview: ({ run }) => {
          printRun(run, 'plan');
          if (flags.check) return checkVerdict(run, formatPlan(run.changes, { color: io.color }), io);
          io.out(
            run.changes.length === 0
              ? 'nothing to do: manifests are up to date\n'
              : formatPlan(run.changes, { color: io.color }),
          );
          printRecord();
        },
        commit: ({ run }, ctx) => {
          run.commit();
          if (record) ctx.host.write('PROJECT', Buffer.from(record.text));
        },
        // The staged files are renamed into place synchronously, so a signal is seen once all are.
        interrupted: { keep: 'the manifests were written (every file)' },
        after: async ({ run }) => {
          printRun(run, 'result');
          io.out(
            run.changes.length === 0 ? 'manifests are up to date\n' : formatPlan(run.changes, { color: io.color }),
          );
          printRecord();
        },
      },
      io,
      { host: new DiskHost(options.projectDir), dryRun: Boolean(flags.check || flags.dryRun) },
    );
  } finally {
    staged?.discard();
  }
}

/** --check: up to date, or the plan printed and KF4501. */
function checkVerdict(run: RunPlan, plan: string, io: CommandIo): void {
  io.report?.addFindings(
    run.changes.map((c) => ({
      check: 'check',
      rule: 'out-of-date',
      severity: 'error',
      message: `${c.path} is out of date: kubeforge manifests would ${c.kind} it`,
      file: c.path,
    })),
  );
  if (run.changes.length === 0) {
    io.out('manifests are up to date\n');
    return;
  }
  io.out(plan);
  const n = run.changes.length;
  throw new DiagnosticError(
    error('KF4501', `${n} generated manifest file${n === 1 ? ' is' : 's are'} out of date`, {
      hint: 'run `kubeforge manifests` (npm run manifests) and commit the result',
    }),
  );
}
