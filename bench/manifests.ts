/**
 * `npm run bench:manifests`: how fast is `kubeforge manifests` compared with type-checking the
 * same project?
 *
 * For synthetic projects of 1, 10, 50 and 200 Kinds (each Kind: ~15 spec fields, nested classes,
 * string-literal unions, records, arrays of objects, an embedded V1PodTemplateSpec, a status
 * with conditions, plus a reconciler carrying @Rbac markers and, for every fifth Kind, a
 * webhook), measured in the same run, wall time (median) and peak RSS (max) of:
 *   cold        `kubeforge manifests` with no cache and no outputs
 *   nochange    `kubeforge manifests` again, nothing changed (the hash-only fast path)
 *   edit        one Kind's file changed (a field added), then `kubeforge manifests` (incremental)
 *   tsc-morph   `tsc --noEmit` with the TypeScript ts-morph bundles (ts.createProgram +
 *               getPreEmitDiagnostics, run by this file with --tsmorph-tsc)
 *   tsc-project `tsc --noEmit` with the project's own TypeScript (node_modules/.bin/tsc, TS 7)
 * Ratios: cold / tsc-morph at every size (target <= 1.2; <= 1.5 at 2,000 Kinds), nochange / cold
 * (target <= 0.25), edit / cold (target <= 0.3 at 200 Kinds, <= 0.1 at 2,000), and the marginal
 * cost per Kind between sizes (growth linearity: from 200 to 2,000 at most 1.3x the one from 50
 * to 200). Wall time is the best of the repetitions (other load on a shared machine only adds
 * time); CPU time (user + sys, median) is printed beside it as a load-insensitive cross-check.
 * The peer: controller-gen (the version Kubebuilder pins, built from Go modules where Go is on the
 * machine) on a Go twin of each project (the same Kinds, RBAC and webhook markers, generated under
 * bench/out/manifests-go), `crd rbac webhook paths=./...` as `make manifests` runs it; kubeforge's
 * cold and no-change times over its time are `vs_controller_gen`.
 * Last line: `bench:manifests cold=<worst ratio>x nochange=<worst ratio>x edit=<ratio at the
 * largest size>x`, plus `linear=<x>x rss2000=<MB>MB` when 50, 200 and 2,000 Kinds were run
 * (KUBEFORGE_BENCH_SIZES=50,200,2000: the 2,000-Kind size runs only when asked), plus
 * `vs_controller_gen=<x>x(cold),<x>x(nochange)` (the worst over the sizes).
 *
 * Projects are generated under bench/out/ (git-ignored); their node_modules links
 * @kubernetes/client-node, @types and kubeforge itself back to this repository.
 * KUBEFORGE_BENCH_SIZES=1,10 and KUBEFORGE_BENCH_REPEAT=N narrow a run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findGo } from '../src/envtest/go-build.js';
import { CONTROLLER_GEN_VERSION, controllerGen } from '../test/oracle/tools.js';
import { median } from './stats.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// ---------------------------------------------------------------------------------------------
// `--tsmorph-tsc <tsconfig>`: tsc --noEmit with ts-morph's bundled TypeScript.

async function tsMorphTsc(tsconfig: string): Promise<number> {
  const require = createRequire(join(repo, 'package.json'));
  const common = require('@ts-morph/common') as typeof import('@ts-morph/common');
  const { ts } = common;
  const read = ts.readConfigFile(tsconfig, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfig));
  const options = { ...parsed.options, noEmit: true };
  // ts-morph ships the lib .d.ts files in memory (getLibFiles) under /node_modules/typescript/lib;
  // serve them the same way it does, everything else from disk.
  const libDir = '/node_modules/typescript/lib';
  const libs = new Map(common.getLibFiles().map((f) => [`${libDir}/${f.fileName}`, f.text]));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getDefaultLibLocation = () => libDir;
  host.getDefaultLibFileName = (o) => `${libDir}/${ts.getDefaultLibFileName(o)}`;
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.fileExists = (f) => libs.has(f) || fileExists(f);
  host.readFile = (f) => libs.get(f) ?? readFile(f);
  host.getSourceFile = (f, lang, onError, create) => {
    const text = libs.get(f);
    return text !== undefined ? ts.createSourceFile(f, text, lang) : getSourceFile(f, lang, onError, create);
  };
  const program = ts.createProgram({ rootNames: parsed.fileNames, options, host });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0) {
    process.stderr.write(
      ts.formatDiagnostics(diagnostics.slice(0, 5), {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => dirname(tsconfig),
        getNewLine: () => '\n',
      }),
    );
    return 1;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Synthetic project

function kindSource(i: number): string {
  const K = `Widget${i}`;
  return `import type { V1Condition, V1ObjectMeta, V1PodTemplateSpec } from '@kubernetes/client-node';
import {
  Default,
  Enum,
  ListMapKey,
  ListType,
  MaxItems,
  MaxLength,
  Maximum,
  MinLength,
  Minimum,
  Optional,
  Pattern,
  PrintColumn,
  Resource,
  Root,
  SubresourceStatus,
  type int32,
  type int64,
} from 'kubeforge/markers';

/** ${K}Phase is the lifecycle phase of a ${K}. */
export type ${K}Phase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

