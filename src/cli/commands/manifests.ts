// Registers `kubeforge manifests`; the implementation is imported lazily.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { K8S_NEWEST_VERSION, K8S_VERSIONS } from '../../schema/k8s/data/source.js';

export function registerManifests(program: Command, ctx: CliContext): void {
  program
    .command('manifests')
    .description('generate CRD, RBAC and webhook manifests from the decorator markers (like controller-gen)')
    .option('--check', 'write nothing; exit 1 and list the files that would change (for CI drift checks)')
    .option('--dry-run', 'print the plan (CREATE / UPDATE / DELETE) and write nothing')
    .option('--paths <paths...>', 'analyse only these files or folders and update only the CRDs of the Kinds found there (role.yaml, webhook manifests and stale files are left as they are)')
    .option('--project <dir>', 'project folder (holds tsconfig.json)', '.')
    .option('--tsconfig <file>', 'tsconfig to load (default: <project>/tsconfig.json)')
    .option('--generator-version <version>', 'value of the generator-version annotation (default: env KUBEFORGE_GENERATOR_VERSION, else the kubeforge version)')
    .option('--no-cache', 'always analyse, even when no input changed since the last run')
    .option('--max-desc-len <n>', "cut every description in the CRD schemas to at most n bytes, at a sentence or word boundary (controller-gen's crd:maxDescLen); 0 drops them. Recorded in package.json's manifests script, which make manifests runs")
    .option('--k8s-version <minor>', `the Kubernetes minor whose types embedded Kubernetes types (V1PodTemplateSpec, V1Condition, ...) follow, as controller-gen writes them for that k8s.io/api: ${K8S_VERSIONS.join(', ')} (default ${K8S_NEWEST_VERSION}). Recorded in package.json's manifests script`)
    .option('--generate-embedded-object-meta', "keep name, namespace, labels, annotations and finalizers in the schema of an ObjectMeta below a Kind's top, such as a pod template's (controller-gen's crd:generateEmbeddedObjectMeta). Recorded in package.json's manifests script")
    .option('--check-compat <git-ref|dir>', "compare the CRDs being written with those of a base: config/crd/bases at a git ref of the project's repository, or a folder of released CRD YAML; breaking changes in served versions are errors (nothing written), others warnings")
    .option('--allow <rule>', 'with --check-compat: a compatibility rule (README: CRD compatibility) whose errors become warnings and whose warnings are dropped; repeatable', (v: string, prev: string[] = []) => [...prev, v])
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
  $ kubeforge manifests --max-desc-len 0   # CRDs without descriptions (smaller; kept by make manifests)
  $ kubeforge manifests --generate-embedded-object-meta   # pod templates keep their labels
  $ kubeforge manifests --k8s-version ${K8S_VERSIONS[0]}   # embedded Kubernetes types as of Kubernetes ${K8S_VERSIONS[0]}
  $ kubeforge manifests --check-compat v1.0.0   # fail on CRD changes that break v1.0.0's clients or objects
  $ kubeforge manifests --check-compat release/crds --allow field-removed
  $ kubeforge manifests --project ../guestbook`,
    )
    .action(async (opts: { check?: boolean; dryRun?: boolean; paths?: string[]; project?: string; tsconfig?: string; generatorVersion?: string; cache?: boolean; maxDescLen?: string; generateEmbeddedObjectMeta?: boolean; k8sVersion?: string; checkCompat?: string; allow?: string[] }) => {
      const { manifestsCommand } = await import('../../manifests/generate.js');
      await manifestsCommand(opts, ctx);
    });
}
