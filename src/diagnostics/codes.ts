/**
 * The catalogue of diagnostic codes: one line per code saying what it means. docs/diagnostics.md
 * carries it between `<!-- diagnostics-reference:start -->` and `<!-- diagnostics-reference:end -->`
 * (rendered by {@link renderDiagnosticsReference}); a test fails when that page is stale or when
 * src/ reports a code that is not listed here.
 */

export interface DiagnosticCode {
  code: string;
  /** What the problem is (the message itself names the symbol and the fix). */
  summary: string;
}

const c = (code: string, summary: string): DiagnosticCode => ({ code, summary });

export const DIAGNOSTIC_CODES: readonly DiagnosticCode[] = [
  c('KF1000', '`init`: `--domain` is missing.'),
  c('KF1001', 'A name is invalid (domain, group, version, Kind, project or package name), with the rule it breaks.'),
  c('KF1002', '`init`: the folder already holds a PROJECT file.'),
  c('KF1003', '`init`: the folder is not empty (pass `--force` to scaffold next to the files).'),
  c('KF1004', '`init`: unknown `--license`.'),
  c('KF1005', '`init`: `--owner` spans several lines.'),
  c(
    'KF1006',
    '`init` / `edit`: `--license-file` cannot be read, is not a block comment (`/* ... */`), or comes with `--license none` or `--owner`.',
  ),
  c(
    'KF1007',
    'A usage mistake: an unknown command or option, a missing or invalid flag value (in `--json` output; printed as `error:` otherwise).',
  ),
  c('KF1008', '`init`: unknown `--package-manager` (npm, pnpm, yarn or bun).'),
  c('KF1010', 'PROJECT is not valid YAML.'),
  c('KF1011', 'PROJECT has a field of the wrong shape.'),
  c('KF1012', 'PROJECT has an unsupported version.'),
  c('KF1020', "kubeforge's own package.json cannot be read (packing kubeforge for the project)."),
  c('KF1021', 'kubeforge has no dist/ folder to pack.'),
  c('KF1022', '`--kubeforge-source`: the tarball does not exist.'),
  c('KF1023', '`--kubeforge-source`: unknown value.'),
  c('KF1030', '`npm install` failed after scaffolding.'),
  c('KF1040', '`create api`: no PROJECT file; the folder is not a kubeforge project.'),
  c('KF1041', '`create api`: `--group` is missing.'),
  c('KF1042', '`create api`: the API or its controller already exists.'),
  c('KF1043', '`create api`: a second API group in a single-group project.'),
  c('KF1044', '`create api`: the Kind already has a controller in another version.'),
  c('KF1045', '`create api`: nothing to scaffold (`--resource=false --controller=false`).'),
  c('KF1046', '`create api --resource=false`: the API is not in PROJECT.'),
  c('KF1047', '`create api`: a file kubeforge inserts into is missing.'),
  c('KF1048', '`create api`: two Kinds would declare the same name in one API folder.'),
  c('KF1049', "PROJECT has a layout other than kubeforge's."),
  c('KF1050', '`create api`: the manifests step after scaffolding failed.'),
  c(
    'KF1051',
    '`create api` / `create webhook`: a Kind that cannot be served: it ends in "List", or its list Kind, resource name or CRD name would be longer than the API server allows.',
  ),
  c(
    'KF1060',
    '`create webhook`: no webhook type chosen (`--defaulting`, `--programmatic-validation`, `--conversion`).',
  ),
  c(
    'KF1061',
    "`create webhook`: the Kind is not in PROJECT, not a built-in Kind, and no `--external-api-path` names it as another project's.",
  ),
  c('KF1062', '`create webhook`: the Kind already has that webhook (pass `--force` to scaffold it again).'),
  c(
    'KF1063',
    '`create webhook --conversion`: no spoke, a spoke that is the hub or not a version of the Kind, or a Kind with one version.',
  ),
  c('KF1064', '`create webhook --conversion`: another version is the storage version; the hub must be it.'),
  c(
    'KF1065',
    '`create webhook`: an invalid `--defaulting-path` / `--validation-path`, or one without its webhook type.',
  ),
  c(
    'KF1066',
    '`create api --resource=false` / `create webhook` on a Kubernetes group: Kubernetes serves no such built-in Kind in that group/version (the hint names where a Kind of that name is).',
  ),
  c('KF1067', '`create webhook`: `--plural` differs from the resource name PROJECT records.'),
  c('KF1068', 'The types file or Kind class that gets `@StorageVersion()` is missing.'),
  c('KF1070', '`--plugins`: an unknown plugin.'),
  c('KF1071', 'grafana/custom-metrics/config.yaml is invalid (YAML, or an entry without a metric name or type).'),
  c('KF1072', '`edit`: no change asked for.'),
  c('KF1073', '`alpha generate`: the output folder is not empty, or is the project itself.'),
  c('KF1080', '`edit --namespaced`: a file you changed collides with the scope switch (pass `--force` to replace it).'),
  c(
    'KF1081',
    '`edit --sharded`: a file you changed collides with the switch between a sharded manager and a leader-elected one (pass `--force` to replace it).',
  ),
  c(
    'KF1082',
    '`init --sharded` / `edit --sharded`: the value is not a number of replicas (a positive integer) or true / false, or PROJECT records such a `replicas`.',
  ),
  c('KF1085', '`create api --plugins deploy-image`: `--image` is missing, or is not one image reference.'),
  c(
    'KF1086',
    '`create api --plugins deploy-image`: `--image-container-port` is not an integer from 1 to 65535, `--run-as-user` not a non-root user id, or `--image-container-command` empty.',
  ),
  c(
    'KF1087',
    '`create api`: a deploy-image flag (`--image`, `--image-container-command`, `--image-container-port`, `--run-as-user`) without `--plugins deploy-image/v1-alpha`.',
  ),
  c(
    'KF1088',
    '`create api --plugins deploy-image`: with `--resource=false`, `--controller=false` or `--namespaced=false` (the plugin scaffolds a namespaced API and its controller).',
  ),
  c(
    'KF1089',
    '`create api --plugins deploy-image`: config/manager/manager.yaml has no `manager` container to set the `<KIND>_IMAGE` variable in.',
  ),
  c(
    'KF1090',
    '`create api --controller-name`: the name does not start with a letter (it names the class `<Name>Reconciler`).',
  ),
  c('KF1091', '`create api --controller-name` with `--controller=false`.'),
  c(
    'KF1092',
    '`create api --controller-name`: the Kind already has a controller of that name, or one differing only in "-" (pass `--force` to scaffold the same one again).',
  ),
  c('KF1093', '`manifests --max-desc-len`: not a whole number of bytes, 0 or more.'),
  c(
    'KF1094',
    '`create api` / `create webhook`: `--external-api-*` for a Kind of this project or a built-in one, with `--resource=true`, or without `--external-api-path`.',
  ),
  c(
    'KF1095',
    '`--external-api-path` / `--external-api-domain` / `--external-api-module`: a missing or outside file, a version in the path, a group that is not a DNS-1123 subdomain.',
  ),
  c('KF1096', '`create api --ssa` with `--resource=false` (server-side apply is scaffolded with the API).'),
  c(
    'KF1097',
    "`manifests --k8s-version` (or the one an older project's package.json manifests script passes): not a Kubernetes minor kubeforge has the types of.",
  ),
  c(
    'KF1098',
    "PROJECT's `manifests.kubeforge.io/v1-alpha` record (the options `manifests` generates with): not a map, a key kubeforge does not know, or a value of the wrong kind (`maxDescLen` a whole number, 0 or more; `k8sVersion` a quoted minor kubeforge has the types of; `generateEmbeddedObjectMeta` true or false).",
  ),
  c(
    'KF1100',
    '`create api --from-crd`: the file holds no CRD of apiextensions.k8s.io/v1 (or several, without `--kind`), contradicts `--group` / `--version` / `--kind`, or its schema uses what no marker writes (error); or a part is carried over only approximately, such as a description a JSDoc comment cannot hold verbatim (warning).',
  ),
  c('KF1101', 'A planned file cannot be written (permissions, a file in the way); nothing was written.'),
  c('KF1102', 'Writing failed part way; what was written is rolled back.'),
  c('KF1103', 'A scaffolded file exists and differs (pass `--force` to overwrite it).'),
  c('KF1104', 'A file the command edits is missing.'),
  c(
    'KF1105',
    'A file-system or output failure no check foresaw (a full disk, a file where a folder should be, standard output to a full device): the message names the path and what to do.',
  ),
  c(
    'KF1110',
    "Another kubeforge command holds the project's lock (`.kubeforge/lock`) and did not finish in time; nothing was written.",
  ),
  c('KF1112', 'Interrupted by SIGINT / SIGTERM; the message says what is on disk (nothing, or the whole command).'),
  c('KF1201', 'An insertion marker (`+kubebuilder:scaffold:*`) is missing from a file kubeforge edits.'),
  c(
    'KF1300',
    '`edit --plugins helm/v2-alpha`: `kubectl kustomize` of config/ failed or kubectl is missing, so no chart can be made.',
  ),
  c('KF1301', '`edit --plugins helm/v2-alpha`: the kustomize output (`--manifests`) is not valid YAML.'),
  c('KF1302', '`edit --plugins helm/v2-alpha`: the kustomize output has no manager Deployment.'),
  c('KF1303', '`edit --plugins helm/v2-alpha`: the `--manifests` file does not exist.'),
  c(
    'KF1304',
    '`edit --plugins helm/v2-alpha`: `--output-dir` (or the `output` PROJECT records for the plugin) is not a folder inside the project.',
  ),
  c('KF1320', '`alpha update`: the project is not in a git repository, or a git command failed.'),
  c('KF1321', '`alpha update`: the work tree has uncommitted or untracked changes (commit or stash them first).'),
  c('KF1322', '`alpha update`: no PROJECT, or PROJECT records no `cliVersion` and `--from-version` is not given.'),
  c('KF1323', '`alpha update`: the kubeforge of `--from-version` / `--to-version` cannot be found, unpacked or run.'),
  c('KF1324', '`alpha update`: a kubeforge could not re-scaffold the project (its `alpha generate` failed).'),
  c(
    'KF1325',
    '`alpha update`: `--from-branch` does not exist, the output branch exists or is not a valid name, `--in-place` on another branch, or `--output-branch` with `--in-place`.',
  ),
  c(
    'KF1326',
    '`alpha update`: a file changed both by you and by the new scaffold overlaps (conflict markers) or was deleted on one side.',
  ),
  c(
    'KF1327',
    '`alpha update`: a `--restore-path` is empty, outside the project, the whole project, or names nothing committed on your branch.',
  ),
  c(
    'KF1328',
    '`alpha update`: a file the result writes is a symbolic link, or under one, on your branch; nothing is written through it.',
  ),
  c(
    'KF1329',
    "`alpha update`: a kubeforge fetched from a package registry does not match the integrity recorded for it (PROJECT's `cliIntegrity`, or package-lock.json), or none is recorded and `--allow-unverified-cli` is not given.",
  ),
  c('KF1400', '`dev`: the folder is not a kubeforge project (no PROJECT, tsconfig.json or src/main.ts).'),
  c('KF1401', "`dev`: the project's dependencies are not installed (no node_modules/kubeforge)."),
  c(
    'KF1402',
    '`dev`: the kubeconfig given with `--kubeconfig` / `--context` is missing, unreadable or has no such context.',
  ),
  c('KF1403', '`dev`: the cluster of the kubeconfig cannot be reached.'),
  c('KF1404', '`dev`: the local control plane (etcd + kube-apiserver from KUBEBUILDER_ASSETS) did not start.'),
  c(
    'KF1405',
    '`dev`: the project does not compile: a syntax error, or a type error with `--type-check strict` (the located errors follow); the previous manager keeps running.',
  ),
  c(
    'KF1406',
    '`dev`: the manager (at start, or rebuilt after a save) exited or did not log "manager started" within 60 s (its last log lines follow).',
  ),
  c('KF1407', '`dev`: `--webhook-port` is not a port number.'),
  c(
    'KF1408',
    "`dev`: the API server refused the project's CRDs, ClusterRole or webhook configurations (its message follows).",
  ),
  c(
    'KF1409',
    '`dev`: another `kubeforge dev` runs in this project (its lock, `.kubeforge/dev/lock`, names a live process).',
  ),
  c(
    'KF1410',
    '`dev` (warning): the project has type errors (the located errors follow); with `--type-check async` the manager runs the build anyway.',
  ),
  c('KF1411', '`dev`: `--type-check` is not one of async, strict, off.'),
  c('KF1412', '`dev`: `--fake` is given with `--kubeconfig` or `--context`.'),
  c(
    'KF1500',
    '`test`: no compiled test files under build/test (build first), or a file given does not exist, is not a compiled test of the project, or (with --unit) is not a unit test.',
  ),
  c('KF1501', '`test`: a test failed (a failing todo or skipped test does not count), or a test file did not report.'),
  c(
    'KF1502',
    '`test`: the control plane (etcd + kube-apiserver from KUBEBUILDER_ASSETS) for the tests that are not unit tests did not start.',
  ),
  c('KF2001', 'Unknown marker (not exported by `kubeforge/markers`).'),
  c('KF2002', 'A marker is used where it does not belong (e.g. `@Resource` on a field).'),
  c('KF2003', 'A marker argument is not a literal (or a const reference to one).'),
  c('KF2004', 'A marker takes a different number of arguments, or is not called.'),
  c('KF2005', 'Unknown marker argument.'),
  c('KF2006', 'A required marker argument is missing.'),
  c('KF2007', 'A marker argument has the wrong type or value.'),
  c('KF2008', 'A non-repeatable marker is given twice.'),
  c('KF2009', "A marker does not apply to the field's schema (controller-gen's precondition)."),
  c('KF2011', 'A JSDoc marker tag has an unreadable value.'),
  c('KF2012', 'A marker decorator is used without being imported.'),
  c('KF2013', 'A field is both `@Required()` and `@Optional()`.'),
  c('KF2014', 'Warning: a JSDoc marker tag on a class or class field is ignored (use the decorator).'),
  c(
    'KF2015',
    'Warning: a marker applies but will not work as meant (e.g. `uniqueItems`, which the API server refuses; an `@Enum` value given twice).',
  ),
  c(
    'KF2016',
    'A `kubeforge/markers` decorator on a class the analysis cannot read (a class expression, a class inside a function; class-level markers of a class inside a namespace).',
  ),
  c(
    'KF2017',
    'Warning: a `private`, `protected` or `#private` field of an API class is left out of the schema (the API server would prune it).',
  ),
  c(
    'KF2018',
    'Warning: a field initializer (`replicas?: int32 = 3`) is not a CRD default (it fills only objects made with `new`); write `@Default(3)`.',
  ),
  c('KF3001', 'A type has no schema (`any`, `unknown`, functions...).'),
  c('KF3002', 'A type is recursive; CRD schemas cannot be.'),
  c('KF3003', 'A tuple type; CRD schemas have none.'),
  c('KF3004', 'A type declares methods or signatures, which are not data.'),
  c('KF3005', 'A `bigint`, `symbol` or other type JSON cannot carry.'),
  c('KF3006', 'A union or intersection that has no structural schema.'),
  c('KF3007', 'An unsupported type construct (index signatures, computed or non-constant members...).'),
  c('KF3008', 'A field without a type annotation.'),
  c('KF3009', 'A `@kubernetes/client-node` type with no known schema.'),
  c('KF3010', 'A type name that cannot be resolved.'),
  c('KF3011', 'A computed property name.'),
  c(
    'KF3012',
    'Warning: a field of plain `number` type (`type: number` takes fractions): use `int32` / `int64`, or `float64` to say it on purpose.',
  ),
  c(
    'KF3013',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text shows a TypeScript template literal type
    'Warning: a template literal type (`` `v${number}` ``) is `type: string` to the API server; the hint gives the `@Pattern` that checks the form.',
  ),
  c('KF3014', '`apiVersion` or `kind` of a Kind declared as another type than string.'),
  c('KF4001', 'A Kind in a folder without `groupversion.ts`.'),
  c('KF4002', '`groupversion.ts` is missing `defineGroupVersion`, or its group or version is invalid.'),
  c('KF4003', 'A CRD has more than one storage version.'),
  c('KF4004', 'A CRD with several versions has no storage version.'),
  c('KF4005', 'A CRD serves no version.'),
  c('KF4006', 'A Kind is declared twice in one group-version.'),
  c('KF4007', '`@Resource` names or scope differ between versions of a Kind.'),
  c('KF4008', '`@ConversionWebhook` differs between versions of a Kind.'),
  c('KF4009', 'Warning: a `@Root()` class without metadata is not a Kind and gets no CRD.'),
  c('KF4010', 'tsconfig.json cannot be read.'),
  c('KF4011', 'The tsconfig given does not exist.'),
  c('KF4012', 'A TypeScript syntax error in an analysed file.'),
  c(
    'KF4013',
    'A `@Root()` class the analysis cannot read (inside a namespace or function, a class expression, no name): it would get no CRD.',
  ),
  c('KF4014', '`manifests --paths`: a path that does not exist, or holds no TypeScript source of the project.'),
  c(
    'KF4015',
    "A Kind class's `static gvk`, `plural` or `namespaced` differs from the CRD its markers generate (group and version of `defineGroupVersion`, class name, `@Resource` path and scope): the runtime would get 404s.",
  ),
  c('KF4016', 'Warning: a CRD is deleted because the class of its Kind no longer has `@Root()`.'),
  c(
    'KF4101',
    '`@Rbac`: a rule the API server would refuse (URLs in a Role, URLs mixed with resources, no groups, invalid names).',
  ),
  c('KF4201', '`@Webhook`: an invalid webhook (path and url, side effects, timeouts, names, verbs...).'),
  c('KF4202', '`@WebhookConfiguration`: an invalid name, or two for one kind of configuration.'),
  c('KF4203', 'Two webhooks of one configuration have the same name.'),
  c(
    'KF4204',
    '`@Webhook`: admissionReviewVersions the API server refuses: none of `v1` and `v1beta1` (the versions it sends), a version listed twice, or an entry that is not a version name.',
  ),
  c(
    'KF4205',
    '`@Webhook`: a namespaceSelector or objectSelector the API server refuses, matchConditions that do not compile as admission CEL (or are not bool, unnamed, duplicated, more than 64), or a `patch` controller-gen refuses (not a JSON object, unknown fields, bad directives).',
  ),
  c('KF4501', '`manifests --check`: generated files are out of date.'),
  c('KF4502', 'Two CRDs would be written to the same file.'),
  c('KF4503', '`manifests`: the project folder does not exist.'),
  c('KF4504', '`manifests`: no tsconfig.json in the project.'),
  c('KF4505', '`manifests`: a file at an output path was not generated by it (no header); it is never replaced.'),
  c('KF4506', '`manifests`: the tsconfig includes no file under src/; generated manifests are not deleted.'),
  c('KF4510', '`docs`: no CustomResourceDefinition in config/crd/bases (run `kubeforge manifests` first).'),
  c('KF4511', '`docs`: a CRD file that is not valid YAML, or two CRDs of one group with the same resource name.'),
  c('KF4512', "`docs`: a file at a page's path was not written by it (no header); it is never replaced."),
  c('KF4513', '`docs --check`: pages of the API reference are out of date.'),
  c(
    'KF4601',
    'The CRD check: a resource name (plural, singular, short name, category) is not a lower-case DNS-1035 label, or a Kind / list Kind is not one when lower-cased',
  ),
  c(
    'KF4602',
    'The CRD check: the group is not a DNS subdomain with at least one dot, or is a protected *.k8s.io / *.kubernetes.io group',
  ),
  c(
    'KF4603',
    'The CRD check: the schema is not structural: a node without a type, an empty schema (@Schemaless() alone), uniqueItems, properties beside additionalProperties, metadata restrictions, x-kubernetes-* combinations',
  ),
  c(
    'KF4604',
    "The CRD check: @ListType / @ListMapKey / @MapType misuse: 'set' on objects, 'map' without keys or on scalars, keys that are optional without a default, nullable, or not scalar",
  ),
  c(
    'KF4605',
    'The CRD check: @Pattern is not valid RE2: lookarounds, backreferences, possessive or atomic forms, \\u escapes, bad ranges or brackets',
  ),
  c(
    'KF4606',
    'The CRD check: @Default does not validate against the field (wrong type, enum, bounds, pattern, missing required fields) or has fields the type does not declare',
  ),
  c(
    'KF4607',
    'The CRD check: @Minimum above @Maximum, @MinLength above @MaxLength, @MinItems above @MaxItems, @MinProperties above @MaxProperties, negative counts, @MultipleOf not positive',
  ),
  c(
    'KF4608',
    'The CRD check: @SubresourceScale paths not under .spec / .status or not integer fields of the schema; a root schema with more than the status subresource allows',
  ),
  c(
    'KF4609',
    'The CRD check: @PrintColumn / @SelectableField: JSON paths, column types and formats, selectable field types',
  ),
  c(
    'KF4610',
    'The CRD check: @Metadata label and annotation keys and values, @DeprecatedVersion warnings, @ConversionWebhook service settings',
  ),
  c(
    'KF4611',
    'The CRD check: @XValidation / @Immutable rules a current server refuses before compiling them: empty rule or message, multi-line rule without message, unknown reason, bad fieldPath, oldSelf where values do not correlate',
  ),
  c(
    'KF4612',
    "The CRD check: an @XValidation rule that does not compile against the schema it is on (CEL syntax, undefined field, no matching overload, undeclared name, not a bool, a literal regex that is not RE2, a string escape cel-go does not lex), with the CEL error located in the rule; CEL's optional syntax (`self.?x`, `m[?k]`) is checked as cel-go checks it",
  ),
  c(
    'KF4613',
    'The CRD check: an @XValidation messageExpression that does not compile against the schema or does not evaluate to a string',
  ),
  c(
    'KF4614',
    "The CRD check: a CEL rule's estimated cost (the API server's estimate, times the lists and maps above it), or a messageExpression's, exceeds the server's budget per rule (10,000,000) or per CRD (100,000,000), so the server refuses the CRD; names the maxItems / maxLength / maxProperties bounds to add",
  ),
  c(
    'KF4615',
    'Warning: the CRD check found a `format` the API server does not recognise for the field\'s type (it warns `unrecognized format "x"` on create, and validates nothing with it).',
  ),
  c('KF4700', "`manifests --check-compat`: the base is neither a folder nor a git ref of the project's repository."),
  c(
    'KF4701',
    '`manifests --check-compat`: the base (a folder, or config/crd/bases at a git ref) holds no CRD, or a base file is not valid YAML.',
  ),
  c('KF4702', '`manifests --allow`: no compatibility rule has this name.'),
  c('KF4703', '`manifests --allow` without `--check-compat`.'),
  c(
    'KF4710',
    '`manifests --check-compat`: a breaking change to a served version of a CRD (the rule is named in the message; see docs/manifests.md, CRD compatibility), located at the TypeScript field, class or marker.',
  ),
  c('KF4711', '`manifests --check-compat`: a CRD of the base is no longer generated.'),
  c(
    'KF4712',
    '`manifests --check-compat`: a change that is not breaking for served versions (a version no longer served, a changed default, a change in an unserved version, or an allowed rule).',
  ),
  c('KF9001', 'Internal error while analysing a Kind (a kubeforge bug).'),
  c(
    'KF9002',
    'An unexpected error stopped the command (in `--json` output; a kubeforge bug unless the message says otherwise).',
  ),
];

