// Owned by the init/scaffold work (issue 2). Registers `kubeforge completion bash|zsh|fish`.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export function registerCompletion(_program: Command, _ctx: CliContext): void {}
