// Local HTTP servers for a test file: each listens on a free port of 127.0.0.1 and is closed
// (its connections too) after each test.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/** A `serve(handler)` that starts a server and resolves to its base URL. */
export function localServers(): (handler: http.RequestListener) => Promise<string> {
  const servers: http.Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      s.close();
    }
  });
  return async (handler) => {
    const server = http.createServer(handler);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}
