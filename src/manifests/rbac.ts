/**
 * RBAC generator: `@Rbac({...})` marker uses -> ClusterRole / Role objects for
 * `config/rbac/role.yaml`.
 *
 * Rules are merged, deduplicated and sorted the way controller-gen's rbac generator does it:
 * every marker is split into one rule per resource, rules with the same groups + resources +
 * resourceNames + URLs have their verbs merged, then rules that differ only in resources, only in
 * groups, or only in URLs are folded together, every list is deduplicated and sorted, the rules
 * are ordered by their `groups + resources + resourceNames + urls` key, and a rule holding `*`
 * among its verbs keeps only `*`. Objects are grouped by (namespace, role name) and ordered by
 * namespace then name, so the ClusterRole (no namespace) comes first.
 *
 * Unlike controller-gen, the ClusterRole `manager-role` is written even when no marker asks for
 * a cluster-scoped rule, so that `config/rbac/kustomization.yaml` can always reference it.
 *
 * In a namespace-scoped project (PROJECT `namespaced: true`, `managerNamespace` given) the
 * manager's role is a Role in its namespace instead, bound by config/rbac's RoleBinding: markers
 * without `namespace` and without a `roleName` of their own add to it (what controller-gen makes of
 * Kubebuilder's namespaced scaffold, whose markers name `namespace=<project>-system`), so switching
 * the scope needs no marker edit. A marker naming its own `roleName` keeps controller-gen's rule
 * (no namespace: a ClusterRole), and non-resource URLs, which only a ClusterRole can grant, are
 * an error there unless they name a `roleName` of their own.
 *
 * Inputs that the API server would reject (a Role with non-resource URLs, a rule mixing URLs and
 * resources, a resource rule without groups) are reported as located errors here instead.
 */
import { Reporter } from '../diagnostics/index.js';
import { isDns1123Label, isDns1123Subdomain } from '../project/naming.js';
import { bySource, failAt, type MarkerUse } from './markeruse.js';

const DEFAULT_ROLE_NAME = 'manager-role';

/** The verbs the API server authorizes on resources (the standard ones and the special ones of RBAC, PSP, CSRs and impersonation). */
export const RESOURCE_VERBS = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  'use',
  'bind',
  'escalate',
  'impersonate',
  'approve',
  'sign',
  'attest',
];
/** The verbs of non-resource URLs (lower-cased HTTP methods). */
export const URL_VERBS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

/** rbac.authorization.k8s.io/v1 PolicyRule as marshalled (empty lists omitted). */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

export interface RoleObject {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRole' | 'Role';
  metadata: { name: string; namespace?: string };
  rules: PolicyRule[];
}

interface Rule {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  urls: string[];
  verbs: string[];
}

function dedupSort(list: readonly string[]): string[] {
  return [...new Set(list)].sort(compareBytes);
}

/** Go's strings.Compare (byte order; equal to UTF-16 order for the ASCII names used here). */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function normalize(r: Rule): void {
  r.groups = dedupSort(r.groups);
  r.resources = dedupSort(r.resources);
  r.resourceNames = dedupSort(r.resourceNames);
  r.urls = dedupSort(r.urls);
  r.verbs = dedupSort(r.verbs);
}

function ruleKey(r: Rule): string {
  normalize(r);
  return `${r.groups.join('&')} + ${r.resources.join('&')} + ${r.resourceNames.join('&')} + ${r.urls.join('&')}`;
}

/** Folds rules whose key (computed without one field) is equal, concatenating that field. */
function foldBy(rules: Iterable<Rule>, keyWithout: (r: Rule) => string, field: keyof Rule): Map<string, Rule> {
  const groups = new Map<string, Rule[]>();
  for (const r of rules) {
    const k = keyWithout(r);
    const list = groups.get(k);
    if (list) list.push(r);
    else groups.set(k, [r]);
  }
  const out = new Map<string, Rule>();
  for (const list of groups.values()) {
    const first = list[0];
    for (const other of list.slice(1)) first[field] = [...first[field], ...other[field]];
    out.set(ruleKey(first), first);
  }
  return out;
}

