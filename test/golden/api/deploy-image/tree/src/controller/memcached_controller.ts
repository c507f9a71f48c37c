/*
Copyright The Guestbook Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import { V1Deployment } from '@kubernetes/client-node';
import { Rbac } from 'kubeforge/markers';
import {
  addFinalizer,
  type Client,
  type ConditionInput,
  containsFinalizer,
  controllerManagedBy,
  type EventRecorder,
  isNotFound,
  type Manager,
  type ReconcileContext,
  removeFinalizer,
  type Request,
  type Result,
  setControllerReference,
  setStatusCondition,
  TerminalError,
} from 'kubeforge/runtime';
import { Memcached } from '../api/v1alpha1/memcached_types.js';

/** The finalizer put on every Memcached: its clean-up runs before the API server lets the Memcached go. */
const FINALIZER = 'example.com.example.com/finalizer';

/** The container of the Deployment that runs the image. */
const CONTAINER_NAME = 'memcached';

/** The environment variable that holds the image to deploy (config/manager/manager.yaml sets it). */
const IMAGE_ENV = 'MEMCACHED_IMAGE';

// The status conditions the reconciler reports, and their reasons.
/** The Deployment exists and runs spec.size replicas. */
const TYPE_AVAILABLE = 'Available';
/** The Memcached is being deleted and its finalizer operations run. */
const TYPE_DEGRADED = 'Degraded';
const REASON_RECONCILING = 'Reconciling';
const REASON_FINALIZING = 'Finalizing';

/**
 * MemcachedReconciler runs the image of `MEMCACHED_IMAGE` in a Deployment of `spec.size` replicas for
 * each Memcached, owned by it (deleting the Memcached deletes the Deployment).
 *
 * The `@Rbac` markers below are the permissions `npm run manifests` writes into config/rbac/role.yaml.
 */