/** ${K}Port describes one exposed port. */
export class ${K}Port {
  /** Name of the port. */
  @MaxLength(15)
  name!: string;

  /** Port number. */
  @Minimum(1)
  @Maximum(65535)
  port!: int32;

  /** Protocol of the port. */
  protocol?: 'TCP' | 'UDP' | 'SCTP';
}

/** ${K}Backoff configures retries. */
export class ${K}Backoff {
  /** Initial delay in seconds. */
  @Minimum(0)
  initialSeconds?: int32;

  /** Maximum delay in seconds. */
  @Maximum(3600)
  maxSeconds?: int32;

  /** Multiplier applied after every failure. */
  factor?: number;
}

/** ${K}Storage describes a volume the widget needs. */
export class ${K}Storage {
  /** Size of the volume, e.g. 10Gi. */
  @Pattern('^[0-9]+(Mi|Gi|Ti)$')
  size!: string;

  /** Storage class to use. */
  storageClassName?: string;

  /** Access modes. */
  accessModes?: ('ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteMany')[];

  /** Retry policy when provisioning fails. */
  backoff?: ${K}Backoff;
}

/** ${K}Spec defines the desired state of ${K}. */
export class ${K}Spec {
  /** Number of replicas. */
  @Minimum(0)
  @Maximum(100)
  @Default(1)
  replicas?: int32;

  /** Image to run. */
  @MinLength(1)
  image!: string;

  /** Human readable description. */
  @MaxLength(256)
  description?: string;

  /** Whether reconciliation is paused. */
  paused?: boolean;

  /** Deployment strategy. */
  strategy?: 'Recreate' | 'RollingUpdate';

  /** Log level. */
  @Enum('debug', 'info', 'warn', 'error')
  logLevel?: string;

  /** Extra arguments. */
  @MaxItems(32)
  args?: string[];

  /** Environment variables. */
  env?: Record<string, string>;

  /** Labels to add to every object. */
  extraLabels?: Record<string, string>;

  /** Exposed ports. */
  @ListType('map')
  @ListMapKey('name')
  ports?: ${K}Port[];

  /** Storage per volume name. */
  volumes?: Record<string, ${K}Storage>;

  /** Main storage. */
  storage?: ${K}Storage;

  /** Retry policy. */
  backoff?: ${K}Backoff;

  /** Maximum memory in bytes. */
  memoryLimitBytes?: int64;

  /** Pod template for the workers. */
  template!: V1PodTemplateSpec;
}

/** ${K}Status defines the observed state of ${K}. */
export class ${K}Status {
  /** Current phase. */
  phase?: ${K}Phase;

  /** Generation last processed. */
  observedGeneration?: int64;

  /** Ready replicas. */
  readyReplicas?: int32;

  /** Conditions of the widget. */
  @Optional()
  @ListType('map')
  @ListMapKey('type')
  conditions?: V1Condition[];
}

/** ${K} is the Schema for the widget${i}s API. */
@Root()
@SubresourceStatus()
@Resource({ shortName: ['w${i}'] })
@PrintColumn({ name: 'Phase', type: 'string', jsonPath: '.status.phase' })
export class ${K} {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: ${K}Spec;
  status?: ${K}Status;
}
`;
}

function controllerSource(i: number): string {
  const webhook =
    i % 5 === 0
      ? `
