/**
 * What the API server checks of a request before its handler runs the verb: the body's size
 * (3 MiB), its JSON as the server's decoder reads it (./wire.ts: int64 exactly, depth, duplicate
 * keys, syntax errors in encoding/json's words), and the query parameters of writes, lists and
 * deletes (dryRun, fieldManager, fieldValidation, force, propagationPolicy, limit,
 * resourceVersion, resourceVersionMatch), refused in the server's words.
 */
import { ApiStatus, badRequest, unsupportedMediaType } from './status.js';
import { MAX_DEPTH, parseWire, WireSyntaxError } from './wire.js';
import { yaml } from '../crds.js';

/** The API server's MaxRequestBodyBytes. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** A decoded body and the duplicate keys it had (the server warns of them, or refuses them under Strict). */
export interface Body {
  value: unknown;
  duplicates: string[];
  /** The syntax error, when the body is not JSON (the verb words it). */
  error?: string;
  /** Warnings of the YAML decoder (a key given twice). */
  warnings?: string[];
}

/**
 * go-yaml v2's error (the API server's apply decoder) for a flow-style body (JSON, as clients
 * send apply bodies) that ends too early: an unterminated quoted scalar is the scanner's `found
 * unexpected end of stream`, a missing value the parser's `did not find expected node content`, a
 * missing `,` / `}` / `]` its `did not find expected ',' or '}'`. The parser's errors name the line
 * of the end of the stream (the scanner counts a last line without a line break as ended). Undefined
 * when the body is not such a truncated flow document (the yaml package's message stands).
 */
export function flowYamlError(raw: string): string | undefined {
  const lines = (raw.match(/\n/g) ?? []).length;
  const endLine = lines + (raw.endsWith('\n') ? 0 : 1);
  const parserError = (problem: string) => `${endLine ? `line ${endLine}: ` : ''}${problem}`;
  let i = 0;
  const n = raw.length;
  while (i < n && /\s/.test(raw[i])) i++;
  if (raw[i] !== '{' && raw[i] !== '[') return undefined;
  const stack: string[] = [];
  let expectNode = true;
  while (i < n) {
    const c = raw[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '{' || c === '[') {
      if (!expectNode) return undefined;
      stack.push(c);
      i++;
      continue;
    }
    if (c === '}' || c === ']') {
      if (stack.pop() !== (c === '}' ? '{' : '[')) return undefined;
      expectNode = false;
      i++;
      if (!stack.length) return undefined;
      continue;
    }
    if (c === ':' || c === ',') {
      expectNode = true;
      i++;
      continue;
    }
    if (!expectNode) return undefined;
    if (c === '"') {
      const start = i;
      i++;
      while (i < n && raw[i] !== '"') i += raw[i] === '\\' ? 2 : 1;
      if (i >= n) {
        // A scanner error: the mark where the stream ended, else where the scalar started.
        const endMark = lines;
        const startMark = (raw.slice(0, start).match(/\n/g) ?? []).length;
        const line = endMark ? endMark + 1 : startMark;
        return `${line ? `line ${line}: ` : ''}found unexpected end of stream`;
      }
      i++;
    } else {
      while (i < n && !/[\s,:\]}]/.test(raw[i])) i++;
    }
    expectNode = false;
  }
  if (!stack.length) return undefined;
  if (expectNode) return parserError('did not find expected node content');
  return parserError(`did not find expected ',' or '${stack[stack.length - 1] === '{' ? '}' : ']'}'`);
}

/** go-yaml's warning for a key given twice in a one-line (JSON) apply body: the last one wins. */
function yamlDuplicates(raw: string): string[] {
  if (raw.includes('\n') || !raw.trimStart().startsWith('{')) return [];
  try {
    return parseWire(raw).duplicates.map(
      (d) => `line 1: key ${JSON.stringify(d.slice(d.lastIndexOf('.') + 1))} already set in map`,
    );
  } catch {
    return [];
  }
}

