import type { Host } from '../scaffold/index.js';

/** What a scaffolding command (init, create api) needs from its caller; the CLI passes its context. */
export interface ScaffoldEnvironment {
  /** The project folder: where init scaffolds, where create api finds PROJECT. */
  cwd: string;
  out: (text: string) => void;
  err: (text: string) => void;
  color?: boolean;
  /** Where files are read and written; default: the disk at `cwd`. */
  host?: Host;
  /** The running kubeforge's package folder (templates, the packed tarball); default: packageRoot(). */
  kubeforgeDir?: string;
}