/** Merges and sorts rules as controller-gen's NormalizeRules does. */
function normalizeRules(input: readonly Rule[]): PolicyRule[] {
  let byKey = new Map<string, Rule>();
  for (const original of input) {
    const rule: Rule = {
      groups: original.groups.map((g) => (g === 'core' ? '' : g)),
      resources: [...original.resources],
      resourceNames: [...original.resourceNames],
      urls: [...original.urls],
      verbs: [...original.verbs],
    };
    const key = ruleKey(rule);
    const existing = byKey.get(key);
    if (existing) existing.verbs = dedupSort([...existing.verbs, ...rule.verbs]);
    else byKey.set(key, rule);
  }
  const j = (l: string[]) => l.join('&');
  // Each key is computed after normalising the rule, as controller-gen's key helpers do.
  const withoutResources = (r: Rule) => {
    normalize(r);
    return `${j(r.groups)} + ${j(r.resourceNames)} + ${j(r.urls)} + ${j(r.verbs)}`;
  };
  const withoutGroups = (r: Rule) => {
    normalize(r);
    return `${j(r.resources)} + ${j(r.resourceNames)} + ${j(r.urls)} + ${j(r.verbs)}`;
  };
  const withoutUrls = (r: Rule) => {
    normalize(r);
    return `${j(r.groups)} + ${j(r.resources)} + ${j(r.resourceNames)} + ${j(r.verbs)}`;
  };
  byKey = foldBy(byKey.values(), withoutResources, 'resources');
  byKey = foldBy(byKey.values(), withoutGroups, 'groups');
  byKey = foldBy(byKey.values(), withoutUrls, 'urls');
  return [...byKey]
    .sort(([a], [b]) => compareBytes(a, b))
    .map(([, r]) => {
      const verbs = r.verbs.includes('*') ? ['*'] : r.verbs;
      const rule: PolicyRule = { verbs };
      if (r.groups.length) rule.apiGroups = r.groups;
      if (r.resources.length) rule.resources = r.resources;
      if (r.resourceNames.length) rule.resourceNames = r.resourceNames;
      if (r.urls.length) rule.nonResourceURLs = r.urls;
      return rule;
    });
}