export function checkBodySize(raw: string): void {
  if (Buffer.byteLength(raw) > MAX_BODY_BYTES)
    throw new ApiStatus(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`);
}

/** Decodes a body of `contentType` (YAML for apply, else JSON). */
export function decodeBody(raw: string, contentType: string, typed = false): Body {
  checkBodySize(raw);
  if (contentType.includes('yaml')) {
    try {
      const value = bigToNumber(yaml().parse(raw, { intAsBigInt: true, uniqueKeys: false }));
      return { value, duplicates: [], warnings: yamlDuplicates(raw) };
    } catch (e) {
      if (e instanceof RangeError || /Maximum call stack/.test((e as Error).message))
        return { value: undefined, duplicates: [], error: `exceeded max depth of ${MAX_DEPTH}` };
      return { value: undefined, duplicates: [], error: flowYamlError(raw) ?? (e as Error).message };
    }
  }
  try {
    return parseWire(raw, typed);
  } catch (e) {
    if (e instanceof WireSyntaxError) return { value: undefined, duplicates: [], error: e.message };
    throw e;
  }
}

/** YAML integers parsed as BigInt: the safe ones back to numbers. */
function bigToNumber(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n ? Number(v) : v;
  if (Array.isArray(v)) return v.map(bigToNumber);
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) (v as Record<string, unknown>)[k] = bigToNumber(x);
  }
  return v;
}

/** A refused option, as field.Error prints it (the value in Go syntax, as %#v or %q shows it). */
interface OptionErr {
  reason: string;
  field: string;
  body: string;
}

/** `<Kind>.meta.k8s.io "" is invalid: ...` (apierrors.NewInvalid of the options). */
function invalidOptions(kind: string, errs: OptionErr[]): ApiStatus {
  const list = errs.map((e) => `${e.field}: ${e.body}`);
  return new ApiStatus(
    422,
    'Invalid',
    `${kind}.meta.k8s.io "" is invalid: ${list.length === 1 ? list[0] : `[${list.join(', ')}]`}`,
    {
      group: 'meta.k8s.io',
      kind,
      causes: errs.map((e) => ({ reason: e.reason, message: e.body, field: e.field })),
    },
  );
}

const goQuote = (s: string) => JSON.stringify(s);
const goStrings = (xs: string[]) => JSON.stringify(xs);

function fieldManagerErrs(fm: string, at = 'fieldManager'): OptionErr[] {
  const out: OptionErr[] = [];
  if (fm.length > 128)
    out.push({ reason: 'FieldValueTooLong', field: at, body: 'Too long: may not be more than 128 bytes' });
  let i = 0;
  for (const ch of fm) {
    const cp = ch.codePointAt(0) ?? 0; // ch is one code point, never empty
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
      out.push({
        reason: 'FieldValueInvalid',
        field: at,
        body: `Invalid value: ${goQuote(fm)}: invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${i})`,
      });
    i += Buffer.byteLength(ch);
  }
  return out;
}

function dryRunErrs(values: string[]): OptionErr[] {
  if (values.every((v) => v === 'All')) return [];
  return [
    {
      reason: 'FieldValueNotSupported',
      field: 'dryRun',
      body: `Unsupported value: ${goStrings(values)}: supported values: "All"`,
    },
  ];
}

function fieldValidationErrs(v: string): OptionErr[] {
  if (['', 'Ignore', 'Warn', 'Strict'].includes(v)) return [];
  return [
    {
      reason: 'FieldValueNotSupported',
      field: 'fieldValidation',
      body: `Unsupported value: ${goQuote(v)}: supported values: "", "Ignore", "Strict", "Warn"`,
    },
  ];
}

/**
 * The options of a create (POST), update (PUT) or patch (PATCH, `patchType` its content type), as
 * ValidateCreateOptions / ValidateUpdateOptions / ValidatePatchOptions check them before the verb.
 */
export function checkWriteOptions(method: string, q: URLSearchParams, patchType = ''): void {
  const kind = method === 'POST' ? 'CreateOptions' : method === 'PUT' ? 'UpdateOptions' : 'PatchOptions';
  const errs: OptionErr[] = [];
  const fm = q.get('fieldManager') ?? '';
  if (kind === 'PatchOptions') {
    const apply = patchType.split(';')[0].trim() === 'application/apply-patch+yaml';
    if (!apply && q.has('force'))
      errs.push({
        reason: 'FieldValueForbidden',
        field: 'force',
        body: 'Forbidden: may not be specified for non-apply patch',
      });
    if (apply && fm === '')
      errs.push({
        reason: 'FieldValueRequired',
        field: 'fieldManager',
        body: 'Required value: is required for apply patch',
      });
  }
  errs.push(...fieldManagerErrs(fm));
  errs.push(...dryRunErrs(q.getAll('dryRun')));
  errs.push(...fieldValidationErrs(q.get('fieldValidation') ?? ''));
  if (errs.length) throw invalidOptions(kind, errs);
}

/** DeleteOptions (the query's and the body's), as ValidateDeleteOptions checks them. */
export function checkDeleteOptions(options: Record<string, unknown>): void {
  const errs: OptionErr[] = [];
  const p = options.propagationPolicy;
  if (options.orphanDependents !== undefined && options.orphanDependents !== null && p !== undefined && p !== null)
    errs.push({
      reason: 'FieldValueInvalid',
      field: 'propagationPolicy',
      body: `Invalid value: ${goQuote(String(p))}: orphanDependents and deletionPropagation cannot be both set`,
    });
  if (typeof p === 'string' && !['Foreground', 'Background', 'Orphan'].includes(p))
    errs.push({
      reason: 'FieldValueNotSupported',
      field: 'propagationPolicy',
      body: `Unsupported value: ${goQuote(p)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
  if (Array.isArray(options.dryRun)) errs.push(...dryRunErrs(options.dryRun.map(String)));
  if (errs.length) throw invalidOptions('DeleteOptions', errs);
}

const goParseInt = (v: string) => /^[+-]?\d+$/.test(v);
const goParseUint = (v: string) => /^\d+$/.test(v);

/** A resourceVersion the storage cannot parse (`abc`, `-1`), worded as it words it. */
function rvError(rv: string): string {
  return `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`;
}

/**
 * ListOptions as the server reads them, in its order: the integers parsed (limit,
 * timeoutSeconds), then ValidateListOptions (resourceVersionMatch), then the storage's parse of
 * resourceVersion.
 */
export function checkListIntegers(q: URLSearchParams): void {
  for (const k of ['timeoutSeconds', 'limit']) {
    const v = q.get(k);
    if (v !== null && v !== '' && !goParseInt(v))
      throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  }
}

/** ValidateListOptions (after the selectors are parsed). */
export function checkListOptions(q: URLSearchParams): void {
  const errs: OptionErr[] = [];
  const rvm = q.get('resourceVersionMatch') ?? '';
  const rv = q.get('resourceVersion') ?? '';
  if (rvm !== '') {
    if (rv === '')
      errs.push({
        reason: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        body: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      });
    if ((q.get('continue') ?? '') !== '')
      errs.push({
        reason: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        body: 'Forbidden: resourceVersionMatch is forbidden when continue is provided',
      });
    if (!['Exact', 'NotOlderThan'].includes(rvm))
      errs.push({
        reason: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        body: `Unsupported value: ${JSON.stringify(rvm)}: supported values: "Exact", "NotOlderThan", ""`,
      });
    if (rvm === 'Exact' && rv === '0')
      errs.push({
        reason: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        body: 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      });
  }
  if (q.has('sendInitialEvents'))
    errs.push({
      reason: 'FieldValueForbidden',
      field: 'sendInitialEvents',
      body: 'Forbidden: sendInitialEvents is forbidden for list',
    });
  if (errs.length) throw invalidOptions('ListOptions', errs);
}

/**
 * ValidateListOptions for a watch (the WatchList gate on, as it is by default since 1.34): a
 * streaming list (`sendInitialEvents`) needs resourceVersionMatch=NotOlderThan, which a watch
 * accepts only beside it. Returns sendInitialEvents as the server parses it (undefined when absent).
 */
export function checkWatchOptions(q: URLSearchParams): boolean | undefined {
  const errs: OptionErr[] = [];
  const rvm = q.get('resourceVersionMatch') ?? '';
  const raw = q.get('sendInitialEvents');
  const sendInitialEvents = raw === null ? undefined : ['true', '1', 't', 'T', 'TRUE', 'True'].includes(raw);
  if (sendInitialEvents !== undefined && rvm !== 'NotOlderThan')
    errs.push({
      reason: 'FieldValueForbidden',
      field: 'resourceVersionMatch',
      body: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    });
  if (rvm !== '') {
    if (sendInitialEvents === undefined)
      errs.push({
        reason: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        body: 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      });
    if (rvm !== 'NotOlderThan')
      errs.push({
        reason: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        body: `Unsupported value: ${JSON.stringify(rvm)}: supported values: "NotOlderThan"`,
      });
  }
  if (errs.length) throw invalidOptions('ListOptions', errs);
  return sendInitialEvents;
}

/** The list's resourceVersion as the storage parses it (after the continue token). */
export function checkListResourceVersion(q: URLSearchParams): void {
  const rv = q.get('resourceVersion') ?? '';
  if (rv !== '' && !goParseUint(rv)) throw badRequest(`invalid resource version: ${rvError(rv)}`);
}

/**
 * A GET's resourceVersion: parsed by the watch cache (a Go error: 500 without a reason), or for
 * Kinds it does not cache (Events) by the storage (400).
 */
export function checkGetResourceVersion(q: URLSearchParams, cached: boolean): void {
  const rv = q.get('resourceVersion') ?? '';
  if (rv === '' || goParseUint(rv)) return;
  if (cached) throw new ApiStatus(500, '', rvError(rv));
  throw badRequest(`invalid resource version: ${rvError(rv)}`);
}

/** Go's base64.StdEncoding error for a continue token that is not base64 (the byte it stopped at). */
export function continueTokenError(token: string): ApiStatus {
  let at = token.search(/[^A-Za-z0-9+/=]/);
  if (at < 0) at = Math.floor(token.length / 4) * 4;
  return badRequest(`invalid continue token: continue key is not valid: illegal base64 data at input byte ${at}`);
}

/** apiserver's summarizeData: the first 30 bytes of a body (hex unless it starts with `{`). */
function summarize(raw: string): string {
  const b = Buffer.from(raw, 'utf8');
  if (b.length === 0) return '<empty>';
  if (b[0] === 0x7b) return b.length > 30 ? `${b.subarray(0, 30).toString('utf8')} ...` : raw;
  return b.length > 30 ? `${b.subarray(0, 30).toString('hex')} ...` : b.toString('hex');
}

/** A body that is not JSON (or YAML for apply), as the verb's handler words it. */
export function bodyError(method: string, contentType: string, kind: string, raw: string, error: string): ApiStatus {
  const type = contentType.split(';')[0].trim();
  if (method === 'PATCH' && type === 'application/apply-patch+yaml')
    return badRequest(`error decoding patch: error converting YAML to JSON: yaml: ${error}`);
  if (method === 'PATCH') return badRequest('invalid JSON patch');
  return badRequest(
    `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${error} (${summarize(raw)})`,
  );
}

/** Duplicate keys of a create or update body: a warning each (Warn), refused (Strict), nothing (Ignore). */
export function duplicateFields(duplicates: string[]): string[] {
  return duplicates.map((d) => `duplicate field ${JSON.stringify(d.replace(/^\./, ''))}`);
}

/** The patch types a resource takes (strategic merge: built-ins only), checked before the body is read. */
export function checkPatchType(contentType: string, custom: boolean): void {
  const type = contentType.split(';')[0].trim();
  const ok = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
  if (!custom) ok.push('application/strategic-merge-patch+json');
  if (!ok.includes(type)) throw unsupportedMediaType(type);
}
