// Owned by the create-api work. Registers `kubeforge create api` (and later `create webhook`);
// implementations are imported lazily inside the actions.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export function registerCreate(_program: Command, _ctx: CliContext): void {}
