/*
 * Which process answered a connection, read from Linux's /proc: the server side of a loopback TCP connection is the
 * socket whose remote port is the client's local port, and the process holding that socket's inode among its file
 * descriptors is the one serving it. Also the children of a process (a cluster primary's workers).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';

/** The pids of `pid`'s children. */
export function childPids(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  );
}

/** The inodes of the sockets `pid` holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    } catch {
      // The descriptor closed while the folder was read.
    }
  }
  return inodes;
}

/** The ports `pid` listens on (TCP sockets in state LISTEN among its descriptors). */
export function listeningPorts(pid: number): number[] {
  const inodes = socketInodes(pid);
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9] as string)) continue;
      ports.push(Number.parseInt(cols[1]?.split(':').at(-1) ?? '', 16));
    }
  }
  return ports;
}

/** The socket inode of each connection to `serverPort`, by the client's port. */
function serverSideInodes(serverPort: number): Map<number, string> {
  const byClientPort = new Map<number, string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const local = Number.parseInt(cols[1]?.split(':').at(-1) ?? '', 16);
      const remote = Number.parseInt(cols[2]?.split(':').at(-1) ?? '', 16);
      if (local === serverPort && cols[9] !== '0') byClientPort.set(remote, cols[9] as string);
    }
  }
  return byClientPort;
}

/** Which of `pids` serves each open connection to `serverPort` from `clientPorts` (undefined: none of them). */
export function servingPids(serverPort: number, clientPorts: number[], pids: number[]): Array<number | undefined> {
  const inodes = serverSideInodes(serverPort);
  const held = pids.map((pid) => [pid, socketInodes(pid)] as const);
  return clientPorts.map((port) => {
    const inode = inodes.get(port);
    return held.find(([, set]) => inode !== undefined && set.has(inode))?.[0];
  });
}

export interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
  /** The client's port of the connection that carried it. */
  clientPort: number;
}

/** A GET over `agent` (its connections stay open after the answer, so the serving process can be read). */
export function get(agent: Agent, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      const clientPort = res.socket.localPort ?? 0;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: res.headers['retry-after'],
          body,
          clientPort,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** An agent that opens up to `sockets` connections and keeps them open between requests. */
export const keptOpen = (sockets: number) => new Agent({ keepAlive: true, maxSockets: sockets });