@Webhook({
  path: '/validate-bench-kubeforge-io-v1-widget${i}',
  mutating: false,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['bench.kubeforge.io'],
  resources: ['widget${i}s'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'vwidget${i}.kb.io',
  admissionReviewVersions: ['v1'],
})
export class Widget${i}Validator {}
`
      : '';
  return `import { Rbac${webhook ? ', Webhook' : ''} } from 'kubeforge/markers';

/** Widget${i}Reconciler reconciles Widget${i} objects. */
@Rbac({ groups: ['bench.kubeforge.io'], resources: ['widget${i}s'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['bench.kubeforge.io'], resources: ['widget${i}s/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update'] })
@Rbac({ groups: [''], resources: ['pods', 'events'], verbs: ['get', 'list', 'create'] })
export class Widget${i}Reconciler {
  reconcile(name: string): string {
    return name;
  }
}
${webhook}`;
}

/** Kind 1's file with one more field (a different one per repetition, so every edit changes it). */
function editedKindSource(r: number): string {
  return kindSource(1).replace(
    '  paused?: boolean;\n',
    `  paused?: boolean;\n\n  /** Added by the bench's edit ${r}. */\n  edited${r}?: string;\n`,
  );
}

function link(target: string, path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path, 'dir');
}

function generateProject(dir: string, kinds: number): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src/api/v1'), { recursive: true });
  mkdirSync(join(dir, 'src/controller'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `bench-${kinds}`, private: true, type: 'module' }, null, 2)}\n`,
  );
  // The same compiler options as the tsconfig `kubeforge init` writes.
  writeFileSync(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          esModuleInterop: true,
          skipLibCheck: true,
          types: ['node'],
          rootDir: '.',
          outDir: 'build',
        },
        include: ['src/**/*.ts'],
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    join(dir, 'src/api/v1/groupversion.ts'),
    "import { defineGroupVersion } from 'kubeforge/markers';\n\n/** Package v1 holds the bench API. */\nexport const groupVersion = defineGroupVersion({ group: 'bench.kubeforge.io', version: 'v1' });\n",
  );
  for (let i = 1; i <= kinds; i++) {
    writeFileSync(join(dir, `src/api/v1/widget${i}_types.ts`), kindSource(i));
    writeFileSync(join(dir, `src/controller/widget${i}_controller.ts`), controllerSource(i));
  }
  link(join(repo, 'node_modules/@kubernetes'), join(dir, 'node_modules/@kubernetes'));
  link(join(repo, 'node_modules/@types'), join(dir, 'node_modules/@types'));
  link(repo, join(dir, 'node_modules/kubeforge'));
}

// ---------------------------------------------------------------------------------------------
// The Go twin of a bench project: the same Kinds, reconcilers' RBAC and webhooks written as a
// Kubebuilder user writes them, for controller-gen (`crd rbac webhook paths=./...`) to generate
// the same manifests from. The module is test/oracle/go's (its go.mod and go.sum: k8s.io/api v0.37).

