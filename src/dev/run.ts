/**
 * The `kubeforge dev` action: starts a DevSession and runs until SIGINT/SIGTERM, then stops it
 * (a second signal while stopping exits at once, the exit hooks killing the control plane).
 */
import { resolve } from 'node:path';
import { type DevOptions, DevSession } from './session.js';

/** The command's flags: the session's options, with the project folder as given (relative to the current one). */
export type DevFlags = Pick<
  DevOptions,
  'kubeconfig' | 'context' | 'webhookHost' | 'webhookPort' | 'keep' | 'applySamples' | 'typeCheck' | 'fake'
> & { project?: string };

/** What the action needs from the CLI (the CLI's context has it): where it runs, and its output. */
export interface DevIo {
  cwd: string;
  color: boolean;
  out(text: string): void;
  err(text: string): void;
}

export async function runDev(flags: DevFlags, ctx: DevIo): Promise<void> {
  const session = new DevSession({
    projectDir: resolve(ctx.cwd, flags.project ?? '.'),
    kubeconfig: flags.kubeconfig === undefined ? undefined : resolve(ctx.cwd, flags.kubeconfig),
    context: flags.context,
    webhookHost: flags.webhookHost,
    webhookPort: flags.webhookPort,
    keep: flags.keep,
    applySamples: flags.applySamples,
    typeCheck: flags.typeCheck,
    fake: flags.fake,
    color: ctx.color,
    out: ctx.out,
    err: ctx.err,
  });
  let signalled: (sig: string) => void = () => {};
  const stopping = new Promise<string>((r) => (signalled = r));
  let count = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    count++;
    if (count > 1) {
      ctx.err(`kubeforge dev: ${sig} again: exiting without cleaning up\n`);
      process.exit(130);
    }
    signalled(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const start = session.start();
    // A signal during the start stops it as soon as the current step ends.
    const first = await Promise.race([start.then(() => undefined), stopping]);
    if (first !== undefined) {
      await start.catch(() => {});
    } else {
      const sig = await stopping;
      ctx.out(`\nkubeforge dev: ${sig}: stopping\n`);
    }
    await session.stop();
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}
