/** Shutdown on SIGTERM / SIGINT, like controller-runtime's `signals.SetupSignalHandler`. */
import { setMaxListeners } from 'node:events';

let shared: AbortSignal | undefined;

/**
 * Returns an AbortSignal that aborts on the first SIGTERM or SIGINT (the reason is an Error naming
 * the signal); pass it to `mgr.start(signal)` for a graceful shutdown. A second signal exits the
 * process at once with code 1 (the one place kubeforge/runtime exits: the user asked twice).
 * Calling it again returns the same signal and installs nothing more.
 */
export function setupSignalHandler(): AbortSignal {
  if (shared) return shared;
  const ac = new AbortController();
  setMaxListeners(0, ac.signal); // every runnable of the manager may listen
  shared = ac.signal;
  const onSignal = (sig: NodeJS.Signals) => {
    if (!ac.signal.aborted) {
      ac.abort(new Error(`received ${sig}`));
      return;
    }
    process.stderr.write(`received second ${sig}, exiting immediately\n`);
    process.exit(1);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return shared;
}
