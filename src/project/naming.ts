/**
 * Name validation with the rule that failed and a valid example: DNS-1123 subdomains
 * (domains, groups), DNS-1123 labels (project names), npm package names, Kinds, versions.
 * Each validator returns a Diagnostic, or undefined when the value is valid.
 */
import { type Diagnostic, error } from '../diagnostics/index.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../util/apimachinery/validation.js';

function describeChar(c: string): string {
  return c === ' ' ? 'a space' : /[A-Z]/.test(c) ? `upper-case "${c}"` : `"${c}"`;
}

function problem(what: string, value: string, rule: string, example: string, flag?: string): Diagnostic {
  return error('KF1001', `invalid ${what} "${value}": ${rule}`, {
    hint: `${flag ? `${flag} ` : ''}needs ${example}`,
  });
}

/**
 * The first DNS-1123 rule a value breaks, worded for a command line (which character, which part),
 * or undefined. Only called on a value apimachinery's validator (the one implementation) refused.
 */
function labelRule(value: string, max: number, allowDots: boolean): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > max) return `must be at most ${max} characters (it has ${value.length})`;
  const allowed = allowDots ? /[a-z0-9.-]/ : /[a-z0-9-]/;
  for (let i = 0; i < value.length; i++) {
    if (!allowed.test(value[i])) {
      return `must consist of lower-case letters, digits${allowDots ? ", '-' and '.'" : " and '-'"}; found ${describeChar(value[i])} at position ${i + 1}`;
    }
  }
  const parts = allowDots ? value.split('.') : [value];
  for (const part of parts) {
    if (part === '') return 'must not have empty parts (no leading, trailing or doubled dots)';
    if (!/^[a-z0-9]/.test(part) || !/[a-z0-9]$/.test(part)) {
      return allowDots
        ? `each dot-separated part must start and end with a letter or digit ("${part}" does not)`
        : 'must start and end with a letter or digit';
    }
  }
  return undefined;
}

/** DNS-1123 subdomain (RFC 1123): lower-case alphanumerics, '-' and '.', at most 253 characters. */
export function validateDns1123Subdomain(
  value: string,
  what = 'domain',
  flag?: string,
  example = 'a DNS-1123 subdomain such as "example.com" or "my-org.io"',
): Diagnostic | undefined {
  if (isDns1123Subdomain(value)) return undefined;
  const rule = labelRule(value, 253, true) ?? isDNS1123Subdomain(value)[0];
  return rule ? problem(what, value, `a DNS-1123 subdomain ${rule}`, example, flag) : undefined;
}

/** DNS-1123 label: lower-case alphanumerics and '-', at most 63 characters. */
export function validateDns1123Label(
  value: string,
  what = 'project name',
  flag?: string,
  example = 'a DNS-1123 label such as "my-operator"',
): Diagnostic | undefined {
  if (isDns1123Label(value)) return undefined;
  const rule = labelRule(value, 63, false) ?? isDNS1123Label(value)[0];
  return rule ? problem(what, value, `a DNS-1123 label ${rule}`, example, flag) : undefined;
}

/** DNS-1123 label as Kubernetes checks it (apimachinery's IsDNS1123Label): at most 63 characters. */
export function isDns1123Label(value: string): boolean {
  return isDNS1123Label(value).length === 0;
}

/** DNS-1123 subdomain as Kubernetes checks it (apimachinery's IsDNS1123Subdomain): at most 253 characters. */
export function isDns1123Subdomain(value: string): boolean {
  return isDNS1123Subdomain(value).length === 0;
}

/** npm package name: at most 214 characters, lower case, URL-safe, optionally `@scope/name`. */
export function validateNpmPackageName(value: string, flag = '--package-name'): Diagnostic | undefined {
  const example = 'an npm package name such as "my-operator" or "@my-org/my-operator"';
  const fail = (rule: string) => problem('npm package name', value, rule, example, flag);
  if (value.length === 0) return fail('must not be empty');
  if (value.length > 214) return fail(`must be at most 214 characters (it has ${value.length})`);
  if (value !== value.toLowerCase()) return fail('must be lower case');
  const m = /^(?:@([^/]+)\/)?([^/]+)$/.exec(value);
  if (!m) return fail('must be "name" or "@scope/name"');
  for (const part of [m[1], m[2]]) {
    if (part === undefined) continue;
    if (/^[._]/.test(part)) return fail('must not start with "." or "_"');
    const bad = /[^a-z0-9._~-]/.exec(part);
    if (bad) return fail(`may only hold URL-safe characters (a-z 0-9 - . _ ~); found ${describeChar(bad[0])}`);
  }
  if (['node_modules', 'favicon.ico'].includes(m[2])) return fail(`"${m[2]}" is reserved`);
  return undefined;
}

