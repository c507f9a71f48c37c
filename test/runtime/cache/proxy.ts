// A TCP proxy in front of the test API server, so tests can cut watch connections and refuse new
// ones while objects change (TLS passes through untouched: the certificate names 127.0.0.1).
import net from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { must } from '../../helpers/must.js';

export class CuttableProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** Each connection's pair: the client side and the upstream side. */
  private readonly pairs: [net.Socket, net.Socket][] = [];
  private refusing = false;
  port = 0;
  /** Connections accepted so far. */
  connections = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      if (this.refusing) {
        client.destroy();
        return;
      }
      this.connections++;
      const upstream = net.connect(this.target.port, this.target.host);
      this.sockets.add(client);
      this.sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
      this.pairs.push([client, upstream]);
    });
    await new Promise<void>((r) => must(this.server, 'this.server').listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Cuts every open connection (like a network blip or an API server crash). */
  cut(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.pairs.length = 0;
  }

  /** Cuts everything and refuses new connections until `resume()`. */
  pause(): void {
    this.refusing = true;
    this.cut();
  }

  /**
   * A silent network: the open connections stay open but nothing the server sends reaches the
   * client any more (a watch that goes quiet without closing), and new connections are refused.
   */
  freeze(): void {
    this.refusing = true;
    for (const [client, upstream] of this.pairs) {
      upstream.unpipe(client);
      upstream.pause();
    }
  }

  resume(): void {
    this.refusing = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** A copy of `kc` whose server goes through this proxy. */
  kubeConfig(kc: KubeConfig): KubeConfig {
    const cluster = must(kc.getCurrentCluster(), 'kc.getCurrentCluster()');
    const url = new URL(cluster.server);
    const out = new KubeConfig();
    out.loadFromOptions({
      clusters: [{ ...cluster, server: `${url.protocol}//127.0.0.1:${this.port}` }],
      users: kc.getUsers(),
      contexts: kc.getContexts(),
      currentContext: kc.getCurrentContext(),
    });
    return out;
  }

  static for(kc: KubeConfig): CuttableProxy {
    const url = new URL(must(kc.getCurrentCluster(), 'kc.getCurrentCluster()').server);
    return new CuttableProxy({ host: url.hostname, port: Number(url.port) });
  }
}
