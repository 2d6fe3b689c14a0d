// A TCP proxy a test puts between a client and an API process, to cut the network under it: every
// connection is piped to `target` (read at each new connection, so a test can move it to another
// process), and `refusing` closes new connections at once.
import { type AddressInfo, createServer, Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** The port new connections go to. */
  target: number;
  /** New connections are closed at once (the network is down). */
  refusing: boolean;
  /** Both ends of every connection piped now. */
  readonly sockets: ReadonlySet<Socket>;
  /** Destroys every connection piped now. */
  cut(): void;
  close(): void;
}

export async function startTcpProxy(target: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (proxy.refusing) return void client.destroy();
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    upstream.connect(proxy.target, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: TcpProxy = {
    port: (server.address() as AddressInfo).port,
    target,
    refusing: false,
    sockets,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () => {
      proxy.cut();
      server.close();
    },
  };
  return proxy;
}
