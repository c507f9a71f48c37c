/**
 * Health and readiness checks served on the probe address (controller-runtime's pkg/healthz):
 * `/healthz` and `/readyz` run every named check; `/healthz/<name>` runs one; `?verbose` lists
 * each check; `?exclude=<name>` skips one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A named check. Resolving (or returning) means healthy; throwing or rejecting means unhealthy,
 * and the probe answers 500. Checks run on every probe request, so keep them cheap.
 */
export type Checker = (req: IncomingMessage) => void | Promise<void>;

/** Ready-made checkers. */
export const healthz = {
  /** Always healthy: answers as long as the process serves HTTP. */
  ping: (() => undefined) as Checker,
};

interface Result {
  name: string;
  ok: boolean;
  excluded: boolean;
  error?: string;
}

/** A check of the set by a name the set lists. */
function checkOf(checks: ReadonlyMap<string, Checker>, name: string): Checker {
  const check = checks.get(name);
  if (!check) throw new Error(`kubeforge/runtime: no check named ${JSON.stringify(name)}`);
  return check;
}

async function run(name: string, check: Checker, req: IncomingMessage): Promise<Result> {
  try {
    await check(req);
    return { name, ok: true, excluded: false };
  } catch (e) {
    return { name, ok: false, excluded: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Serves one probe endpoint family (`/healthz` or `/readyz`) for a set of named checks.
 * Returns false when the request path is not under `base` (caller answers 404).
 */
export async function serveChecks(
  base: string,
  checks: ReadonlyMap<string, Checker>,
  req: IncomingMessage,
  res: ServerResponse,
  onFailure?: (name: string, error: string) => void,
): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://probe');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  if (path !== base && !path.startsWith(`${base}/`)) return false;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.statusCode = 405;
    res.end('method not allowed\n');
    return true;
  }
  if (path !== base) {
    // One named check.
    const name = decodeURIComponent(path.slice(base.length + 1));
    const check = checks.get(name) ?? (checks.size === 0 && name === 'ping' ? healthz.ping : undefined);
    if (!check) {
      res.statusCode = 404;
      res.end(`no check named ${JSON.stringify(name)}\n`);
      return true;
    }
    const r = await run(name, check, req);
    if (r.ok) {
      res.statusCode = 200;
      res.end('ok');
    } else {
      onFailure?.(name, r.error ?? '');
      res.statusCode = 500;
      res.end(`internal server error: ${r.error}\n`);
    }
    return true;
  }
  const verbose = url.searchParams.has('verbose');
  const excluded = new Set(
    url.searchParams
      .getAll('exclude')
      .flatMap((v) => v.split(','))
      .filter(Boolean),
  );
  const names = [...checks.keys()].sort();
  let results: Result[];
  if (names.length === 0) {
    results = [{ name: 'ping', ok: true, excluded: false }];
  } else {
    results = await Promise.all(
      names.map((n) =>
        excluded.has(n) ? Promise.resolve({ name: n, ok: true, excluded: true }) : run(n, checkOf(checks, n), req),
      ),
    );
  }
  const failed = results.filter((r) => !r.ok);
  for (const r of failed) onFailure?.(r.name, r.error ?? '');
  const kind = base.slice(1);
  if (failed.length === 0 && !verbose) {
    res.statusCode = 200;
    res.end('ok');
    return true;
  }
  const lines = results.map((r) =>
    r.excluded ? `[+]${r.name} excluded: ok` : r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`,
  );
  for (const n of [...excluded].sort())
    if (!checks.has(n)) lines.push(`warn: some ${kind} checks cannot be excluded: no matches for "${n}"`);
  lines.push(failed.length ? `${kind} check failed` : `${kind} check passed`);
  res.statusCode = failed.length ? 500 : 200;
  res.end(`${lines.join('\n')}\n`);
  return true;
}
