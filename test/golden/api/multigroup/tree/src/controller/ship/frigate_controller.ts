import { type Client, controllerManagedBy, type ControllerManagerLike, isNotFound, type ReconcileContext, type Request, type Result } from 'kubeforge/runtime';
import { Rbac } from 'kubeforge/markers';
import { Frigate } from '../../api/ship/v1beta1/frigate_types.js';

/** FrigateReconciler reconciles a Frigate object. */
@Rbac({ groups: ['ship.example.com'], resources: ['frigates'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['ship.example.com'], resources: ['frigates/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: ['ship.example.com'], resources: ['frigates/finalizers'], verbs: ['update'] })
export class FrigateReconciler {
  constructor(readonly client: Client) {}

  /**
   * Part of the main Kubernetes reconciliation loop: moves the current state of the cluster
   * closer to the desired state described by the Frigate named in `request`.
   * TODO(user): compare the state specified by the Frigate object against the actual cluster
   * state, then perform operations to make the cluster state reflect the state the user asked for.
   *
   * Throwing requeues the request with back-off (a TerminalError does not); return
   * `{ requeueAfter: ms }` to come back later. More: kubeforge/runtime's Result and Reconciler.
   */
  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    let frigate: Frigate;
    try {
      frigate = await this.client.get(Frigate, request);
    } catch (err) {
      // Deleted after the event was queued: nothing to do (owned objects are garbage collected).
      if (isNotFound(err)) return {};
      throw err;
    }
    ctx.logger.debug({ generation: frigate.metadata?.generation }, 'reconciling Frigate');

    // TODO(user): your logic here

    return {};
  }

  /** Sets up the controller with the Manager: reconcile on every change to a Frigate. */
  setupWithManager(mgr: ControllerManagerLike): void {
    controllerManagedBy(mgr).for(Frigate).named('ship-frigate').complete(this);
  }
}