@Rbac({ groups: ['example.com.example.com'], resources: ['memcacheds'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['example.com.example.com'], resources: ['memcacheds/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: ['example.com.example.com'], resources: ['memcacheds/finalizers'], verbs: ['update'] })
@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })
@Rbac({ groups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] })
export class MemcachedReconciler {
  /**
   * @param client the manager's client (`mgr.getClient()`): reads from its cache, writes to the API server
   * @param recorder records events.k8s.io Events (`mgr.getEventRecorder('memcached-controller')`)
   */
  constructor(
    readonly client: Client,
    readonly recorder: EventRecorder,
  ) {}

  /**
   * Part of the main Kubernetes reconciliation loop: moves the cluster towards the state the
   * Memcached named in `request` describes. It must be idempotent: it runs again on every change
   * of the Memcached or of its Deployment, and after a failure.
   * More: https://kubernetes.io/docs/concepts/extend-kubernetes/operator/
   *
   * Throwing requeues the request with back-off (a TerminalError does not). The writes below
   * refresh the object they are given from the API server's answer, so no re-read is needed
   * between them; a 409 Conflict (someone else wrote first) throws and is retried.
   */
  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    const { signal, logger } = ctx;
    let memcached: Memcached;
    try {
      memcached = await this.client.get(Memcached, request, { signal });
    } catch (err) {
      if (isNotFound(err)) {
        // Deleted (or not created yet): stop here. Its Deployment is garbage-collected.
        logger.info('Memcached not found: ignoring it, it must have been deleted');
        return {};
      }
      throw err;
    }

    // No status yet: say that reconciliation started.
    if (!memcached.status?.conditions?.length) {
      await this.updateCondition(memcached, { type: TYPE_AVAILABLE, status: 'Unknown', reason: REASON_RECONCILING, message: 'Starting reconciliation' }, signal);
    }

    // The finalizer lets the operations of doFinalizerOperations run before the Memcached is deleted.
    // More: https://kubernetes.io/docs/concepts/overview/working-with-objects/finalizers
    if (!memcached.metadata?.deletionTimestamp && addFinalizer(memcached, FINALIZER)) {
      logger.info('adding the finalizer to the Memcached');
      await this.client.update(memcached, { signal });
    }

    // Being deleted: run the finalizer operations, then let it go.
    if (memcached.metadata?.deletionTimestamp) {
      if (containsFinalizer(memcached, FINALIZER)) {
        logger.info('performing the finalizer operations before the Memcached is deleted');
        const name = request.name;
        await this.updateCondition(memcached, { type: TYPE_DEGRADED, status: 'Unknown', reason: REASON_FINALIZING, message: `Performing finalizer operations for the custom resource: ${name}` }, signal);
        // TODO(user): when doFinalizerOperations does work that can fail, throw from it: the
        // finalizer stays and the request is retried.
        this.doFinalizerOperations(memcached);
        await this.updateCondition(memcached, { type: TYPE_DEGRADED, status: 'True', reason: REASON_FINALIZING, message: `Finalizer operations for custom resource ${name} were successfully accomplished` }, signal);
        logger.info('removing the finalizer after the finalizer operations');
        removeFinalizer(memcached, FINALIZER);
        await this.client.update(memcached, { signal });
      }
      return {};
    }

    // The Deployment: created when it does not exist yet.
    let found: V1Deployment | undefined;
    try {
      found = await this.client.get(V1Deployment, { namespace: request.namespace, name: request.name }, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!found) {
      let deployment: V1Deployment;
      try {
        deployment = this.deploymentFor(memcached);
      } catch (err) {
        await this.updateCondition(
          memcached,
          { type: TYPE_AVAILABLE, status: 'False', reason: REASON_RECONCILING, message: `Failed to create Deployment for the custom resource (${request.name}): (${(err as Error).message})` },
          signal,
        );
        throw err;
      }
      logger.info({ namespace: request.namespace, name: request.name }, 'creating a new Deployment');
      await this.client.create(deployment, { signal });
      // Created: come back to check on it (its changes reconcile the Memcached too: see owns() below).
      return { requeueAfterSeconds: 60 };
    }

    // The Deployment runs spec.size replicas.
    const size = memcached.spec.size ?? 1;
    if (found.spec && found.spec.replicas !== size) {
      found.spec.replicas = size;
      try {
        await this.client.update(found, { signal });
      } catch (err) {
        // Read the Memcached again: it may have changed since, and its status is written below.
        const latest = await this.client.get(Memcached, request, { signal });
        await this.updateCondition(
          latest,
          { type: TYPE_AVAILABLE, status: 'False', reason: 'Resizing', message: `Failed to update the size for the custom resource (${request.name}): (${(err as Error).message})` },
          signal,
        );
        throw err;
      }
      // Resized: run again, so the status below describes the Deployment as it is now.
      return { requeue: true };
    }

    memcached.status ??= {};
    memcached.status.conditions ??= [];
    const changed = setStatusCondition(memcached.status.conditions, {
      type: TYPE_AVAILABLE,
      status: 'True',
      reason: REASON_RECONCILING,
      message: `Deployment for custom resource (${request.name}) with ${size} replicas created successfully`,
      observedGeneration: memcached.metadata?.generation,
    });
    if (changed) await this.client.status().update(memcached, { signal });
    return {};
  }

  /** Sets a condition (for the Memcached's current generation) and writes the status. */
  private async updateCondition(memcached: Memcached, condition: ConditionInput, signal: AbortSignal): Promise<void> {
    memcached.status ??= {};
    memcached.status.conditions ??= [];
    setStatusCondition(memcached.status.conditions, { observedGeneration: memcached.metadata?.generation, ...condition });
    await this.client.status().update(memcached, { signal });
  }

  /**
   * The operations to perform before the Memcached is deleted.
   * TODO(user): add the clean-up of what the Memcached does not own, such as backups or a
   * PersistentVolumeClaim. The Deployment needs none: it has the Memcached as its controller
   * owner, so Kubernetes deletes it (https://kubernetes.io/docs/tasks/administer-cluster/use-cascading-deletion/).
   */
  private doFinalizerOperations(memcached: Memcached): void {
    this.recorder.eventf(memcached, null, 'Warning', 'Deleting', 'DeleteCR', 'Custom Resource %s is being deleted from the namespace %s', memcached.metadata?.name, memcached.metadata?.namespace);
  }

  /** The Deployment of a Memcached: the image, spec.size replicas, the Memcached as its controller owner. */
  private deploymentFor(memcached: Memcached): V1Deployment {
    const image = imageFromEnv();
    const { name = '', namespace } = memcached.metadata ?? {};
    const labels = labelsFor(name, image);
    const deployment: V1Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace },
      spec: {
        replicas: memcached.spec.size ?? 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            // TODO(user): to pin the platforms your image supports, add a nodeAffinity on
            // kubernetes.io/arch and kubernetes.io/os here (`docker manifest inspect <image>` lists them).
            // More: https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity
            securityContext: {
              runAsNonRoot: true,
              seccompProfile: { type: 'RuntimeDefault' },
            },
            containers: [
              {
                image,
                name: CONTAINER_NAME,
                imagePullPolicy: 'IfNotPresent',
                // A restricted context for the container:
                // https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
                securityContext: {
                  runAsNonRoot: true,
                  runAsUser: 1001,
                  allowPrivilegeEscalation: false,
                  capabilities: { drop: ['ALL'] },
                },
                command: ['memcached', '--memory-limit=64', '-o', 'modern', '-v'],
                ports: [{ containerPort: memcached.spec.containerPort, name: 'memcached' }],
              },
            ],
          },
        },
      },
    };
    // The Memcached controls the Deployment: deleting it deletes the Deployment, and owns() below
    // reconciles it when the Deployment changes.
    // More: https://kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/
    setControllerReference(memcached, deployment);
    return deployment;
  }

  /**
   * Sets up the controller with the Manager: reconcile on every change to a Memcached, and to
   * the Deployments it owns (their owner reference names it).
   */
  setupWithManager(mgr: Manager): void {
    controllerManagedBy(mgr).for(Memcached).owns(V1Deployment).named('memcached').complete(this);
  }
}

/**
 * The image to deploy, from `MEMCACHED_IMAGE` (config/manager/manager.yaml sets it). Without it no
 * Deployment can be made, and retrying will not help: a TerminalError.
 */
function imageFromEnv(): string {
  const image = process.env[IMAGE_ENV];
  if (!image) throw new TerminalError(`unable to find the ${IMAGE_ENV} environment variable with the image`);
  return image;
}

/** `value` as a label value may hold it: at most 63 characters, starting and ending with a letter or digit. */
function labelValue(value: string): string {
  return value.slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

/**
 * The labels of the Deployment and its Pods (its selector: one Memcached's Pods only).
 * More: https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/
 */
function labelsFor(name: string, image: string): Record<string, string> {
  const labels: Record<string, string> = {
    'app.kubernetes.io/name': 'guestbook',
    'app.kubernetes.io/instance': labelValue(name),
    'app.kubernetes.io/managed-by': 'MemcachedController',
  };
  // The image's tag, if it has one (`memcached:1.6.26-alpine3.19`, not `registry:5000/memcached`).
  const tag = /:([\w][\w.-]*)$/.exec(image.split('@')[0].split('/').pop() ?? '')?.[1];
  if (tag) labels['app.kubernetes.io/version'] = labelValue(tag);
  return labels;
}
