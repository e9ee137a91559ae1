// The one way a Scaleway SDK client is made, for the gateway, Audit Trail and the CLI's own APIs. It checks the key's
// shape first: the SDK's own check quotes a malformed key back in its message, while ours names the shape, never the
// value. It uses the API URL without credentials, our fetch (sdk-http-client.ts: node:http, timeout, deadline, error
// bodies scrubbed of the key) and our User-Agent. In the bundles the SDK builds the bundle's own Request class
// (scripts/build.mjs), which only that fetch reads.
import type { Client, Profile } from '@scaleway/sdk-client';
import { createAdvancedClient, withDefaultPageSize, withHTTPClient, withProfile, withUserAgentSuffix } from '@scaleway/sdk-client';
import { createScrubber, stripUrlCredentials, urlCredentials } from '../outbound/scrub';
import { assertApiKeyShape, GIVEN_KEY } from '../schemas/api-key';
import { type SdkHttpClientOptions, sdkHttpClient } from './sdk-http-client';

export interface SdkClientSettings {
  accessKey: string;
  secretKey: string;
  apiUrl?: string | undefined;
  requestTimeoutMs?: number | undefined;
  /** The profile's defaults the APIs fill a request with: project, organization, zone, region. */
  defaults: Pick<Profile, 'defaultProjectId' | 'defaultOrganizationId' | 'defaultZone' | 'defaultRegion'>;
  /** Items per page of a listing, when the SDK pages it for us. */
  pageSize?: number;
  /** Appended to the SDK's own User-Agent: ours (shared/outbound/user-agent.ts). */
  userAgent: string;
  /** The rest of what our fetch takes: the invocation's time left, call counting, a recorder. */
  http?: Omit<SdkHttpClientOptions, 'requestTimeoutMs' | 'scrubber'>;
}

/** A client of the SDKs, over our fetch; throws invalid_credentials before any request when the key is malformed. */
export function createSdkClient(settings: SdkClientSettings): Client {
  assertApiKeyShape(settings, GIVEN_KEY);
  const defaults = Object.fromEntries(Object.entries(settings.defaults).filter(([, value]) => value !== undefined && value !== ''));
  return createAdvancedClient(
    withProfile({
      accessKey: settings.accessKey,
      secretKey: settings.secretKey,
      ...defaults,
      ...(settings.apiUrl && { apiURL: stripUrlCredentials(settings.apiUrl).replace(/\/+$/, '') }),
    }),
    withHTTPClient(
      sdkHttpClient({
        requestTimeoutMs: settings.requestTimeoutMs ?? 10_000,
        scrubber: createScrubber([settings.secretKey, settings.accessKey, ...urlCredentials(settings.apiUrl)]),
        ...settings.http,
      }),
    ),
    ...(settings.pageSize === undefined ? [] : [withDefaultPageSize(settings.pageSize)]),
    withUserAgentSuffix(settings.userAgent),
  );
}
