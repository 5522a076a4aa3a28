import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server listening on 127.0.0.1, and how to stop it. */
export interface LoopbackServer {
  url: string;
  port: number;
  /** Stops listening and ends the open connections too (a keep-alive one would hold the server open). */
  close(): Promise<void>;
}

/** Starts `server` listening on 127.0.0.1, on `port` or any free one. */
export async function listenOnLoopback(server: Server, port = 0): Promise<LoopbackServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
