// Collects what the checks find: errors, and the ${env:...} names this environment leaves unset.

/**
 * @typedef {object} Report
 * @property {(message: string) => void} error    records one problem with serverless.yml
 * @property {(name: string, path: string) => void} unset  records an ${env:...} left unset, and where it is used
 */

/** @returns {{ report: Report, errors: string[], unset: Map<string, string[]> }} */
export function createReport() {
  /** @type {string[]} */
  const errors = [];
  /** @type {Map<string, string[]>} */
  const unset = new Map();
  const report = {
    error: (message) => errors.push(message),
    unset: (name, path) => unset.set(name, [...(unset.get(name) ?? []), path]),
  };
  return { report, errors, unset };
}
