// One deployed handler in a node of its own, loaded as a runtime might load it: argv[3] is `require` or `import`.
// It is then invoked once with the platform event in env HANDLER_EVENT. Nothing may leave the process: every
// outbound connection is refused here (and recorded), and every module resolved outside the handler's folder
// (env HANDLER_FOLDER, which holds no node_modules) is recorded. Prints one line,
// `HANDLER_LOAD_RESULT {exports, handle, codeCache, v8, answer?, connections, outside}`.
'use strict';
const Module = require('node:module');
const net = require('node:net');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const [handlerPath, how] = process.argv.slice(2);
const folder = process.env.HANDLER_FOLDER ?? path.dirname(handlerPath);
const connections = [];
const outside = [];

net.Socket.prototype.connect = function blockedConnect(...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const where = typeof first === 'object' && first !== null ? `${first.host ?? first.path}:${first.port ?? ''}` : `${args[1]}:${first}`;
  connections.push(where);
  process.nextTick(() => this.destroy(Object.assign(new Error(`network blocked by the test (${where})`), { code: 'ECONNREFUSED' })));
  return this;
};

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function recordOutside(request, ...rest) {
  const found = resolveFilename.call(this, request, ...rest);
  if (path.isAbsolute(found) && !found.startsWith(folder + path.sep)) outside.push(found);
  return found;
};

(async () => {
  const loaded = how === 'import' ? await import(pathToFileURL(handlerPath).href) : require(handlerPath);
  const result = {
    exports: Object.keys(loaded).sort(),
    handle: typeof loaded.handle,
    codeCache: loaded.codeCache,
    v8: process.versions.v8,
  };
  if (typeof loaded.handle === 'function') {
    const answer = await loaded.handle(JSON.parse(process.env.HANDLER_EVENT ?? '{}'), {
      functionName: 'handler-loading',
      memoryLimitInMb: 128,
    });
    result.answer = { status: answer.statusCode, body: JSON.parse(answer.body) };
  }
  process.stdout.write(`HANDLER_LOAD_RESULT ${JSON.stringify({ ...result, connections, outside })}\n`, () => process.exit(0));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
