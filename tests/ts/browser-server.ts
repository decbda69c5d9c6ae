/**
 * The server every engine's package test loads from: the built package
 * (dist/) and tests/browser/ on localhost, each response under the strict
 * Content-Security-Policy an app may set (no eval, no inline script).
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
const TYPES: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
};

export interface PackageServer { base: string; close(): Promise<void> }

export async function servePackage(): Promise<PackageServer> {
  const server: Server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (!path.startsWith('/dist/') && !path.startsWith('/tests/browser/')) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(join(root, path));
      res.writeHead(200, { 'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream', 'Content-Security-Policy': CSP });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
