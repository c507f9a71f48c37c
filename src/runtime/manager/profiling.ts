/**
 * The manager's profiling endpoint (controller-runtime's `PprofBindAddress`, off by default): Go's
 * net/http/pprof paths, answered with what Node's own tools read.
 *
 * - `/debug/pprof/`: the list below, as text.
 * - `/debug/pprof/profile?seconds=N` (default 30, at most 300): a CPU profile of the next N
 *   seconds, from V8's sampling profiler (node:inspector), as a `.cpuprofile` document that Chrome
 *   DevTools (Performance > Load profile) and VS Code open.
 * - `/debug/pprof/heap`: a V8 heap snapshot, as a `.heapsnapshot` document (DevTools, Memory >
 *   Load). Taking one pauses the process for about as long as it takes to write the heap: it is for
 *   a debugging session, not for a scraper.
 *
 * One profile or snapshot at a time: a second request meanwhile gets 409. The server has no
 * authentication (as in controller-runtime): bind it to localhost or keep it off.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Session } from 'node:inspector';
import { getHeapSnapshot } from 'node:v8';

const INDEX = `kubeforge/runtime profiling (controller-runtime's pprof endpoint, in Node's formats)

/debug/pprof/profile?seconds=30   CPU profile of the next N seconds (.cpuprofile: Chrome DevTools, VS Code)
/debug/pprof/heap                 V8 heap snapshot (.heapsnapshot: Chrome DevTools > Memory)
`;

/** The longest CPU profile one request may ask for, in seconds. */
export const MAX_PROFILE_SECONDS = 300;

/** Returns the request handler of the profiling server. */
export function profilingHandler(): (req: IncomingMessage, res: ServerResponse) => void {
  let busy = false;
  const text = (res: ServerResponse, code: number, body: string) =>
    res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' }).end(body);
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://profiling.invalid');
    if (req.method !== 'GET') return text(res, 405, 'only GET\n');
    if (url.pathname === '/debug/pprof/' || url.pathname === '/debug/pprof') return text(res, 200, INDEX);
    if (url.pathname !== '/debug/pprof/profile' && url.pathname !== '/debug/pprof/heap')
      return text(res, 404, '404 page not found\n');
    if (busy) return text(res, 409, 'a profile or heap snapshot is already being taken; try again when it is done\n');
    if (url.pathname === '/debug/pprof/heap') {
      busy = true;
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Disposition': 'attachment; filename="heap.heapsnapshot"',
      });
      const snapshot = getHeapSnapshot();
      snapshot.pipe(res);
      const done = () => {
        busy = false;
      };
      snapshot.once('end', done);
      snapshot.once('error', () => {
        done();
        res.destroy();
      });
      res.once('close', () => {
        if (!snapshot.readableEnded) snapshot.destroy();
        done();
      });
      return;
    }
    const raw = url.searchParams.get('seconds') ?? '30';
    const seconds = Number(raw);
    if (!/^\d+$/.test(raw) || seconds < 1 || seconds > MAX_PROFILE_SECONDS)
      return text(
        res,
        400,
        `seconds must be a whole number from 1 to ${MAX_PROFILE_SECONDS}, not ${JSON.stringify(raw)}\n`,
      );
    busy = true;
    void cpuProfile(seconds * 1000, req)
      .then((profile) => {
        if (profile === undefined) return;
        res
          .writeHead(200, {
            'Content-Type': 'application/json',
            'Content-Disposition': 'attachment; filename="cpu.cpuprofile"',
          })
          .end(JSON.stringify(profile));
      })
      .catch((e: unknown) => {
        if (!res.headersSent) text(res, 500, `could not take the CPU profile: ${(e as Error).message}\n`);
      })
      .finally(() => {
        busy = false;
      });
  };
}

/** Samples the CPU for `ms`; undefined when the client went away first (the profiler is stopped then). */
async function cpuProfile(ms: number, req: IncomingMessage): Promise<object | undefined> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))),
    );
  try {
    await post('Profiler.enable');
    await post('Profiler.start');
    const gone = await new Promise<boolean>((resolve) => {
      const t = setTimeout(() => {
        req.socket.off('close', onClose);
        resolve(false);
      }, ms);
      const onClose = () => {
        clearTimeout(t);
        resolve(true);
      };
      req.socket.once('close', onClose);
    });
    const { profile } = (await post('Profiler.stop')) as { profile: object };
    return gone ? undefined : profile;
  } finally {
    session.disconnect();
  }
}