export const DIAGNOSTICS_REFERENCE_START = '<!-- diagnostics-reference:start -->';
export const DIAGNOSTICS_REFERENCE_END = '<!-- diagnostics-reference:end -->';

const RANGES: [prefix: string, title: string][] = [
  ['KF1', 'Project, naming, scaffolding (`init`, `create api`)'],
  ['KF2', 'Markers'],
  ['KF3', 'TypeScript types to schemas'],
  ['KF4', 'Manifests (versions, RBAC, webhooks, output)'],
  ['KF47', 'CRD compatibility (`manifests --check-compat`)'],
  ['KF9', 'Internal'],
];

/** The catalogue as the Markdown of docs/diagnostics.md, between (and including) its start and end comments. */
export function renderDiagnosticsReference(): string {
  const lines = [
    DIAGNOSTICS_REFERENCE_START,
    '',
    '<!-- Generated from src/diagnostics/codes.ts by renderDiagnosticsReference(); do not edit by hand. -->',
    '',
  ];
  for (const [prefix, title] of RANGES) {
    lines.push(`### ${prefix}${'x'.repeat(6 - prefix.length)}: ${title}`, '', '| code | meaning |', '|---|---|');
    // A code belongs to the longest range prefix it starts with (KF47xx: CRD compatibility, not KF4).
    const own = (code: string) =>
      RANGES.filter(([p]) => code.startsWith(p)).sort((a, b) => b[0].length - a[0].length)[0]?.[0] === prefix;
    for (const d of DIAGNOSTIC_CODES.filter((x) => own(x.code)))
      lines.push(`| ${d.code} | ${d.summary.replace(/\|/g, '\\|')} |`);
    lines.push('');
  }
  lines.push(DIAGNOSTICS_REFERENCE_END);
  return `${lines.join('\n')}\n`;
}
