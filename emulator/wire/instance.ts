/** Instance API server JSON, with the keys of the recorded GET /servers/{id} answers. */
import { routedIpv6Gateway } from '../ipv6';
import type { ServerPublicIp, ServerRecord } from '../records';
import type { EmulatorState } from '../state';

const IMAGE_ORGANIZATION = '51b656e3-4865-41e8-adbc-0c45bdd780db';

function renderServerIp(ip: ServerPublicIp, server: ServerRecord): Record<string, unknown> {
  const v6 = ip.family === 'inet6';
  return {
    id: ip.id,
    address: ip.address,
    gateway: v6 ? routedIpv6Gateway(server.macAddress) : '62.210.0.1',
    netmask: v6 ? '64' : '32',
    family: ip.family,
    dynamic: false,
    provisioning_mode: v6 ? 'slaac' : 'dhcp',
    tags: [],
    ipam_id: ip.id,
    state: 'attached',
  };
}

/** State details and node placement as the recordings show them for each state. */
const STATE_DETAILS: Record<string, string> = {
  running: 'booting kernel',
  starting: 'allocating node',
  stopping: 'terminating',
  stopped: '',
};

function isPlaced(state: string): boolean {
  return state !== 'stopped' && state !== 'starting';
}

function allowedActions(state: string): string[] {
  if (state === 'running') return ['poweroff', 'terminate', 'reboot', 'stop_in_place', 'backup'];
  if (state === 'stopped') return ['poweron', 'backup'];
  return ['stop_in_place', 'backup'];
}

/** The hostname the API derives from the name: lower case, `_` as `-` (instance-private-nic-with-ipam). */
function hostnameOf(name: string): string {
  return name.toLowerCase().replaceAll('_', '-');
}

/** The Instance API writes dates as "2026-07-30T12:55:02.564713+00:00". */
function instanceDate(iso: string): string {
  return iso.endsWith('Z') ? `${iso.slice(0, -1)}+00:00` : iso;
}

export function renderServer(state: EmulatorState, server: ServerRecord): Record<string, unknown> {
  const firstV4 = server.publicIps.find((ip) => ip.family === 'inet') ?? server.publicIps[0];
  const volumeId = server.id.replace(/^.{8}/, '0b1ec0de');
  return {
    id: server.id,
    name: server.name,
    arch: 'x86_64',
    commercial_type: server.commercialType,
    boot_type: 'local',
    organization: server.organizationId,
    project: server.projectId,
    hostname: hostnameOf(server.name),
    image: {
      id: '4481c662-2357-432f-b0fd-dd6470c08c49',
      name: 'Ubuntu 22.04 Jammy Jellyfish',
      organization: IMAGE_ORGANIZATION,
      project: IMAGE_ORGANIZATION,
      root_volume: { volume_type: 'sbs_snapshot', id: 'c75ef419-9a29-4fda-bd73-5de42af425b0', size: 0, name: '' },
      extra_volumes: {},
      public: true,
      arch: 'x86_64',
      creation_date: '2026-05-12T15:06:26.845576+00:00',
      modification_date: '2026-05-12T15:06:26.845576+00:00',
      default_bootscript: null,
      from_server: '',
      state: 'available',
      tags: [],
      zone: server.zone,
    },
    volumes: { '0': { boot: false, volume_type: 'sbs_volume', id: volumeId, state: 'available', zone: server.zone } },
    tags: [...server.tags],
    state: server.state,
    protected: false,
    state_detail: STATE_DETAILS[server.state] ?? '',
    public_ip: firstV4 ? renderServerIp(firstV4, server) : null,
    public_ips: server.publicIps.map((ip) => renderServerIp(ip, server)),
    mac_address: server.macAddress,
    routed_ip_enabled: true,
    ipv6: null,
    extra_networks: [],
    dynamic_ip_required: false,
    enable_ipv6: false,
    private_ip: null,
    creation_date: instanceDate(server.createdAt),
    modification_date: instanceDate(server.modifiedAt),
    bootscript: null,
    security_group: { id: '5881315f-2400-43a0-ac75-08adf6cb8c12', name: 'Default security group' },
    location: isPlaced(server.state)
      ? { zone_id: server.zone, platform_id: '14', cluster_id: '60', hypervisor_id: '301', node_id: '141' }
      : null,
    maintenances: [],
    allowed_actions: allowedActions(server.state),
    placement_group: null,
    private_nics: server.privateNics.map((nic) => ({
      id: nic.id,
      private_network_id: nic.privateNetworkId,
      server_id: server.id,
      mac_address: nic.macAddress,
      state: 'available',
      creation_date: instanceDate(nic.createdAt),
      modification_date: instanceDate(nic.createdAt),
      zone: server.zone,
      tags: [],
      ipam_ip_ids: state.ipamIdsOfNic(nic.id),
    })),
    zone: server.zone,
    filesystems: [],
    end_of_service: false,
    dns: `${server.id}.pub.instances.scw.cloud`,
  };
}
