import type { CommandIo, Host } from '../machinery/index.js';

/**
 * What a scaffolding command (init, create api, create webhook) needs from its caller: the one
 * IO context every command receives (the CLI passes its own), plus where files live.
 */
export interface ScaffoldEnvironment extends CommandIo {
  /** Where files are read and written; default: the disk at `cwd` (the project folder). */
  host?: Host;
  /** The running kubeforge's package folder (templates, the packed tarball); default: packageRoot(). */
  kubeforgeDir?: string;
}
