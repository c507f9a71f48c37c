/**
 * Where a project records the options of its manifests: the `manifests` script of its
 * package.json, the command `make manifests` (and `npm run manifests`) runs. It is the TypeScript
 * counterpart of the controller-gen line in a Kubebuilder Makefile's manifests target, where
 * Kubebuilder users write `crd:maxDescLen=0`: a build option of the project, not a fact about how
 * it was scaffolded (Kubebuilder's PROJECT never holds controller-gen options).
 *
 * `kubeforge manifests --max-desc-len <n>` writes the flag into that script, so later runs keep
 * it; `create api` / `create webhook` (which run the manifests in-process, as Kubebuilder runs
 * `make manifests`) and `alpha generate` read it from there. So does `--k8s-version <minor>`, the
 * Kubernetes minor whose types embedded Kubernetes types follow (a Kubebuilder project's
 * counterpart: the k8s.io/api version its go.mod requires).
 */

const FLAG = /(^|\s)--max-desc-len(?:=|\s+)(\S+)/;
const K8S_VERSION_FLAG = /(^|\s)--k8s-version(?:=|\s+)(\S+)/;
const KUBEFORGE_MANIFESTS = /^\s*(?:npx\s+)?kubeforge\s+manifests(?:[\s;&|#]|$)/;

function manifestsScript(packageJson: string): string | undefined {
  try {
    const script = (JSON.parse(packageJson) as { scripts?: Record<string, unknown> }).scripts?.manifests;
    return typeof script === 'string' && KUBEFORGE_MANIFESTS.test(script) ? script : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the script's first command (`kubeforge manifests ...`) ends: at the first shell operator
 * (`&&`, `||`, `;`, `|`, `&`), line break or `#` comment outside quotes. A flag is read from and
 * written into that command only, never after `&& other-command` or inside a comment.
 */
export function firstCommandEnd(script: string): number {
  let quote: string | undefined;
  for (let i = 0; i < script.length; i++) {
    const c = script[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === ';' || c === '|' || c === '&' || c === '\n' || (c === '#' && (i === 0 || /\s/.test(script[i - 1]))))
      return i;
  }
  return script.length;
}

/** The `--max-desc-len` the package.json's `manifests` script passes, if any (undefined also for a value that is not a whole number). */
export function recordedMaxDescLen(packageJson: string | undefined): number | undefined {
  const script = packageJson === undefined ? undefined : manifestsScript(packageJson);
  const value = script === undefined ? undefined : firstCommand(script).match(FLAG)?.[2];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * package.json with its `manifests` script passing `--max-desc-len <n>` (replacing another value);
 * the rest of the text as it was. Undefined when there is no `manifests` script running
 * `kubeforge manifests` to record it in.
 */
export function recordMaxDescLen(packageJson: string, n: number): string | undefined {
  return recordValue(packageJson, FLAG, `--max-desc-len ${n}`);
}

/**
 * The `--k8s-version` the package.json's `manifests` script passes, as written (checked where it is
 * used: see k8s-version.ts), and the 1-based line of package.json that holds it.
 */
export function recordedK8sVersion(packageJson: string | undefined): { value: string; line: number } | undefined {
  const script = packageJson === undefined ? undefined : manifestsScript(packageJson);
  const value = script === undefined ? undefined : firstCommand(script).match(K8S_VERSION_FLAG)?.[2];
  if (value === undefined || packageJson === undefined) return undefined;
  const at = packageJson.search(/"manifests"\s*:/);
  return { value, line: at < 0 ? 1 : packageJson.slice(0, at).split('\n').length };
}

/** package.json with its `manifests` script passing `--k8s-version <minor>` (replacing another value); undefined without such a script. */
export function recordK8sVersion(packageJson: string, minor: string): string | undefined {
  return recordValue(packageJson, K8S_VERSION_FLAG, `--k8s-version ${minor}`);
}

/** package.json with the flag `re` matches set to `arg` (`--flag value`) in its manifests script's kubeforge command. */
function recordValue(packageJson: string, re: RegExp, arg: string): string | undefined {
  const script = manifestsScript(packageJson);
  if (script === undefined) return undefined;
  const command = firstCommand(script);
  const updated = re.test(command)
    ? command.replace(re, `$1${arg}`) + script.slice(command.length)
    : withArgument(script, arg);
  if (updated === script) return packageJson;
  return replaceScript(packageJson, script, updated);
}

/** The script's first command (up to {@link firstCommandEnd}). */
function firstCommand(script: string): string {
  return script.slice(0, firstCommandEnd(script));
}

/** The script with `arg` added at the end of its first command, whatever follows it kept as it was. */
function withArgument(script: string, arg: string): string {
  const command = firstCommand(script);
  const rest = script.slice(command.length);
  return `${command.replace(/\s+$/, '')} ${arg}${rest ? (command.match(/\s+$/)?.[0] ?? ' ') : ''}${rest}`;
}

/** controller-gen's `crd:generateEmbeddedObjectMeta`, as the manifests script records it. */
export const EMBEDDED_OBJECT_META_FLAG = '--generate-embedded-object-meta';

/** Whether the package.json's `manifests` script passes `flag` (a flag without a value) to its kubeforge command. */
export function recordedFlag(packageJson: string | undefined, flag: string): boolean {
  const script = packageJson === undefined ? undefined : manifestsScript(packageJson);
  if (script === undefined) return false;
  return firstCommand(script).split(/\s+/).includes(flag);
}

/**
 * package.json with its `manifests` script passing `flag` (added to its kubeforge command when
 * missing); the rest of the text as it was. Undefined when there is no such script to record it in.
 */
export function recordFlag(packageJson: string, flag: string): string | undefined {
  const script = manifestsScript(packageJson);
  if (script === undefined) return undefined;
  if (recordedFlag(packageJson, flag)) return packageJson;
  return replaceScript(packageJson, script, withArgument(script, flag));
}

/** The manifests options a project's `manifests` script records (what `make manifests` passes). */
export interface RecordedManifestsOptions {
  maxDescLen?: number;
  embeddedObjectMeta?: boolean;
  /** `--k8s-version` as recorded (not checked here: a value kubeforge does not support is a located error where it is used). */
  k8sVersion?: string;
}

/** The options the package.json's `manifests` script passes to kubeforge (read by create api / webhook and alpha generate). */
export function recordedManifestsOptions(packageJson: string | undefined): RecordedManifestsOptions {
  return {
    maxDescLen: recordedMaxDescLen(packageJson),
    embeddedObjectMeta: recordedFlag(packageJson, EMBEDDED_OBJECT_META_FLAG) || undefined,
    k8sVersion: recordedK8sVersion(packageJson)?.value,
  };
}

/** package.json with its `manifests` script passing these options; undefined when it has no such script. */
export function recordManifestsOptions(packageJson: string, options: RecordedManifestsOptions): string | undefined {
  if (manifestsScript(packageJson) === undefined) return undefined;
  let text = packageJson;
  // Both keep the script a kubeforge manifests command, so neither returns undefined here.
  if (options.maxDescLen !== undefined) text = recordMaxDescLen(text, options.maxDescLen)!;
  if (options.embeddedObjectMeta) text = recordFlag(text, EMBEDDED_OBJECT_META_FLAG)!;
  if (options.k8sVersion !== undefined) text = recordK8sVersion(text, options.k8sVersion)!;
  return text;
}

/** package.json with its `manifests` script `from` replaced by `to`, the rest of the text kept. */
function replaceScript(packageJson: string, from: string, to: string): string {
  const quoted = JSON.stringify(from);
  const at = packageJson.indexOf(`"manifests": ${quoted}`);
  if (at >= 0)
    return `${packageJson.slice(0, at)}"manifests": ${JSON.stringify(to)}${packageJson.slice(at + `"manifests": ${quoted}`.length)}`;
  const json = JSON.parse(packageJson) as { scripts: Record<string, string> };
  json.scripts.manifests = to;
  const indent = packageJson.match(/^[ \t]+(?=")/m)?.[0] ?? '  ';
  return `${JSON.stringify(json, null, indent)}\n`;
}
