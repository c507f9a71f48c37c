// Owned by the init/scaffold work (issue 2). Registers `kubeforge init`; the implementation is imported lazily.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export function registerInit(_program: Command, _ctx: CliContext): void {}
