// A function bundle in a process of its own, as the platform loads it. Records every touch of the fetch
// API's globals (Node's are undici: the bundles must never load it), requires the handler given in argv[2],
// answers the events of env BUNDLE_EVENTS (a JSON array of platform events) one after another, and sends
// { codeCache, answers, touched } over IPC. Before each event after the first, it waits for a 'next' message
// (so the test can change the world between events).
'use strict';
const touched = [];
for (const name of ['fetch', 'Request', 'Response', 'Headers', 'FormData']) {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);
  if (!descriptor) continue;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    enumerable: descriptor.enumerable,
    get() {
      touched.push(name);
      return descriptor.get ? descriptor.get.call(globalThis) : descriptor.value;
    },
  });
}

const { handle, codeCache } = require(process.argv[2]);
const events = JSON.parse(process.env.BUNDLE_EVENTS ?? '[]');
const next = () => new Promise((resolve) => process.once('message', resolve));

(async () => {
  const answers = [];
  for (const [i, event] of events.entries()) {
    if (i > 0) {
      process.send({ kind: 'answered', index: i - 1 });
      await next();
    }
    const answer = await handle(event, { functionName: 'test' });
    answers.push({ status: answer.statusCode, body: JSON.parse(answer.body) });
  }
  process.send({ kind: 'done', codeCache, answers, touched: [...new Set(touched)] }, () => process.exit(0));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
