/**
 * kOps' own messages (upup/pkg/fi/cloudup/scalewaytasks/lb_backend.go); users grep for them. kOps fills `%s`
 * with the LB's name (`LoadBalancer.Name`) in every message but `listing back-ends`, where its `Find` puts
 * the LB id (docs/kops-parity.md has the lines). The error gives the other identifier beside the message, as `lb`.
 */
export const kopsMessage = {
  listBackends: (lbId: string) => `listing back-ends for load-balancer ${lbId}`,
  updateBackend: (lbName: string) => `updating back-end for load-balancer ${lbName}`,
  setServers: (lbName: string) => `updating back-end server IPs for load-balancer ${lbName}`,
  createBackend: (lbName: string) => `creating back-end for load-balancer ${lbName}`,
  waitLb: (lbName: string) => `waiting for load-balancer ${lbName}`,
  listServers: () => `getting cluster servers for load-balancer's back-end`,
  serverIp: (server: string) => `getting IP of server ${server} for load-balancer's back-end`,
  // Ours, in the same voice, for steps kOps does not have. Writes name the LB like kOps' writes do;
  // finding it names what the target gives (its name, or its id when the target names it by id).
  findLb: (targetRef: string) => `finding load-balancer ${targetRef}`,
  updateHealthCheck: (lbName: string) => `updating back-end health check for load-balancer ${lbName}`,
  deleteBackend: (lbName: string) => `deleting duplicate back-end for load-balancer ${lbName}`,
  backendHealth: (lbName: string) => `reading back-end server health for load-balancer ${lbName}`,
  privateNetworks: (lbName: string) => `reading private networks of load-balancer ${lbName}`,
} as const;
