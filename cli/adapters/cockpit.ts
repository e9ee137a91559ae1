// The Cockpit control plane, with the official SDK (regional API): where the functions' logs are (the logs data
// source Scaleway made, and its URL), where the project's Grafana is, and a token for the data source's ruler,
// made for one run and deleted after it. Only `lbsync cockpit install` imports it.
import { Cockpitv1 } from '@scaleway/sdk-cockpit';
import { userAgentFor } from '../../shared/outbound/user-agent';
import { callGateway } from '../../shared/adapters/api-failure';
import { createSdkClient } from '../../shared/adapters/sdk-client';

type Region = `${string}-${string}`;

export interface CockpitSettings {
  accessKey: string;
  secretKey: string;
  projectId: string;
  region: string;
  apiUrl?: string;
  requestTimeoutMs?: number;
  /** This deployment's owner id, in the User-Agent. */
  ownerId?: string;
}

export interface LogsDataSource {
  id: string;
  name: string;
  url: string;
}

export interface CockpitGateway {
  /** The project's logs data sources that Scaleway made (where the functions' logs land), re-checked on our side. */
  scalewayLogsDataSources(): Promise<LogsDataSource[]>;
  /** The project's Grafana (its URL). */
  grafanaUrl(): Promise<string>;
  /** A token that may read and write the logs data sources' alert rules (scope full_access_logs_rules). */
  createRulesToken(name: string): Promise<{ id: string; secretKey: string }>;
  deleteToken(id: string): Promise<void>;
}

/** Every failure as an LbSyncError with its code, the step named. */
function step<T>(what: string, run: () => Promise<T>): Promise<T> {
  return callGateway({ message: what, notFound: 'unknown_api_error', run });
}

export function createCockpitGateway(settings: CockpitSettings): CockpitGateway {
  const client = createSdkClient({
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    apiUrl: settings.apiUrl,
    requestTimeoutMs: settings.requestTimeoutMs,
    defaults: { defaultProjectId: settings.projectId, defaultRegion: settings.region as Region },
    userAgent: userAgentFor(undefined, settings.ownerId),
  });
  const regional = new Cockpitv1.RegionalAPI(client);
  const global = new Cockpitv1.GlobalAPI(client);
  const region = settings.region as Region;
  const projectId = settings.projectId;

  return {
    scalewayLogsDataSources: () =>
      step(`listing Cockpit's logs data sources in ${region}`, async () => {
        const listed = await regional.listDataSources({ region, projectId, types: ['logs'], origin: 'scaleway' });
        // The filters are the API's: the answer is checked against them again.
        return listed.dataSources
          .filter((d) => d.type === 'logs' && d.origin === 'scaleway' && d.projectId === projectId && d.url)
          .map((d) => ({ id: d.id, name: d.name, url: d.url }));
      }),
    grafanaUrl: () =>
      step("getting the project's Cockpit Grafana", async () => {
        const grafana = await global.getGrafana({ projectId });
        return grafana.grafanaUrl;
      }),
    createRulesToken: (name) =>
      step(`creating a Cockpit token in ${region}`, async () => {
        const token = await regional.createToken({ region, projectId, name, tokenScopes: ['full_access_logs_rules'] });
        if (!token.secretKey) throw new Error('the new token came back without its secret key');
        return { id: token.id, secretKey: token.secretKey };
      }),
    deleteToken: (id) => step(`deleting the Cockpit token ${id}`, () => regional.deleteToken({ region, tokenId: id })),
  };
}
