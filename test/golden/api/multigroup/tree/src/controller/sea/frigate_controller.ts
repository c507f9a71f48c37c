import { type Client, controllerManagedBy, type EventRecorder, isNotFound, type Manager, type ReconcileContext, type Request, type Result, setStatusCondition } from 'kubeforge/runtime';
import { Rbac } from 'kubeforge/markers';
import { Frigate } from '../../api/sea/v1/frigate_types.js';

/** FrigateReconciler reconciles a Frigate object. */
@Rbac({ groups: ['sea.example.com'], resources: ['frigates'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['sea.example.com'], resources: ['frigates/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: ['sea.example.com'], resources: ['frigates/finalizers'], verbs: ['update'] })
@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })
export class FrigateReconciler {
  /**
   * @param client the manager's client (`mgr.getClient()`): reads from its cache, writes to the API server
   * @param recorder records events.k8s.io Events (`mgr.getEventRecorder('sea-frigate-controller')`;
   *   the `@Rbac` marker above for events.k8s.io grants it)
   */
  constructor(
    readonly client: Client,
    readonly recorder: EventRecorder,
  ) {}

  /**
   * Part of the main Kubernetes reconciliation loop: moves the current state of the cluster
   * closer to the desired state described by the Frigate named in `request`.
   * TODO(user): compare the state specified by the Frigate object against the actual cluster
   * state, then perform operations to make the cluster state reflect the state the user asked for.
   *
   * Throwing requeues the request with back-off (a TerminalError does not); return
   * `{ requeueAfterSeconds: 60 }` to come back later. More: kubeforge/runtime's Result and Reconciler.
   */
  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    let frigate: Frigate;
    try {
      frigate = await this.client.get(Frigate, request, { signal: ctx.signal });
    } catch (err) {
      // Deleted after the event was queued: nothing to do (owned objects are garbage collected).
      if (isNotFound(err)) return {};
      throw err;
    }
    ctx.logger.debug({ generation: frigate.metadata?.generation }, 'reconciling Frigate');

    // TODO(user): your logic here

    // Report what was observed: the Available condition (with the generation it describes) and,
    // when it changes, an event. Replace it with the conditions of your own logic.
    frigate.status ??= {};
    frigate.status.conditions ??= [];
    const generation = frigate.metadata?.generation;
    const changed = setStatusCondition(frigate.status.conditions, {
      type: 'Available',
      status: 'True',
      reason: 'Reconciled',
      message: `generation ${generation} reconciled`,
      observedGeneration: generation,
    });
    if (changed) {
      // Refreshes frigate from the answer; a 409 Conflict (a newer version exists) requeues.
      await this.client.status().update(frigate, { signal: ctx.signal });
      this.recorder.eventf(frigate, null, 'Normal', 'Reconciled', 'Reconcile', 'generation %d reconciled', generation);
    }

    return {};
  }

  /**
   * Sets up the controller with the Manager: reconcile on every change to a Frigate. Add
   * `.owns(Type)` for the objects it creates with an owner reference to the Frigate (a
   * Deployment, a ConfigMap...): their changes then reconcile their owner.
   */
  setupWithManager(mgr: Manager): void {
    controllerManagedBy(mgr).for(Frigate).named('sea-frigate').complete(this);
  }
}
