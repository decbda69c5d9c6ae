// A static server for the built page (dist/site), used by `npm start` and by
// the browser tests. Every response carries the strict Content-Security-Policy
// the page must work under (no 'unsafe-eval', no inline scripts). Text
// assets and the wasm (HTML, JS, CSS, JSON, SVG, wasm) are gzipped when the client accepts it,
// as any production server does, and every file has an ETag, so a second
// request for the same file (the Worker's copy of the loader) is a 304.
//   node tools/serve.mjs [--port N]     serve until Ctrl-C, print the URL
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const CSP = "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; object-src 'none'; base-uri 'self'";

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.safetensors': 'application/octet-stream',
};

const COMPRESS = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.wasm']);
/** gzipped bytes by path + ETag (files do not change while served, except on rebuild). */
const gzCache = new Map();

/** Serves `dir` on 127.0.0.1:`port` (0 = any free port); resolves to { server, url }. */
export function serve(dir, port = 0) {
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(dir, path));
    if (!file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const st = statSync(file);
    const etag = `"${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}"`;
    const headers = {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': CSP,
      'Cache-Control': 'no-cache',
      'ETag': etag,
      'Vary': 'Accept-Encoding',
    };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers).end();
      return;
    }
    if (COMPRESS.has(extname(file)) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      const key = `${file}|${etag}`;
      let gz = gzCache.get(key);
      if (!gz) {
        gz = gzipSync(readFileSync(file), { level: 9 });
        gzCache.set(key, gz);
      }
      res.writeHead(200, { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': gz.length }).end(gz);
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': st.size });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` }));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('../dist/site', import.meta.url));
  if (!existsSync(join(root, 'index.html'))) {
    console.error('dist/site/index.html is missing: run `npm run build:site` first');
    process.exit(1);
  }
  const i = process.argv.indexOf('--port');
  let port = i > 0 ? Number(process.argv[i + 1]) : Number(process.env.PORT ?? 5173);
  for (;;) {
    try {
      const { url } = await serve(root, port);
      console.log(`posenc page: ${url}  (strict CSP; Ctrl-C to stop)`);
      break;
    } catch (e) {
      if (e.code !== 'EADDRINUSE' || port === 0) throw e;
      port += 1;
    }
  }
}
