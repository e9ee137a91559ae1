// The resolved config as the --json output shows it: secret values replaced.
import { isUnset } from './resolve.mjs';

/**
 * A copy of config with every resolved secret and the deployer's scwToken replaced by "<redacted>".
 * @template {Record<string, any>} T
 * @param {T} config
 * @returns {T}
 */
export function redactSecrets(config) {
  const copy = structuredClone(config);
  const hide = (map) =>
    map &&
    Object.keys(map).forEach((k) => {
      if (!isUnset(map[k])) map[k] = '<redacted>';
    });
  hide(copy.provider?.secret);
  if (copy.provider?.scwToken && !isUnset(copy.provider.scwToken)) copy.provider.scwToken = '<redacted>';
  for (const fn of Object.values(copy.functions ?? {})) hide(fn?.secret);
  return copy;
}
