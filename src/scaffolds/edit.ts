/**
 * `kubeforge edit`: changes a project after `init`, as Kubebuilder's `edit` does, through the same
 * command runner (plan in one tree, validate, print or commit once, PROJECT last, idempotent: a
 * second identical run plans nothing).
 *
 *  - `--multigroup[=false]`: records the layout in PROJECT. Like Kubebuilder, existing APIs are
 *    not moved; the next `create api` uses the new layout, and the command says what to move.
 *  - `--license apache2|none`, `--owner`: rewrites hack/boilerplate.ts.txt, the header the next
 *    scaffolded files get (files already written keep theirs).
 *  - `--plugins grafana`: adds the plugin's files and records it in PROJECT's `plugins`; run
 *    again, it regenerates the dashboards (the custom-metrics one from its config).
 */
import { join } from 'node:path';
import { DiagnosticError, error, type Diagnostic } from '../diagnostics/index.js';
import { PROJECT_FILE, serializeProject, type ProjectConfig } from '../project/index.js';
import { applySpecs, type Change, DiskHost, type FileSpec, formatPlan, runCommand, TemplateRenderer, Tree } from '../scaffold/index.js';
import { packageRoot } from '../util/package-root.js';
import { readProject } from './api.js';
import type { ScaffoldEnvironment } from './environment.js';
import { CUSTOM_METRICS_CONFIG, GRAFANA_PLUGIN, grafanaFiles, resolvePlugins, withPlugin } from './grafana.js';
import { BOILERPLATE_FILE, checkLicenseAndOwner, ownerOfBoilerplate, renderLicenseHeader } from './init.js';
import { lockRoot, warnReplaced } from './transaction.js';

export interface EditOptions {
  multigroup?: boolean;
  license?: string;
  owner?: string;
  plugins?: string[];
  dryRun?: boolean;
  force?: boolean;
}

export interface EditResult {
  changes: Change[];
  plan: string;
}

interface Plan {
  tree: Tree;
  replaced: string[];
  notes: string[];
}

/** Plans the edit in a tree over the project; writes nothing. */
export async function planEdit(options: EditOptions, env: ScaffoldEnvironment): Promise<Plan> {
  const host = env.host ?? new DiskHost(env.cwd);
  const config = readProject(host, env.cwd);
  const problems: Diagnostic[] = checkLicenseAndOwner(options.license, options.owner);
  let plugins: string[] = [];
  try {
    plugins = resolvePlugins(options.plugins, config.layout[0] ?? '');
  } catch (e) {
    if (e instanceof DiagnosticError) problems.push(...e.diagnostics);
    else throw e;
  }
  if (options.multigroup === undefined && options.license === undefined && options.owner === undefined && plugins.length === 0 && !options.plugins?.length) {
    problems.push(
      error('KF1072', '`kubeforge edit` needs something to change', {
        hint: 'pass --multigroup[=false], --license apache2|none, --owner "<name>" or --plugins grafana',
      }),
    );
  }
  if (problems.length) throw new DiagnosticError(problems);

  const tree = new Tree(host);
  const notes: string[] = [];
  const next: ProjectConfig = { ...config, extra: config.extra ? { ...config.extra } : undefined };
  if (options.multigroup !== undefined && (config.multigroup === true) !== options.multigroup) {
    if (options.multigroup) next.multigroup = true;
    else delete next.multigroup;
    if (config.resources.some((r) => r.path?.startsWith('src/api/'))) {
      notes.push(
        options.multigroup
          ? 'existing APIs stay where they are: move src/api/<version> to src/api/<group>/<version> (and src/controller/*.ts to src/controller/<group>/), then fix their imports and the paths in PROJECT'
          : 'existing APIs stay where they are: move src/api/<group>/<version> to src/api/<version> (and src/controller/<group>/*.ts to src/controller/), then fix their imports and the paths in PROJECT',
      );
    }
  }

  const specs: FileSpec[] = [];
  const kubeforgeDir = env.kubeforgeDir ?? packageRoot();
  const boilerplate = host.read(BOILERPLATE_FILE)?.toString('utf8');
  const license = options.license ?? (boilerplate === undefined ? 'none' : 'apache2');
  if (options.license !== undefined || options.owner !== undefined) {
    if (license === 'none') {
      if (options.owner !== undefined) notes.push('--owner has no effect with --license none (no header is written)');
      if (boilerplate !== undefined) tree.delete(BOILERPLATE_FILE);
    } else {
      const owner = options.owner ?? ownerOfBoilerplate(boilerplate) ?? `The ${config.projectName} Authors`;
      tree.write(BOILERPLATE_FILE, await renderLicenseHeader(new TemplateRenderer(new DiskHost(join(kubeforgeDir, 'templates'))), owner));
    }
    notes.push(`${BOILERPLATE_FILE} is the header of the files kubeforge scaffolds from now on; files already written keep theirs`);
  }

  if (plugins.includes(GRAFANA_PLUGIN)) {
    const config = host.read(CUSTOM_METRICS_CONFIG)?.toString('utf8');
    specs.push(...grafanaFiles(next.projectName, config));
    next.extra = withPlugin(next, GRAFANA_PLUGIN);
  }
  const replaced = await applySpecs(tree, specs, undefined, { force: options.force, tool: 'kubeforge' });
  tree.write(PROJECT_FILE, serializeProject(next));
  return { tree, replaced, notes };
}

/** Runs `kubeforge edit`: under the folder's lock unless --dry-run; one commit, PROJECT last. */
export async function runEdit(options: EditOptions, env: ScaffoldEnvironment): Promise<EditResult> {
  const host = env.host ?? new DiskHost(env.cwd);
  return runCommand<Plan, EditResult>(
    {
      name: 'edit',
      lockRoot: lockRoot(env),
      last: [PROJECT_FILE],
      plan: (ctx) => planEdit(options, { ...env, host, cwd: ctx.cwd }),
      preview: (p, changes, ctx) => {
        const plan = formatPlan(changes, { color: ctx.color });
        ctx.out(plan);
        warnReplaced(ctx, p.replaced, 'would replace');
        return { changes, plan };
      },
      interrupted: { revert: 'nothing was changed' },
      after: async (p, changes, ctx) => {
        const plan = formatPlan(changes, { color: ctx.color });
        ctx.out(plan || 'Nothing to change: the project already has these settings.\n');
        warnReplaced(ctx, p.replaced, 'replaced');
        for (const note of p.notes) ctx.err(`note: ${note}\n`);
        return { changes, plan };
      },
    },
    env,
    { host, dryRun: options.dryRun, force: options.force },
  );
}
