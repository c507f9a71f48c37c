/**
 * The package manager a generated project uses (`init --package-manager npm|pnpm|yarn|bun`): the
 * commands its Makefile, CI workflows, Dockerfile, devcontainer and package.json scripts run, its
 * lockfile, and how kubeforge installs the dependencies after init. The choice is recorded in
 * PROJECT (the packagemanager.kubeforge.io/v1-alpha plugin record; none for npm, the default) so
 * that `alpha generate` and `alpha update` re-scaffold with it.
 */
import { DiagnosticError, error } from '../diagnostics/index.js';
import { PACKAGE_MANAGER_PLUGIN, pluginConfig } from '../project/plugins.js';
import type { ProjectConfig } from '../project/config.js';

export const PACKAGE_MANAGERS = ['npm', 'pnpm', 'yarn', 'bun'] as const;
export type PackageManagerName = (typeof PACKAGE_MANAGERS)[number];

/** What the templates say for a package manager (`pm` in their data). */
export interface PackageManager {
  name: PackageManagerName;
  isNpm: boolean;
  /** Installs the dependencies, updating the lockfile. */
  install: string;
  /** Installs exactly what the lockfile says (CI, Docker, devcontainer). */
  ci: string;
  /** Runs a package.json script: `npm run`. */
  run: string;
  /** Runs the test script: `npm test` (`bun run test`: `bun test` is bun's own runner). */
  test: string;
  /** Runs the start script. */
  start: string;
  /** Runs a binary of the dependencies: `npx`. */
  exec: string;
  lockfile: string;
  /** The file of its settings the project holds (`pnpm-workspace.yaml`), which the Docker build copies with the lockfile; or ''. */
  settingsFile: string;
  /** Installs the package manager itself where only Node.js and npm are (CI, the Docker builder); '' for npm. */
  setup: string;
  /** The argv of the install kubeforge runs after init. */
  installArgv: readonly string[];
}

const TABLE: Record<PackageManagerName, PackageManager> = {
  npm: {
    name: 'npm',
    isNpm: true,
    install: 'npm install --no-audit --no-fund',
    ci: 'npm ci --no-audit --no-fund',
    run: 'npm run',
    test: 'npm test',
    start: 'npm start',
    exec: 'npx',
    lockfile: 'package-lock.json',
    settingsFile: '',
    setup: '',
    installArgv: ['npm', 'install', '--no-audit', '--no-fund'],
  },
  pnpm: {
    name: 'pnpm',
    isNpm: false,
    install: 'pnpm install',
    ci: 'pnpm install --frozen-lockfile',
    run: 'pnpm run',
    test: 'pnpm test',
    start: 'pnpm start',
    exec: 'pnpm exec',
    lockfile: 'pnpm-lock.yaml',
    settingsFile: 'pnpm-workspace.yaml',
    setup: 'npm install -g pnpm',
    installArgv: ['pnpm', 'install'],
  },
  yarn: {
    name: 'yarn',
    isNpm: false,
    install: 'yarn install',
    ci: 'yarn install --frozen-lockfile',
    run: 'yarn run',
    test: 'yarn test',
    start: 'yarn start',
    exec: 'yarn',
    lockfile: 'yarn.lock',
    settingsFile: '',
    setup: 'npm install -g yarn',
    installArgv: ['yarn', 'install'],
  },
  bun: {
    name: 'bun',
    isNpm: false,
    install: 'bun install',
    ci: 'bun install --frozen-lockfile',
    run: 'bun run',
    test: 'bun run test',
    start: 'bun run start',
    exec: 'bunx',
    lockfile: 'bun.lock',
    settingsFile: '',
    setup: 'npm install -g bun',
    installArgv: ['bun', 'install'],
  },
};

export function packageManager(name: PackageManagerName): PackageManager {
  return TABLE[name];
}

/** The package manager that ran kubeforge (`npm_config_user_agent`: `pnpm/10.0.0 npm/? node/v22 ...`), else npm. */
export function packageManagerOfAgent(agent: string | undefined): PackageManagerName {
  const name = agent?.split('/')[0]?.trim();
  return PACKAGE_MANAGERS.find((p) => p === name) ?? 'npm';
}

/** `--package-manager`'s value, checked (KF1008); the running one's when not given. */
export function resolvePackageManager(
  flag: string | undefined,
  agent: string | undefined = process.env.npm_config_user_agent,
): PackageManagerName {
  if (flag === undefined) return packageManagerOfAgent(agent);
  const found = PACKAGE_MANAGERS.find((p) => p === flag);
  if (!found)
    throw new DiagnosticError(
      error('KF1008', `unknown --package-manager "${flag}": expected one of ${PACKAGE_MANAGERS.join(', ')}`, {
        hint: 'e.g. --package-manager pnpm (default: the package manager that ran kubeforge)',
      }),
    );
  return found;
}

/** The package manager PROJECT records (npm when it records none, or one kubeforge does not know). */
export function recordedPackageManager(config: Pick<ProjectConfig, 'extra'>): PackageManagerName {
  const name = pluginConfig(config, PACKAGE_MANAGER_PLUGIN)?.name;
  return PACKAGE_MANAGERS.find((p) => p === name) ?? 'npm';
}
