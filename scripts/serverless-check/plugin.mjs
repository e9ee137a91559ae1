// serverless-scaleway-functions' own offline validation, run when the plugin is installed.
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

/** @typedef {import('./report.mjs').Report} Report */

/**
 * Runs the plugin's validate module over the resolved config; its findings go to report.
 * @param {Record<string, any>} config  the resolved serverless.yml
 * @param {string} pluginDir  a directory whose node_modules holds serverless-scaleway-functions
 * @param {string} root  the directory handler paths are relative to
 * @param {Report} report
 * @returns {Promise<string>} what ran, for the "plugin:" line
 */
export async function runPluginValidation(config, pluginDir, root, report) {
  const require = createRequire(join(resolve(pluginDir), 'noop.js'));
  let validate;
  let version;
  try {
    validate = require('serverless-scaleway-functions/shared/validate');
    version = require('serverless-scaleway-functions/package.json').version;
  } catch {
    return 'not installed (equivalent checks only)';
  }
  const provider = config.provider ?? {};
  const context = {
    ...validate,
    runtime: provider.runtime,
    provider: { scwRegion: provider.scwRegion ?? 'fr-par' },
    serverless: { service: { provider, functions: structuredClone(config.functions ?? {}), custom: config.custom } },
  };
  const cwd = process.cwd();
  process.chdir(root); // the plugin looks for handler files relative to the working directory
  try {
    context.validateRegion();
    const errors = [...(await context.validateApplications([])), ...context.validateEnv(provider.env)];
    for (const error of errors) report.error(`serverless-scaleway-functions ${version}: ${error}`);
  } catch (error) {
    report.error(`serverless-scaleway-functions ${version}: ${error.message}`);
  } finally {
    process.chdir(cwd);
  }
  return `serverless-scaleway-functions ${version} validate module ran`;
}
