/**
 * A sharded manager in the scaffold (`init --sharded[=<replicas>]`, `edit --sharded[=<replicas>|false]`):
 * config/manager/manager.yaml runs N replicas with `--shard-ring=<projectName>` instead of one
 * with `--leader-elect` (the scaffolded src/main.ts takes both flags, so the switch is
 * configuration only), and PROJECT records it as the `sharding.kubeforge.io/v1-alpha` plugin's
 * `replicas`, which `alpha generate` and `alpha update` replay. The replicas' member Leases need
 * what leader election needs, which config/rbac/leader_election_role.yaml grants already.
 */
import { join } from 'node:path';
import { type Diagnostic, DiagnosticError, error } from '../diagnostics/index.js';
import { pluginConfig, PROJECT_FILE, type ProjectConfig, SHARDING_PLUGIN } from '../project/index.js';

export { SHARDING_PLUGIN };

/** Replicas of a sharded manager when --sharded gives no number (and PROJECT records none). */
export const DEFAULT_SHARD_REPLICAS = 3;

/** What `--sharded` asked for: on (with a replica count, or the default / recorded one), off, or nothing. */
export type ShardedRequest = { replicas?: number } | false | undefined;

/**
 * The value of `--sharded` (true when given bare, the text after `=` otherwise; a number or
 * boolean from code): a positive integer, true or false. Anything else is KF1082.
 */
export function parseSharded(
  value: boolean | number | string | undefined,
  command: 'init' | 'edit',
): { request: ShardedRequest; problem?: Diagnostic } {
  if (value === undefined || value === true) return { request: value === true ? {} : undefined };
  if (value === false) return { request: false };
  const text = String(value).trim();
  if (/^(true|t|yes|y)$/i.test(text)) return { request: {} };
  if (/^(false|f|no|n)$/i.test(text)) return { request: false };
  const replicas = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isSafeInteger(replicas) && replicas >= 1) return { request: { replicas } };
  const off = command === 'edit' ? ', or --sharded=false to go back to one leader-elected replica' : '';
  return {
    request: undefined,
    problem: error(
      'KF1082',
      replicas === 0
        ? 'invalid --sharded=0: a sharded manager runs at least one replica'
        : `invalid --sharded value ${JSON.stringify(String(value))}: expected a number of replicas (a positive integer) or true / false`,
      { hint: `pass --sharded (${DEFAULT_SHARD_REPLICAS} replicas), --sharded=<replicas> such as --sharded=5${off}` },
    ),
  };
}

/**
 * The replicas PROJECT records for a sharded manager, undefined when it is not sharded; a record
 * whose `replicas` is not a positive integer is KF1082, located at PROJECT's record.
 */
export function recordedShardReplicas(config: ProjectConfig, cwd: string, projectText?: string): number | undefined {
  const record = pluginConfig(config, SHARDING_PLUGIN);
  if (record === undefined) return undefined;
  const replicas = record.replicas ?? DEFAULT_SHARD_REPLICAS;
  if (typeof replicas === 'number' && Number.isSafeInteger(replicas) && replicas >= 1) return replicas;
  const index = projectText?.split('\n').findIndex((l) => l.includes(SHARDING_PLUGIN));
  throw new DiagnosticError(
    error(
      'KF1082',
      `PROJECT's ${SHARDING_PLUGIN} record has replicas: ${JSON.stringify(replicas)}, not a positive integer`,
      {
        file: join(cwd, PROJECT_FILE),
        ...(index !== undefined && index >= 0 ? { line: index + 1 } : {}),
        hint: `set its replicas to the number of manager replicas (e.g. replicas: ${DEFAULT_SHARD_REPLICAS}), or run kubeforge edit --sharded=<replicas>`,
      },
    ),
  );
}