function goKindSource(i: number): string {
  const K = `Widget${i}`;
  return `package v1

import (
\tcorev1 "k8s.io/api/core/v1"
\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ${K}Phase is the lifecycle phase of a ${K}.
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed
type ${K}Phase string

// ${K}Port describes one exposed port.
type ${K}Port struct {
\t// Name of the port.
\t// +kubebuilder:validation:MaxLength=15
\tName string \`json:"name"\`
\t// Port number.
\t// +kubebuilder:validation:Minimum=1
\t// +kubebuilder:validation:Maximum=65535
\tPort int32 \`json:"port"\`
\t// Protocol of the port.
\t// +kubebuilder:validation:Enum=TCP;UDP;SCTP
\t// +optional
\tProtocol string \`json:"protocol,omitempty"\`
}

// ${K}Backoff configures retries.
type ${K}Backoff struct {
\t// Initial delay in seconds.
\t// +kubebuilder:validation:Minimum=0
\t// +optional
\tInitialSeconds *int32 \`json:"initialSeconds,omitempty"\`
\t// Maximum delay in seconds.
\t// +kubebuilder:validation:Maximum=3600
\t// +optional
\tMaxSeconds *int32 \`json:"maxSeconds,omitempty"\`
\t// Multiplier applied after every failure.
\t// +optional
\tFactor *float64 \`json:"factor,omitempty"\`
}

// ${K}Storage describes a volume the widget needs.
type ${K}Storage struct {
\t// Size of the volume, e.g. 10Gi.
\t// +kubebuilder:validation:Pattern=\`^[0-9]+(Mi|Gi|Ti)$\`
\tSize string \`json:"size"\`
\t// Storage class to use.
\t// +optional
\tStorageClassName string \`json:"storageClassName,omitempty"\`
\t// Access modes.
\t// +kubebuilder:validation:items:Enum=ReadWriteOnce;ReadOnlyMany;ReadWriteMany
\t// +optional
\tAccessModes []string \`json:"accessModes,omitempty"\`
\t// Retry policy when provisioning fails.
\t// +optional
\tBackoff *${K}Backoff \`json:"backoff,omitempty"\`
}

// ${K}Spec defines the desired state of ${K}.
type ${K}Spec struct {
\t// Number of replicas.
\t// +kubebuilder:validation:Minimum=0
\t// +kubebuilder:validation:Maximum=100
\t// +kubebuilder:default=1
\t// +optional
\tReplicas *int32 \`json:"replicas,omitempty"\`
\t// Image to run.
\t// +kubebuilder:validation:MinLength=1
\tImage string \`json:"image"\`
\t// Human readable description.
\t// +kubebuilder:validation:MaxLength=256
\t// +optional
\tDescription string \`json:"description,omitempty"\`
\t// Whether reconciliation is paused.
\t// +optional
\tPaused bool \`json:"paused,omitempty"\`
\t// Deployment strategy.
\t// +kubebuilder:validation:Enum=Recreate;RollingUpdate
\t// +optional
\tStrategy string \`json:"strategy,omitempty"\`
\t// Log level.
\t// +kubebuilder:validation:Enum=debug;info;warn;error
\t// +optional
\tLogLevel string \`json:"logLevel,omitempty"\`
\t// Extra arguments.
\t// +kubebuilder:validation:MaxItems=32
\t// +optional
\tArgs []string \`json:"args,omitempty"\`
\t// Environment variables.
\t// +optional
\tEnv map[string]string \`json:"env,omitempty"\`
\t// Labels to add to every object.
\t// +optional
\tExtraLabels map[string]string \`json:"extraLabels,omitempty"\`
\t// Exposed ports.
\t// +listType=map
\t// +listMapKey=name
\t// +optional
\tPorts []${K}Port \`json:"ports,omitempty"\`
\t// Storage per volume name.
\t// +optional
\tVolumes map[string]${K}Storage \`json:"volumes,omitempty"\`
\t// Main storage.
\t// +optional
\tStorage *${K}Storage \`json:"storage,omitempty"\`
\t// Retry policy.
\t// +optional
\tBackoff *${K}Backoff \`json:"backoff,omitempty"\`
\t// Maximum memory in bytes.
\t// +optional
\tMemoryLimitBytes *int64 \`json:"memoryLimitBytes,omitempty"\`
\t// Pod template for the workers.
\tTemplate corev1.PodTemplateSpec \`json:"template"\`
}

// ${K}Status defines the observed state of ${K}.
type ${K}Status struct {
\t// Current phase.
\t// +optional
\tPhase ${K}Phase \`json:"phase,omitempty"\`
\t// Generation last processed.
\t// +optional
\tObservedGeneration *int64 \`json:"observedGeneration,omitempty"\`
\t// Ready replicas.
\t// +optional
\tReadyReplicas *int32 \`json:"readyReplicas,omitempty"\`
\t// Conditions of the widget.
\t// +optional
\t// +listType=map
\t// +listMapKey=type
\tConditions []metav1.Condition \`json:"conditions,omitempty"\`
}

// ${K} is the Schema for the widget${i}s API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=w${i}
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=\`.status.phase\`
type ${K} struct {
\tmetav1.TypeMeta   \`json:",inline"\`
\tmetav1.ObjectMeta \`json:"metadata,omitempty"\`
\t// +optional
\tSpec ${K}Spec \`json:"spec,omitempty"\`
\t// +optional
\tStatus ${K}Status \`json:"status,omitempty"\`
}
`;
}

function goControllerSource(i: number): string {
  const webhook =
    i % 5 === 0
      ? `
// +kubebuilder:webhook:path=/validate-bench-kubeforge-io-v1-widget${i},mutating=false,failurePolicy=fail,sideEffects=None,groups=bench.kubeforge.io,resources=widget${i}s,verbs=create;update,versions=v1,name=vwidget${i}.kb.io,admissionReviewVersions=v1
`
      : '';
  return `package controller

// Widget${i}Reconciler reconciles Widget${i} objects.
// +kubebuilder:rbac:groups=bench.kubeforge.io,resources=widget${i}s,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=bench.kubeforge.io,resources=widget${i}s/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups="",resources=pods;events,verbs=get;list;create
type Widget${i}Reconciler struct{}
${webhook}`;
}

