/**
 * Node's file-system and stream errors (`ENOSPC`, `ENOTDIR`, ...) in words a user can act on: every
 * failure of a command is a KF code with a path, never a raw `ENOSPC: no space left on device,
 * write` or a stack trace.
 */

/** A Node system error: `code` such as 'ENOSPC', maybe the `path` and `syscall` it failed on. */
export interface SystemError extends Error {
  code: string;
  path?: string;
  syscall?: string;
}

export function isSystemError(e: unknown): e is SystemError {
  return (
    e instanceof Error && typeof (e as SystemError).code === 'string' && /^E[A-Z0-9]+$/.test((e as SystemError).code)
  );
}

/** What to do about a system error, for a hint (`path` is where it happened, when known). */
export function systemErrorHint(e: SystemError, path = e.path): string {
  const where = path ? ` (${path})` : '';
  switch (e.code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `the disk${where} is full: free some space and run the command again`;
    case 'EROFS':
      return `the file system${where} is read-only: run the command where it can write`;
    case 'EACCES':
    case 'EPERM':
      return `no permission to write${where}: fix the permissions or run as the folder's owner`;
    case 'ENOTDIR':
      return `a file stands where a folder is expected${where}: move the file away (kubeforge keeps its lock, cache and staging folder in .kubeforge/)`;
    case 'EISDIR':
      return `a folder stands where a file is expected${where}: move the folder away`;
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files: raise the limit (ulimit -n) or close other programs';
    case 'EIO':
      return `an input/output error of the device${where}: check the disk`;
    case 'EPIPE':
    case 'EBADF':
      return 'the output was closed before the command finished writing';
    default:
      return `the operating system refused ${e.syscall ?? 'an operation'}${where} with ${e.code}`;
  }
}
