/**
 * Bundled in place of @aws-sdk/credential-provider-node (scripts/build.mjs). The functions and the CLI always
 * give the SQS client static keys (SQS_ACCESS_KEY_ID, SQS_SECRET_ACCESS_KEY), so the AWS default chain (env,
 * INI files, SSO, process, web identity, IMDS: STS and SSO clients with it) is never consulted.
 */
const missing = async (): Promise<never> => {
  throw new Error(
    'SQS credentials are missing: set SQS_ACCESS_KEY_ID and SQS_SECRET_ACCESS_KEY (the bundles carry no AWS default credential chain)',
  );
};

export const defaultProvider = () => missing;
export const credentialsWillNeedRefresh = () => false;
export const credentialsTreatedAsExpired = () => false;
