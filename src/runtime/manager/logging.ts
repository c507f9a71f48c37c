/**
 * The root logger a manager's `main` builds from controller-runtime's zap flags
 * (`--zap-log-level`, `--zap-devel`, `--zap-encoder`), on pino.
 */
import { writeSync } from 'node:fs';
import pino, { type Level, type Logger } from 'pino';
import { checkOptions } from '../options.js';
import { traceMixin } from '../tracing.js';

/** controller-runtime's `zap.Options`, as its flags set them. */
export interface ZapOptions {
  /**
   * `--zap-devel`: development defaults, i.e. the console encoder and level debug, unless
   * `encoder` / `level` say otherwise. Default false (production: JSON, level info).
   */
  development?: boolean;
  /** `--zap-encoder`: `json` (one object per line) or `console` (human-readable). */
  encoder?: 'json' | 'console';
  /**
   * `--zap-log-level`: `debug`, `info`, `warn`, `error`, `panic`, or an integer > 0 for more
   * verbosity than debug (zap's `-N`: 1 is debug, 2 and more are pino's trace).
   */
  level?: string | number;
  /** Where lines go (default: stderr, written synchronously, so nothing is lost on exit). */
  destination?: { write(line: string): unknown };
}

/** A flag value newLogger cannot use; the message names the flag and what it takes. */
export class LoggerOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoggerOptionsError';
  }
}

const NAMED: Record<string, Level | 'silent'> = {
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  panic: 'fatal',
  dpanic: 'fatal',
  silent: 'silent',
};

/**
 * The pino level of a `--zap-log-level` value (or of `level` given in code, where pino's `silent`
 * also works, e.g. in tests); throws LoggerOptionsError for anything else.
 */
export function zapLevel(value: string | number): Level | 'silent' {
  const text = String(value).trim().toLowerCase();
  if (Object.hasOwn(NAMED, text)) return NAMED[text];
  if (/^\d+$/.test(text) && Number(text) > 0) return Number(text) === 1 ? 'debug' : 'trace';
  throw new LoggerOptionsError(
    `invalid log level "${value}" (the level option, --zap-log-level on the command line): expected debug, info, warn, error, panic, silent or an integer > 0`,
  );
}

/** The encoder of a `--zap-encoder` value; throws LoggerOptionsError for anything else. */
export function zapEncoder(value: string): 'json' | 'console' {
  if (value === 'json' || value === 'console') return value;
  throw new LoggerOptionsError(`invalid --zap-encoder "${value}": expected json or console`);
}

const LABELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'PANIC' };
const OMIT = new Set(['level', 'time', 'msg', 'logger', 'pid', 'hostname', 'err']);

/** One pino JSON line as zap's console encoder writes it: time, LEVEL, logger, message, then the fields as JSON. */
export function consoleLine(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const parts = [
    typeof rec.time === 'number' ? new Date(rec.time).toISOString() : '',
    typeof rec.level === 'string' ? rec.level.toUpperCase() : (LABELS[rec.level as number] ?? String(rec.level)),
    ...(typeof rec.logger === 'string' ? [rec.logger] : []),
    String(rec.msg ?? ''),
  ];
  const fields = Object.fromEntries(Object.entries(rec).filter(([k]) => !OMIT.has(k)));
  const err =
    typeof rec.err === 'string' ? { message: rec.err } : (rec.err as { message?: string; stack?: string } | undefined);
  if (err?.message) fields.error = err.message;
  if (Object.keys(fields).length) parts.push(JSON.stringify(fields));
  return `${parts.join('\t')}\n${err?.stack ? `${err.stack}\n` : ''}`;
}

const stderr = { write: (line: string) => writeSync(2, line) };

/**
 * The root logger for `newManager(config, { logger })` from the zap options: JSON lines (level
 * as a word) or zap's console format, at the level asked. Throws LoggerOptionsError for a level
 * or encoder it does not know (a `main` prints it with its usage and exits 2). Writes are
 * synchronous, so nothing is lost when the process exits after a shutdown.
 */
export function newLogger(options: ZapOptions = {}): Logger {
  checkOptions(
    'newLogger',
    options,
    { development: true, encoder: true, level: true, destination: true },
    { logLevel: 'level', devel: 'development', zapDevel: 'development' },
  );
  const dev = options.development ?? false;
  const level = options.level !== undefined ? zapLevel(options.level) : dev ? 'debug' : 'info';
  const encoder = options.encoder !== undefined ? zapEncoder(options.encoder) : dev ? 'console' : 'json';
  const out = options.destination ?? stderr;
  const destination = encoder === 'console' ? { write: (line: string) => out.write(consoleLine(line)) } : out;
  return pino(
    {
      level,
      formatters: { level: (label) => ({ level: label === 'fatal' ? 'panic' : label }) },
      mixin: traceMixin,
    },
    destination,
  );
}
