/**
 * Finding the cluster configuration the way controller-runtime's `config.GetConfigOrDie` does:
 * `--kubeconfig` flag, then `KUBECONFIG`, then in-cluster service account, then `~/.kube/config`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { newKubeConfig } from '../client/kubeconfig.js';
import { checkOptions } from '../options.js';

/** No usable cluster configuration was found, or the one found is broken. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Options of {@link getConfigOrDie}. */
export interface GetConfigOptions {
  /** A kubeconfig path; wins over everything else. Default: the `--kubeconfig` command-line flag. */
  kubeconfig?: string;
  /** Use this context instead of the file's current-context (`--context` flag by default). */
  context?: string;
  /** Command line to read `--kubeconfig` / `--context` from (default process.argv). */
  argv?: string[];
  /** Environment (default process.env). */
  env?: NodeJS.ProcessEnv;
}

function flag(argv: string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === `--${name}` || a === `-${name}`) return argv[i + 1];
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
    if (a.startsWith(`-${name}=`)) return a.slice(name.length + 2);
  }
  return undefined;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Loads the cluster configuration: `--kubeconfig` (or `options.kubeconfig`), `KUBECONFIG`
 * (several files joined with ':' are merged), in-cluster (KUBERNETES_SERVICE_HOST and the
 * service-account token), `~/.kube/config`. Throws ConfigError naming every place it looked when
 * none works, or the file and cause when one is unreadable. ("OrDie" in Go exits; here the error
 * propagates so that main() can exit non-zero.)
 */
export function getConfigOrDie(options: GetConfigOptions = {}): KubeConfig {
  checkOptions('getConfigOrDie', options, { kubeconfig: true, context: true, argv: true, env: true });
  const argv = options.argv ?? process.argv.slice(2);
  const env = options.env ?? process.env;
  const explicit = options.kubeconfig ?? flag(argv, 'kubeconfig');
  const context = options.context ?? flag(argv, 'context');
  const kc = newKubeConfig();
  const tried: string[] = [];
  const load = (file: string, source: string) => {
    if (!existsSync(file)) throw new ConfigError(`kubeconfig ${file} (from ${source}) does not exist`);
    try {
      kc.loadFromFile(file);
    } catch (e) {
      throw new ConfigError(`cannot load kubeconfig ${file} (from ${source}): ${e instanceof Error ? e.message : e}`);
    }
  };
  if (explicit) {
    load(explicit, '--kubeconfig');
  } else if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(delimiter).filter(Boolean);
    load(files[0], 'KUBECONFIG');
    for (const f of files.slice(1)) {
      if (!existsSync(f)) continue;
      const more = newKubeConfig();
      more.loadFromFile(f);
      kc.mergeConfig(more, true);
    }
  } else if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && existsSync(join(SA_DIR, 'token'))) {
    kc.loadFromCluster();
  } else {
    tried.push(
      '--kubeconfig (not given)',
      'KUBECONFIG (unset)',
      'in-cluster (KUBERNETES_SERVICE_HOST unset or no service-account token)',
    );
    const home = env.HOME ?? homedir();
    const file = join(home, '.kube', 'config');
    if (!existsSync(file)) {
      tried.push(`${file} (missing)`);
      throw new ConfigError(
        `no Kubernetes configuration found; tried: ${tried.join('; ')}. Pass --kubeconfig=<file> or set KUBECONFIG.`,
      );
    }
    load(file, '~/.kube/config');
  }
  if (context) {
    if (!kc.getContextObject(context))
      throw new ConfigError(`context ${JSON.stringify(context)} not found in the kubeconfig`);
    kc.setCurrentContext(context);
  }
  if (!kc.getCurrentCluster()) {
    throw new ConfigError(
      `the kubeconfig has no usable current context (current-context: ${JSON.stringify(kc.getCurrentContext())})`,
    );
  }
  return kc;
}

/** The namespace this pod runs in (service-account namespace file), or undefined outside a cluster. */
export function inClusterNamespace(): string | undefined {
  try {
    return readFileSync(join(SA_DIR, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