/** A Kind: PascalCase, starts with an upper-case letter, letters and digits only, at most 63. */
export function validateKind(value: string, flag = '--kind'): Diagnostic | undefined {
  const fail = (rule: string) => problem('Kind', value, rule, 'a PascalCase Kind such as "CronJob"', flag);
  if (value.length === 0) return fail('must not be empty');
  if (value.length > 63) return fail(`must be at most 63 characters (it has ${value.length})`);
  if (!/^[A-Z]/.test(value)) return fail('must start with an upper-case letter');
  const bad = /[^A-Za-z0-9]/.exec(value);
  if (bad) return fail(`may only hold letters and digits; found ${describeChar(bad[0])}`);
  return undefined;
}

/**
 * A Kind that validateKind accepts but Kubernetes (or kubeforge) cannot serve: one ending in
 * "List" (Kubernetes names the list of Kind X "XList", so a Kind FooList would be the list of
 * Foo), one whose list Kind would be longer than 63 characters (the API server wants the
 * lower-cased list Kind to be a DNS-1035 label), or one whose derived resource name (`plural`,
 * when it is derived from the Kind) would be. Every other PascalCase name works: the scaffolded
 * code renames its own identifiers around the Kind. KF1051, naming `flag`.
 */
export function refusedKind(kind: string, plural?: string, flag = '--kind'): Diagnostic | undefined {
  const refuse = (rule: string, hint: string) => error('KF1051', `${flag} ${kind}: ${rule}`, { hint });
  if (kind.endsWith('List')) {
    return refuse(
      `a Kind may not end in "List": Kubernetes names the list of a Kind X "XList", so ${kind} reads as the list of ${kind.slice(0, -4) || 'nothing'}`,
      `pick a name that does not end in "List", e.g. ${kind.slice(0, -4) || 'Item'}Set or ${kind.slice(0, -4) || 'Item'}Collection`,
    );
  }
  if (kind.length + 'List'.length > 63) {
    return refuse(
      `the API server refuses it: its list Kind ${kind}List would be ${kind.length + 4} characters, and a (lower-cased) list Kind must be a DNS-1035 label of at most 63`,
      'use a Kind of at most 59 characters',
    );
  }
  if (plural !== undefined && plural.length > 63) {
    return refuse(
      `the API server refuses it: its resource name "${plural}" would be ${plural.length} characters, and a resource name must be a DNS-1035 label of at most 63`,
      'use a shorter Kind, or give a resource name of at most 63 characters with --plural',
    );
  }
  return undefined;
}

/** A Kubernetes API version: v1, v1alpha1, v2beta3. */
export function validateVersion(value: string, flag = '--version'): Diagnostic | undefined {
  if (/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(value)) return undefined;
  return problem(
    'version',
    value,
    'must be "v" then a number, optionally followed by alpha or beta and a number',
    'a version such as "v1", "v1alpha1" or "v2beta1"',
    flag,
  );
}

/**
 * A group (without the domain): a DNS-1123 subdomain, so dotted groups such as `foo.policy` (or
 * a whole domain with multigroup) are accepted, as Kubebuilder does; empty means the core group.
 */
export function validateGroup(value: string, flag = '--group'): Diagnostic | undefined {
  if (value === '') return undefined;
  return validateDns1123Subdomain(value, 'group', flag, 'a DNS-1123 subdomain such as "batch" or "apps"');
}

/**
 * The checks of --group, --version and --kind that `create api` and `create webhook` share. Each
 * missing flag adds the caller's own message (`missing`); `refused` judges a well-formed Kind
 * further. Returns the values ('' when missing) and every problem found.
 */
export function checkGvkFlags(
  o: { group?: string; version?: string; kind?: string },
  missing: { group: Diagnostic; version: Diagnostic; kind: Diagnostic },
  refused: (kind: string) => Diagnostic | undefined,
): { group: string; version: string; kind: string; problems: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  const add = (d: Diagnostic | undefined) => d && problems.push(d);
  if (o.group === undefined) add(missing.group);
  else add(validateGroup(o.group));
  if (o.version === undefined) add(missing.version);
  else add(validateVersion(o.version));
  if (o.kind === undefined) add(missing.kind);
  else add(validateKind(o.kind) ?? refused(o.kind));
  return { group: o.group ?? '', version: o.version ?? '', kind: o.kind ?? '', problems };
}

/**
 * Why the API server refuses a webhook service path (apiserver's ValidateWebhookService, for
 * admission webhooks and CRD conversion alike), or undefined: it starts with '/', and each
 * segment (one trailing '/' allowed) is a lowercase DNS-1123 subdomain, so no empty, '.' or '..'
 * segment, no capitals or underscores, at most 253 characters.
 */
export function webhookPathProblem(path: string): string | undefined {
  if (path === '' || path === '/') return undefined;
  if (path === '//') return 'segment[0] may not be empty';
  if (!path.startsWith('/')) return "must start with a '/'";
  let rest = path.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  const steps = rest.split('/');
  for (const [i, step] of steps.entries()) {
    if (step === '') return `segment[${i}] may not be empty`;
    if (!isDns1123Subdomain(step))
      return `segment[${i}] '${step.length > 40 ? `${step.slice(0, 40)}...` : step}' is not a lowercase DNS-1123 subdomain (a-z, 0-9, '-' and '.', starting and ending with a letter or digit, at most 253 characters)`;
  }
  return undefined;
}
