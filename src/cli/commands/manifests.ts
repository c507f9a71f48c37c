// Owned by the manifests work (issue 3). Registers `kubeforge manifests`; the implementation is imported lazily.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export function registerManifests(_program: Command, _ctx: CliContext): void {}
