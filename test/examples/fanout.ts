/**
 * The example of issue #40: a port of a Kubebuilder operator that fans a resource out to every
 * namespace a label selector picks, written with the idioms a Go author takes from
 * controller-runtime and apimachinery, each one line in kubeforge:
 *   - an async map function (on a Namespace event, list the Fanouts from the cache and enqueue
 *     those whose selector picks the namespace);
 *   - a label selector (the Fanout's `spec.namespaceSelector`, a metav1.LabelSelector, parsed and
 *     matched as apimachinery does, and printed into the status as apimachinery prints it);
 *   - a namespace-scoped cache (the source Secret is read from a cache of one namespace: no
 *     cluster-wide Secret RBAC).
 * test/examples/fanout.test.ts runs it on the fake API server and on a real kube-apiserver.
 */
import type { KubernetesObject, V1LabelSelector, V1Namespace } from '@kubernetes/client-node';
import { controllerManagedBy, enqueueRequestsFromMapFunc } from '../../src/runtime/controller/index.js';
import type { Manager } from '../../src/runtime/manager/index.js';
import { type Client, isNotFound, labelSelectorAsSelector } from '../../src/runtime/client/index.js';
import { must } from '../helpers/must.js';

export const GROUP = 'fan.example.com';
export const SOURCE_NAMESPACE = 'fanout-system';

export interface Fanout extends KubernetesObject {
  spec: { namespaceSelector: V1LabelSelector; secretName: string };
  status?: { selector?: string; namespaces?: string[] };
}

export const FanoutType = { apiVersion: `${GROUP}/v1`, kind: 'Fanout' };
const Namespace = { apiVersion: 'v1', kind: 'Namespace' };
const Secret = { apiVersion: 'v1', kind: 'Secret' };
const ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap' };

/** The CRD of Fanout (cluster-scoped, status subresource). */
export const FANOUT_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `fanouts.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: 'Fanout', listKind: 'FanoutList', plural: 'fanouts', singular: 'fanout' },
    scope: 'Cluster',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                required: ['namespaceSelector', 'secretName'],
                properties: {
                  namespaceSelector: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  secretName: { type: 'string' },
                },
              },
              status: {
                type: 'object',
                properties: {
                  selector: { type: 'string' },
                  namespaces: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** The manager's cache options: Secrets of the source namespace only. */
export const CACHE_OPTIONS = { byObject: [{ object: Secret, namespaces: { [SOURCE_NAMESPACE]: {} } }] };

export class FanoutReconciler {
  constructor(readonly client: Client) {}

  async reconcile(req: { name: string }, ctx: { signal: AbortSignal }): Promise<Record<string, never>> {
    let fanout: Fanout;
    try {
      fanout = (await this.client.get(FanoutType, { name: req.name }, { signal: ctx.signal })) as Fanout;
    } catch (e) {
      if (isNotFound(e)) return {};
      throw e;
    }
    const selector = labelSelectorAsSelector(fanout.spec.namespaceSelector);
    const source = await this.client.get(
      Secret,
      { namespace: SOURCE_NAMESPACE, name: fanout.spec.secretName },
      {
        signal: ctx.signal,
      },
    );
    const namespaces = (
      await this.client.list(Namespace, { labelSelector: selector.toString(), signal: ctx.signal })
    ).items
      .map((n) => must(must(n.metadata, 'n.metadata').name, 'n.metadata.name'))
      .sort();
    for (const ns of namespaces) {
      const cm = {
        ...ConfigMap,
        metadata: { namespace: ns, name: `fanout-${must(fanout.metadata, 'fanout.metadata').name}` },
        data: { ...((source as { data?: Record<string, string> }).data ?? {}) },
      };
      try {
        await this.client.create(cm, { signal: ctx.signal });
      } catch (e) {
        if ((e as { code?: number }).code !== 409) throw e;
      }
    }
    const status = { selector: selector.toString(), namespaces };
    if (JSON.stringify(fanout.status ?? {}) !== JSON.stringify(status)) {
      fanout.status = status;
      await this.client.status().update(fanout, { signal: ctx.signal });
    }
    return {};
  }

  setupWithManager(mgr: Manager): void {
    const client = mgr.getClient();
    controllerManagedBy(mgr)
      .for(FanoutType)
      .watches(
        Namespace,
        // The async map function: the Fanouts whose selector picks this namespace, from the cache.
        enqueueRequestsFromMapFunc(async (ns: V1Namespace, { signal }) => {
          const fanouts = (await client.list(FanoutType, { signal })).items as Fanout[];
          return fanouts
            .filter((f) => labelSelectorAsSelector(f.spec.namespaceSelector).matches(ns.metadata?.labels ?? {}))
            .map((f) => ({ namespace: '', name: must(must(f.metadata, 'f.metadata').name, 'f.metadata.name') }));
        }),
      )
      .named('fanout')
      .complete(this);
  }
}