/** Builds the ClusterRole and Roles from every `@Rbac` marker use; problems go to the reporter (KF4101). */
export function generateRbac(
  uses: readonly MarkerUse<'Rbac'>[],
  reporter: Reporter = new Reporter(),
  options: {
    roleName?: string /** A namespace-scoped project's manager namespace: the default role is a Role there. */;
    managerNamespace?: string;
  } = {},
): { objects: RoleObject[] } {
  const defaultRoleName = options.roleName ?? DEFAULT_ROLE_NAME;
  const managerNamespace = options.managerNamespace ?? '';
  const byScope = new Map<string, { namespace: string; roleName: string; rules: Rule[] }>();
  const scope = (namespace: string, roleName: string) => {
    const key = JSON.stringify([namespace, roleName]);
    const entry = byScope.get(key) ?? { namespace, roleName, rules: [] };
    byScope.set(key, entry);
    return entry;
  };
  scope(managerNamespace, defaultRoleName);

  for (const use of [...uses].sort(bySource)) {
    const a = use.args;
    const fail = (message: string, hint?: string) => failAt(reporter, 'KF4101', use, message, hint);
    const before = reporter.count;
    const groups = a.groups ?? [];
    const resources = a.resources ?? [];
    const resourceNames = a.resourceNames ?? [];
    const verbs = a.verbs;
    const urls = a.urls ?? [];
    const roleName = a.roleName || defaultRoleName;
    // Namespace-scoped project: the manager's own rules go to its Role.
    const toManagerRole = managerNamespace !== '' && !a.namespace && roleName === defaultRoleName;
    const namespace = toManagerRole ? managerNamespace : (a.namespace ?? '');
    const where = `@Rbac on ${use.target}`;
    if (verbs.length === 0)
      fail(
        `${where} has an empty 'verbs' list`,
        "list the verbs the rule grants, e.g. verbs: ['get', 'list', 'watch']",
      );
    if (verbs.some((v) => v === '')) fail(`${where} has an empty verb`, 'remove the empty string from verbs');
    if (namespace && !isDns1123Label(namespace)) {
      fail(
        `${where}: namespace '${namespace}' is not a valid namespace name`,
        'use lower-case letters, digits and "-" (RFC 1123 label)',
      );
    }
    for (const v of verbs) {
      const known = urls.length > 0 ? URL_VERBS : RESOURCE_VERBS;
      if (v !== '' && v !== '*' && !known.includes(v)) {
        const lower = known.find((k) => k === v.toLowerCase());
        fail(
          `${where}: '${v}' is not a Kubernetes ${urls.length > 0 ? 'non-resource URL ' : ''}verb`,
          `${lower ? `did you mean '${lower}'? ` : ''}verbs are ${known.join(', ')} (or '*')`,
        );
      }
    }
    if (a.roleName !== undefined && roleName && !isDns1123Subdomain(roleName)) {
      fail(
        `${where}: roleName '${roleName}' is not a valid role name`,
        'use lower-case letters, digits, "-" and "." (RFC 1123 subdomain)',
      );
    }
    if (urls.length > 0) {
      if (toManagerRole) {
        fail(
          `${where} grants non-resource URLs, but this project is namespace-scoped (PROJECT: namespaced: true): ${defaultRoleName} is a Role in '${managerNamespace}', and only a ClusterRole can grant URLs`,
          `give this @Rbac a roleName of its own (a ClusterRole) and bind it to the manager's service account with a ClusterRoleBinding in config/rbac; or make the project cluster-scoped (kubeforge edit --namespaced=false)`,
        );
      } else if (namespace) {
        fail(
          `${where} grants non-resource URLs in namespace '${namespace}'`,
          'non-resource URLs can only be granted by a ClusterRole: drop namespace, or move the URLs to another @Rbac',
        );
      }
      if (groups.length || resources.length || resourceNames.length) {
        fail(
          `${where} mixes 'urls' with 'groups'/'resources'/'resourceNames'`,
          'a rule applies either to resources or to non-resource URLs: split it into two @Rbac markers',
        );
      }
    } else {
      if (resources.length === 0) {
        fail(`${where} names no resources and no urls`, "add resources: ['...'] (with groups) or urls: ['/metrics']");
      } else if (groups.length === 0) {
        fail(
          `${where} names resources but no API groups`,
          "add groups: [''] for the core group (pods, services...) or the group of the resources, e.g. groups: ['apps']",
        );
      }
    }
    if (reporter.count > before) continue;
    const entry = scope(namespace, roleName);
    if (resources.length === 0) {
      entry.rules.push({ groups, resources: [], resourceNames, urls, verbs });
    } else {
      for (const resource of resources) entry.rules.push({ groups, resources: [resource], resourceNames, urls, verbs });
    }
  }

  const entries = [...byScope.values()].sort(
    (a, b) => compareBytes(a.namespace, b.namespace) || compareBytes(a.roleName, b.roleName),
  );
  const objects: RoleObject[] = [];
  for (const e of entries) {
    const rules = normalizeRules(e.rules);
    const isManagerRole = e.namespace === managerNamespace && e.roleName === defaultRoleName;
    if (rules.length === 0 && !isManagerRole) continue;
    objects.push(
      e.namespace === ''
        ? { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: e.roleName }, rules }
        : {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'Role',
            metadata: { name: e.roleName, namespace: e.namespace },
            rules,
          },
    );
  }
  return { objects };
}
