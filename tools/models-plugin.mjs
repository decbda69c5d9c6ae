// A Vite plugin that gives the page the shipped tiny models at `models/<name>.safetensors`
// (the page fetches them by URL, main.ts's modelBase): served from the posenc-models package
// (web/models, an npm workspace) by the dev and preview servers, and copied into the build.
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The folder of the installed posenc-models package (node_modules/posenc-models -> web/models). */
export function modelsDir(from) {
  return dirname(createRequire(join(from, 'package.json')).resolve('posenc-models/package.json'));
}

/** @param {string} root the repository (where node_modules is) */
export function shippedModels(root) {
  const dir = modelsDir(root);
  const names = () => readdirSync(dir).filter((f) => f.endsWith('.safetensors'));
  /** Serves /…/models/<name>.safetensors from the package. */
  const middleware = (req, res, next) => {
    const m = /\/models\/([\w-]+\.safetensors)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (!m || !names().includes(m[1])) return next();
    const file = join(dir, m[1]);
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': statSync(file).size });
    createReadStream(file).pipe(res);
  };
  return {
    name: 'posenc-models',
    configureServer(server) { server.middlewares.use(middleware); },
    configurePreviewServer(server) { server.middlewares.use(middleware); },
    generateBundle() {
      for (const f of names()) this.emitFile({ type: 'asset', fileName: `models/${f}`, source: readFileSync(join(dir, f)) });
    },
  };
}
