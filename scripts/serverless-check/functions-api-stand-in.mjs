// A loopback stand-in for the Scaleway Functions API (functions/v1beta1), just enough for
// serverless-scaleway-functions 0.5 to run `serverless deploy` to the end with nothing sent to Scaleway:
// it records every request the plugin makes, and the archive it uploads.
//
// The plugin validates serverless.yml only inside `serverless deploy` (its before:deploy:deploy hook), and
// what it would create (namespace, functions, triggers) exists only as these requests: a dry-run deploy
// against this stand-in is how the real tool's own validation and output are checked offline.
//
// Answers follow the Terraform provider's recordings of this API (function-timeout.cassette.yaml: a namespace
// is created "pending" and read "ready"; a function is created "created"). Assumed, not recorded: the runtimes
// list (node20 and node22: docs/architecture.md, "Facts we rely on"), an empty project (no namespace, function or trigger yet),
// and the upload URL (a presigned S3 URL in reality; here a URL of this stand-in).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

/** Runtimes the stand-in lists as available (GET /runtimes); the plugin refuses any other. */
export const STAND_IN_RUNTIMES = ['node20', 'node22'];

/**
 * @typedef {object} RecordedRequest
 * @property {string} method
 * @property {string} path   path and query, without the API prefix
 * @property {any} body      parsed JSON, or undefined
 * @property {boolean} authenticated  whether X-Auth-Token carried the deployer's key
 */

/**
 * @typedef {object} StandIn
 * @property {string} apiUrl   what SCW_FUNCTION_URL must be for the plugin to talk to this stand-in
 * @property {RecordedRequest[]} requests  every API request, in arrival order
 * @property {Map<string, string>} functionIds  function name -> the id the stand-in gave it
 * @property {Map<string, Buffer>} uploads  function id -> archive bytes the plugin uploaded
 * @property {string[]} unexpected  requests this stand-in does not know (a plugin upgrade may add some)
 * @property {() => Promise<void>} close
 */

/**
 * @param {{ region: string, token: string }} options  the region the namespace lives in, the deployer key the plugin must send
 * @returns {Promise<StandIn>}
 */
export async function startFunctionsApiStandIn({ region, token }) {
  const requests = [];
  const uploads = new Map();
  const unexpected = [];
  const namespaces = new Map();
  const functions = new Map();
  const functionIds = new Map();
  const prefix = `/functions/v1beta1/regions/${region}/`;

  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const answer = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };

    if (req.method === 'PUT' && url.pathname.startsWith('/upload/')) {
      uploads.set(url.pathname.slice('/upload/'.length), raw);
      return answer(200, {});
    }
    if (!url.pathname.startsWith(prefix)) {
      unexpected.push(`${req.method} ${url.pathname}`);
      return answer(404, { message: `stand-in: no route for ${url.pathname}` });
    }
    const path = url.pathname.slice(prefix.length);
    let body;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
    } catch {
      return answer(400, { message: 'stand-in: the body is not JSON' });
    }
    requests.push({ method: req.method ?? '', path: `${path}${url.search}`, body, authenticated: req.headers['x-auth-token'] === token });
    const query = url.searchParams;
    const route = `${req.method} ${path.replace(/^(namespaces|functions)\/[^/]+/, '$1/:id')}`;

    switch (route) {
      case 'GET namespaces': {
        const found = [...namespaces.values()].filter((n) => n.name === query.get('name'));
        return answer(200, { namespaces: found, total_count: found.length });
      }
      case 'POST namespaces': {
        const namespace = { ...body, id: randomUUID(), region, status: 'pending', secret_environment_variables: [] };
        namespaces.set(namespace.id, namespace);
        return answer(200, namespace);
      }
      case 'GET namespaces/:id': {
        const namespace = namespaces.get(path.split('/')[1]);
        if (!namespace) return answer(404, { message: 'namespace not found' });
        namespace.status = 'ready';
        return answer(200, namespace);
      }
      case 'PATCH namespaces/:id':
        return answer(200, namespaces.get(path.split('/')[1]) ?? {});
      case 'GET namespaces/:id/functions': {
        const found = [...functions.values()].filter((f) => f.namespace_id === path.split('/')[1]);
        return answer(200, { functions: found, total_count: found.length });
      }
      case 'GET runtimes':
        return answer(200, {
          runtimes: STAND_IN_RUNTIMES.map((name) => ({ name, language: 'node', status: 'available', status_message: '' })),
          total_count: STAND_IN_RUNTIMES.length,
        });
      case 'POST functions': {
        const fn = {
          ...body,
          id: randomUUID(),
          region,
          status: 'created',
          domain_name: `${body?.name}.functions.fnc.${region}.scw.cloud`,
          secret_environment_variables: [],
        };
        functions.set(fn.id, fn);
        functionIds.set(fn.name, fn.id);
        return answer(200, fn);
      }
      case 'GET functions/:id/upload-url':
        return answer(200, { url: `http://127.0.0.1:${server.address().port}/upload/${path.split('/')[1]}`, headers: {} });
      case 'POST functions/:id/deploy':
      case 'GET functions/:id': {
        const fn = functions.get(path.split('/')[1]);
        if (!fn) return answer(404, { message: 'function not found' });
        fn.status = req.method === 'POST' ? 'pending' : 'ready';
        return answer(200, fn);
      }
      case 'GET domains':
        return answer(200, { domains: [], total_count: 0 });
      case 'GET crons':
        return answer(200, { crons: [], total_count: 0 });
      case 'GET triggers':
        return answer(200, { triggers: [], total_count: 0 });
      case 'POST crons':
      case 'POST triggers':
        return answer(200, { ...body, id: randomUUID(), status: 'creating' });
      default:
        unexpected.push(`${req.method} ${path}`);
        return answer(404, { message: `stand-in: no route for ${req.method} ${path}` });
    }
  });

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    apiUrl: `http://127.0.0.1:${server.address().port}${prefix.slice(0, -1)}`,
    requests,
    functionIds,
    uploads,
    unexpected,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