function generateGoTwin(dir: string, kinds: number): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'api/v1'), { recursive: true });
  mkdirSync(join(dir, 'internal/controller'), { recursive: true });
  for (const f of ['go.mod', 'go.sum']) writeFileSync(join(dir, f), readFileSync(join(repo, 'test/oracle/go', f)));
  writeFileSync(
    join(dir, 'api/v1/groupversion_info.go'),
    '// Package v1 holds the bench API.\n// +kubebuilder:object:generate=true\n// +groupName=bench.kubeforge.io\npackage v1\n',
  );
  for (let i = 1; i <= kinds; i++) {
    writeFileSync(join(dir, `api/v1/widget${i}_types.go`), goKindSource(i));
    writeFileSync(join(dir, `internal/controller/widget${i}_controller.go`), goControllerSource(i));
  }
}

// ---------------------------------------------------------------------------------------------
// Measurement

interface Sample {
  ms: number;
  /** user + sys CPU time (ms): less sensitive than wall time to other load on the machine. */
  cpuMs: number;
  rssMb: number;
  ok: boolean;
  stderr: string;
}

const haveTime = existsSync('/usr/bin/time');

function measure(cmd: string, args: string[], cwd: string): Sample {
  const full = haveTime ? ['/usr/bin/time', ['-f', 'KFBENCH_RSS_KB=%M KFBENCH_CPU=%U+%S', cmd, ...args]] : [cmd, args];
  const start = performance.now();
  const r = spawnSync(full[0] as string, full[1] as string[], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - start;
  const stderr = r.stderr ?? '';
  const m = /KFBENCH_RSS_KB=(\d+)/.exec(stderr);
  const cpu = /KFBENCH_CPU=([\d.]+)\+([\d.]+)/.exec(stderr);
  // tsc reports on stdout: keep both for the failure report.
  const report = `${r.stdout ?? ''}${stderr.replace(/KFBENCH_RSS_KB=.*\n?/, '')}`;
  const cpuMs = cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN;
  return { ms, cpuMs, rssMb: m ? Number(m[1]) / 1024 : NaN, ok: r.status === 0, stderr: report };
}

interface Row {
  kinds: number;
  cold: Sample[];
  nochange: Sample[];
  edit: Sample[];
  tscMorph: Sample[];
  tscProject: Sample[];
  /** controller-gen on the Go twin (when Go is on the machine). */
  controllerGen?: Sample[];
}

/**
 * Wall time is the best (minimum) of the repetitions: on a shared machine other load only ever
 * adds time, so the minimum is the least noisy estimate. CPU time is the median.
 */
function summary(samples: Sample[]): { ms: number; cpu: number; rss: number; ok: boolean; err: string } {
  return {
    ms: Math.min(...samples.map((s) => s.ms)),
    cpu: median(samples.map((s) => s.cpuMs)),
    rss: Math.max(...samples.map((s) => s.rssMb)),
    ok: samples.every((s) => s.ok),
    err: samples.find((s) => !s.ok)?.stderr ?? '',
  };
}

async function main(): Promise<void> {
  const sizes = (process.env.KUBEFORGE_BENCH_SIZES ?? '1,10,50,200').split(',').map(Number);
  const node = process.execPath;
  const cli = join(repo, 'bin/kubeforge.js');
  const self = fileURLToPath(import.meta.url);
  const tsc = join(repo, 'node_modules/.bin/tsc');
  const rows: Row[] = [];
  // controller-gen, built from Go modules (test/oracle/tools.ts) where Go is on this machine.
  let peer: string | undefined;
  const go = await findGo();
  if (go) {
    if (go.includes('/')) process.env.PATH = `${dirname(go)}:${process.env.PATH ?? ''}`;
    process.env.GOFLAGS = '-buildvcs=false';
    peer = await controllerGen();
  } else console.log('note: no Go on this machine: controller-gen (the vs_controller_gen peer) not measured');
  if (!haveTime) console.log('note: /usr/bin/time not found; peak RSS not measured (apt-get install time)');
  for (const kinds of sizes) {
    const dir = join(repo, 'bench/out/manifests', `kinds-${kinds}`);
    generateProject(dir, kinds);
    const repeat = Number(process.env.KUBEFORGE_BENCH_REPEAT ?? (kinds >= 200 ? 2 : 3));
    const row: Row = { kinds, cold: [], nochange: [], edit: [], tscMorph: [], tscProject: [] };
    const manifests = ['manifests', '--project', dir, '--generator-version', 'bench'];
    for (let r = 0; r < repeat; r++) {
      rmSync(join(dir, 'config'), { recursive: true, force: true });
      rmSync(join(dir, 'node_modules/.cache'), { recursive: true, force: true });
      row.cold.push(measure(node, [cli, ...manifests], dir));
      row.nochange.push(measure(node, [cli, ...manifests], dir));
      writeFileSync(join(dir, 'src/api/v1/widget1_types.ts'), editedKindSource(r));
      row.edit.push(measure(node, [cli, ...manifests], dir));
      row.tscMorph.push(measure(node, [self, '--tsmorph-tsc', join(dir, 'tsconfig.json')], dir));
      row.tscProject.push(measure(tsc, ['-p', join(dir, 'tsconfig.json'), '--noEmit'], dir));
    }
    // The peer: controller-gen on the Go twin (same Kinds, RBAC and webhooks), as `make manifests`
    // runs it in a Kubebuilder project. It keeps no cache of its own: every run is a full run (the
    // Go build cache warm after the first, as on a developer's machine).
    if (peer) {
      const goDir = join(repo, 'bench/out/manifests-go', `kinds-${kinds}`);
      generateGoTwin(goDir, kinds);
      // allowDangerousTypes: the twin's float64 is the TypeScript's plain number (kubeforge warns, KF3012).
      const args = [
        'rbac:roleName=manager-role',
        'crd:allowDangerousTypes=true',
        'webhook',
        'paths=./...',
        'output:crd:artifacts:config=config/crd/bases',
      ];
      row.controllerGen = [];
      measure(peer, args, goDir);
      for (let r = 0; r < repeat; r++) row.controllerGen.push(measure(peer, args, goDir));
    }
    rows.push(row);
    const c = summary(row.cold);
    const n = summary(row.nochange);
    const e = summary(row.edit);
    const m = summary(row.tscMorph);
    const p = summary(row.tscProject);
    const fmt = (name: string, x: ReturnType<typeof summary>) =>
      `${name} ${x.ms.toFixed(0).padStart(6)} ms (cpu ${x.cpu.toFixed(0).padStart(5)}) ${x.rss.toFixed(0).padStart(4)} MB${x.ok ? '' : ' (FAILED)'}`;
    console.log(
      `kinds=${String(kinds).padStart(3)}  ${[fmt('cold', c), fmt('nochange', n), fmt('edit', e), fmt('tsc(ts-morph TS)', m), fmt('tsc(project TS)', p), ...(row.controllerGen ? [fmt(`controller-gen ${CONTROLLER_GEN_VERSION}`, summary(row.controllerGen))] : [])].join(' | ')}`,
    );
    for (const [name, s] of [
      ['cold', c],
      ['nochange', n],
      ['edit', e],
      ['tsc(ts-morph TS)', m],
      ['tsc(project TS)', p],
    ] as const) {
      if (!s.ok)
        console.log(
          `  ${name} failed:\n${s.err
            .split('\n')
            .slice(0, 12)
            .map((l) => `    ${l}`)
            .join('\n')}`,
        );
    }
  }

  console.log('\nratios (wall = best of the repetitions; cpu = user+sys median)');
  let worstCold = 0;
  let worstNochange = 0;
  for (const row of rows) {
    const c = summary(row.cold).ms;
    const n = summary(row.nochange).ms;
    const e = summary(row.edit).ms;
    const m = summary(row.tscMorph).ms;
    const p = summary(row.tscProject).ms;
    worstCold = Math.max(worstCold, c / m);
    worstNochange = Math.max(worstNochange, n / c);
    const cc = summary(row.cold).cpu;
    const nc = summary(row.nochange).cpu;
    const ec = summary(row.edit).cpu;
    const mc = summary(row.tscMorph).cpu;
    const editTarget = row.kinds >= 2000 ? 0.1 : row.kinds >= 200 ? 0.3 : undefined;
    console.log(
      `kinds=${String(row.kinds).padStart(3)}  cold/tsc(ts-morph TS) ${(c / m).toFixed(2)}x (cpu ${(cc / mc).toFixed(2)}x, target <= ${row.kinds >= 2000 ? '1.5' : '1.2'})` +
        `  nochange/cold ${(n / c).toFixed(2)}x (cpu ${(nc / cc).toFixed(2)}x, target <= 0.25)` +
        `  edit/cold ${(e / c).toFixed(2)}x (cpu ${(ec / cc).toFixed(2)}x${editTarget ? `, target <= ${editTarget}` : ''})  cold/tsc(project TS) ${(c / p).toFixed(2)}x`,
    );
  }
  // vs controller-gen: kubeforge's time over controller-gen's on the Go twin, cold and no change.
  let peerLine = '';
  if (rows.every((r) => r.controllerGen)) {
    console.log(
      `\nvs controller-gen ${CONTROLLER_GEN_VERSION} (crd rbac webhook on the Go twin; wall, best of the repetitions)`,
    );
    let worstPeerCold = 0;
    let worstPeerNochange = 0;
    for (const row of rows) {
      if (!row.controllerGen) continue; // every row has one here (checked above)
      const g = summary(row.controllerGen).ms;
      const c = summary(row.cold).ms / g;
      const n = summary(row.nochange).ms / g;
      worstPeerCold = Math.max(worstPeerCold, c);
      worstPeerNochange = Math.max(worstPeerNochange, n);
      console.log(
        `kinds=${String(row.kinds).padStart(3)}  controller-gen ${g.toFixed(0)} ms  cold ${c.toFixed(2)}x  nochange ${n.toFixed(2)}x`,
      );
    }
    peerLine = ` vs_controller_gen=${worstPeerCold.toFixed(2)}x(cold),${worstPeerNochange.toFixed(2)}x(nochange)`;
  }
  const largest = rows[rows.length - 1];
  const editRatio = summary(largest.edit).ms / summary(largest.cold).ms;
  if (rows.length > 1) {
    console.log('\ngrowth (marginal cost per Kind between sizes)');
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1];
      const b = rows[i];
      const per = (f: (r: Row) => number) => ((f(b) - f(a)) / (b.kinds - a.kinds)).toFixed(1);
      console.log(
        `${a.kinds}->${b.kinds} Kinds: cold ${per((r) => summary(r.cold).ms)} ms/Kind (cpu ${per((r) => summary(r.cold).cpu)}), ` +
          `tsc(ts-morph TS) ${per((r) => summary(r.tscMorph).ms)} ms/Kind (cpu ${per((r) => summary(r.tscMorph).cpu)}), cold RSS ${per((r) => summary(r.cold).rss)} MB/Kind`,
      );
    }
  }
  // Linearity: marginal cost per Kind from 200 to 2,000 over the one from 50 to 200.
  const at = (k: number) => rows.find((r) => r.kinds === k);
  const [r50, r200, r2000] = [at(50), at(200), at(2000)];
  let scale = '';
  if (r50 && r200 && r2000) {
    const per = (a: Row, b: Row) => (summary(b.cold).ms - summary(a.cold).ms) / (b.kinds - a.kinds);
    const linear = per(r200, r2000) / per(r50, r200);
    console.log(
      `linearity: ${per(r200, r2000).toFixed(1)} ms/Kind (200->2000) / ${per(r50, r200).toFixed(1)} ms/Kind (50->200) = ${linear.toFixed(2)}x (target <= 1.3); peak RSS at 2000 Kinds ${summary(r2000.cold).rss.toFixed(0)} MB (target < 1200)`,
    );
    scale = ` linear=${linear.toFixed(2)}x rss2000=${summary(r2000.cold).rss.toFixed(0)}MB`;
  }
  const ok = rows.every((r) => [r.cold, r.nochange, r.edit, r.tscMorph, r.tscProject].every((s) => summary(s).ok));
  if (!ok) console.log('\nsome runs FAILED (see above): the ratios are not meaningful');
  console.log(
    `bench:manifests cold=${worstCold.toFixed(2)}x nochange=${worstNochange.toFixed(2)}x edit=${editRatio.toFixed(2)}x${scale}${peerLine}`,
  );
  if (!ok) process.exitCode = 1;
}

if (process.argv[2] === '--tsmorph-tsc') {
  process.exitCode = await tsMorphTsc(resolve(process.argv[3]));
} else {
  await main();
}
