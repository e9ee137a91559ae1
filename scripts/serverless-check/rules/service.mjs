// Which functions serverless.yml deploys: exactly those the build makes bundles for.
import { FUNCTIONS } from '../env-catalog.mjs';

/** @typedef {import('../report.mjs').Report} Report */

/** Exactly the functions there are bundles for. */
export function checkFunctionList(functions, report) {
  const names = Object.keys(functions);
  const missing = FUNCTIONS.filter((n) => !names.includes(n));
  const extra = names.filter((n) => !FUNCTIONS.includes(n));
  if (missing.length > 0) report.error(`functions: missing ${missing.join(', ')}`);
  if (extra.length > 0) report.error(`functions: unknown ${extra.join(', ')} (there are bundles for ${FUNCTIONS.join(', ')} only)`);
}
