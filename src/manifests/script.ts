/**
 * The legacy read path: where projects made before PROJECT's manifests record (settings.ts) kept
 * the options of their manifests, as flags of package.json's `manifests` script (the command
 * `make manifests` and `npm run manifests` run: `kubeforge manifests --max-desc-len 0
 * --k8s-version 1.35 --generate-embedded-object-meta`). kubeforge no longer writes them there; it
 * still reads them, so that such a project generates what it generated before (the script's flags
 * win over the record, as `make manifests` passes them anyway), until `alpha generate` / `alpha
 * update` moves them into PROJECT or the user removes them.
 *
 * Read only: a flag counts in the script's first command (`kubeforge manifests ...`), never after
 * `&& other-command` or inside a `#` comment.
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
function firstCommandEnd(script: string): number {
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

/**
 * The `--max-desc-len` of package.json's `manifests` script as written (`''` when the flag has no
 * value), and the 1-based line of package.json that holds it; undefined when the script has none.
 */
export function recordedMaxDescLenFlag(packageJson: string | undefined): { value: string; line: number } | undefined {
  const script = packageJson === undefined ? undefined : manifestsScript(packageJson);
  if (script === undefined || packageJson === undefined) return undefined;
  const command = firstCommand(script);
  const value = command.match(FLAG)?.[2] ?? (/(^|\s)--max-desc-len(=|\s|$)/.test(command) ? '' : undefined);
  if (value === undefined) return undefined;
  return { value, line: manifestsLine(packageJson) };
}

/** The `--max-desc-len` the package.json's `manifests` script passes, if any (undefined also for a value that is not a whole number). */
export function recordedMaxDescLen(packageJson: string | undefined): number | undefined {
  const value = recordedMaxDescLenFlag(packageJson)?.value;
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The `--k8s-version` the package.json's `manifests` script passes, as written (checked where it is
 * used: see k8s-version.ts), and the 1-based line of package.json that holds it.
 */
export function recordedK8sVersion(packageJson: string | undefined): { value: string; line: number } | undefined {
  const script = packageJson === undefined ? undefined : manifestsScript(packageJson);
  const value = script === undefined ? undefined : firstCommand(script).match(K8S_VERSION_FLAG)?.[2];
  if (value === undefined || packageJson === undefined) return undefined;
  return { value, line: manifestsLine(packageJson) };
}

/** The 1-based line of package.json that holds the `manifests` script (1 when not found). */
function manifestsLine(packageJson: string): number {
  const at = packageJson.search(/"manifests"\s*:/);
  return at < 0 ? 1 : packageJson.slice(0, at).split('\n').length;
}

/** The script's first command (up to {@link firstCommandEnd}). */
function firstCommand(script: string): string {
  return script.slice(0, firstCommandEnd(script));
}

/** controller-gen's `crd:generateEmbeddedObjectMeta`, as the manifests script records it. */
export const EMBEDDED_OBJECT_META_FLAG = '--generate-embedded-object-meta';

/** Whether the package.json's `manifests` script passes `flag` (a flag without a value) to its kubeforge command. */
export function recordedFlag(packageJson: string | undefined, flag: string): boolean {
  const script = packageJson === undefined ? undefined : manifestsScript(packageJson);
  if (script === undefined) return false;
  return firstCommand(script).split(/\s+/).includes(flag);
}

/** The manifests options a project's `manifests` script records (what `make manifests` passes). */
export interface RecordedManifestsOptions {
  maxDescLen?: number;
  embeddedObjectMeta?: boolean;
  /** `--k8s-version` as recorded (not checked here: a value kubeforge does not support is a located error where it is used). */
  k8sVersion?: string;
}

/** The options the package.json's `manifests` script passes to kubeforge (settings.ts reads them under PROJECT's record). */
export function recordedManifestsOptions(packageJson: string | undefined): RecordedManifestsOptions {
  return {
    maxDescLen: recordedMaxDescLen(packageJson),
    embeddedObjectMeta: recordedFlag(packageJson, EMBEDDED_OBJECT_META_FLAG) || undefined,
    k8sVersion: recordedK8sVersion(packageJson)?.value,
  };
}

/** These options as the flags that pass them (`--max-desc-len 0 --k8s-version 1.35`); '' for none. */
export function describeFlags(options: RecordedManifestsOptions): string {
  return [
    ...(options.maxDescLen !== undefined ? [`--max-desc-len ${options.maxDescLen}`] : []),
    ...(options.k8sVersion !== undefined ? [`--k8s-version ${options.k8sVersion}`] : []),
    ...(options.embeddedObjectMeta ? [EMBEDDED_OBJECT_META_FLAG] : []),
  ].join(' ');
}
