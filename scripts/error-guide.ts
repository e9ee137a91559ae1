// What docs/troubleshooting.md says of each error and warning code beyond its hint: a message as the tool prints
// it, and what to check. `npm run docs` writes the page from this and the catalogs (class, hint), so a code cannot
// ship without its entry (the type below) nor the page drift from them (test/unit/docs.test.ts). Not bundled into
// the functions: only the page generator and the tests import it.
import { kopsMessage } from '../shared/errors/kops-messages';
import type { CommandErrorCode, ErrorCode, WarningCode } from '../shared/errors/lbsync-error';

export interface GuideEntry {
  /** Messages as the tool prints them; `<...>` stands for a value. kOps' words come from kopsMessage, as the code's do. */
  examples: string[];
  /** What it means and what to do (Markdown). */
  doc: string;
}

/** The LB every example names, as kOps names it: api.<cluster>. */
const LB = 'api.prod.k8s.local';

export const ERROR_GUIDE = {
  api_transient_state: {
    examples: [`${kopsMessage.setServers(LB)}: resource lb with ID <id> is in a transient state: pending`],
    doc: 'The LB was applying another change (409). Retried automatically; nothing to do unless it ends in `retries_exhausted`, in which case look for something changing the LB in a loop (another controller, Terraform, kOps).',
  },
  lb_transient_state: {
    examples: [`${kopsMessage.waitLb(LB)}: load-balancer is migrating`],
    doc: 'The LB is being created, migrated or deleted. No write is made until it is `ready`: one invocation polls it for up to `LBSYNC_TRANSIENT_WAIT_MS`, then the event is retried with backoff.',
  },
  rate_limited: {
    examples: [`${kopsMessage.setServers(LB)}: too many requests (429 from the API gateway, no reset time given)`],
    doc: "Scaleway's gateway answers an empty 429 with no reset time; the retry waits at least 1 s (or the reset time, when an answer gives one) plus backoff. If it recurs, sweep less often or spread targets over several API keys.",
  },
  api_unavailable: {
    examples: [`${kopsMessage.listBackends('<LB id>')}: http error 503: <body>`],
    doc: 'The Scaleway API failed (5xx). Retried with backoff; check https://status.scaleway.com.',
  },
  network_error: {
    examples: [
      `${kopsMessage.listBackends('<LB id>')}: request timed out after 10000 ms on GET https://api.scaleway.com/lb/v1/zones/fr-par-1/lbs/<LB id>/backends`,
      `${kopsMessage.findLb(LB)}: connection refused (ECONNREFUSED) on GET http://127.0.0.1:1/lb/v1/zones/fr-par-1/lbs`,
    ],
    doc: "The request got no answer within `LBSYNC_REQUEST_TIMEOUT_MS`, or none at all: the message names the URL (without credentials or query) and the cause — `connection refused (ECONNREFUSED)`, `host not found in DNS (ENOTFOUND)`, `TLS failure: ...`, `connection closed by the server (socket hang up)`. Check `SCW_API_URL` (unset it for the real API), DNS, proxies and the function's outbound network. Retried with backoff.",
  },
  apply_timeout: {
    examples: [`${kopsMessage.waitLb(LB)}: not ready after 15000 ms (status ready, instances pending)`],
    doc: 'The write was accepted, the LB did not report it applied in time. The retry re-reads and usually finds nothing to do; raise `LBSYNC_WAIT_BUDGET_MS` if it recurs.',
  },
  untrusted_server_ips: {
    examples: ['event serverIps 6.6.6.6 not returned by the discovery of target prod.k8s.local (it found 51.15.1.2, 51.15.1.3); <why>'],
    doc: "The event asserted addresses that the target's own discovery (servers carrying all its tags) does not return. They were not written; the pool stays the discovered one. Retried with backoff, since a server that just booted may not be listed (or tagged) yet; dead-lettered with this reason when it never shows up. Check who sent the event (`source`, the event id) and the tags of the server that should be there.",
  },
  no_servers: {
    examples: [`${kopsMessage.listServers()}: no server with an address matches tags <tags>; the pool is left as it is`],
    doc: "No server carries all of `servers.tags`, or none has an address of the chosen `ipSource`. The pool is not emptied. Check the tags (`scw instance server list tags.0=...`), the servers' state, and `ipSource`; set `allowEmptyPool: true` only if an empty pool is really wanted.",
  },
  removal_deferred: {
    examples: [
      `${kopsMessage.setServers(LB)}: backend lb-backend-https keeps 51.15.1.2 for now: make-before-break: waiting until 51.15.1.9 passes the LB's health check`,
    ],
    doc: "A rolling update in progress, not a fault: the new member was added, and the member it replaces still passes its health check, so it leaves only once every desired member passes its own (at most `maxUnavailable` per write, never the last passing one). Retried with backoff; each step is logged (`rollout lb-backend-https: keep ... for now: <why>`), `lbsync plan` shows the stages to come. If it ends as `retries_exhausted`, a desired member keeps failing its check (its API server is not up, a firewall, a wrong health-check port): `lbsync doctor` prints each member's health. Nothing is lost while it waits: the pool only holds more members than wanted, and the next sweep carries on.",
  },
  discovery_suspect: {
    examples: [
      `${kopsMessage.setServers(LB)}: backend lb-backend-https keeps 51.15.1.2, 51.15.1.3 for now: discovery found 1 of the 3 members still serving (fewer than half): <why>`,
    ],
    doc: "The servers carrying the target's tags are fewer than half of the pool members that still serve traffic: lost role tags, a half-finished listing and a real shrink look the same, so members are added but none that serves is removed. Check the servers' tags (`scw instance server list tags.0=...`). If the shrink is intended, set `trustPartialDiscovery: true` on the target (it then goes `maxUnavailable` members per write), or remove the addresses by hand.",
  },
  api_route_not_found: {
    examples: [
      `${kopsMessage.findLb(LB)}: http error 404 on GET http://proxy.example/lb/v1/zones/fr-par-1/lbs with a text/html body, not the Scaleway API's not-found answer: this URL does not lead to the API`,
      `${kopsMessage.findLb(LB)}: http error 405 on GET http://proxy.example/lb/v1/zones/fr-par-1/lbs with an application/xml body, method not allowed, which the Scaleway API never answers to a call of its SDK: this URL does not lead to the API`,
    ],
    doc: 'The API\'s own 404s carry a JSON message ending in "not found" (`{"message":"lbs not Found"}`, `{"type":"not_found","message":"resource is not found",...}`), and it never answers 405 to a call its SDK makes; anything else means the request went somewhere else: check `SCW_API_URL` (unset it for `https://api.scaleway.com`) and any proxy on the way. Dead-lettered as permanent: fix the URL, then redrive.',
  },
  backend_not_found: {
    examples: [`${kopsMessage.updateBackend(LB)}: http error 404: backend not Found`],
    doc: 'The backend vanished between read and write (deleted by hand or by another tool); the next attempt creates it.',
  },
  lb_not_found: {
    examples: [`${kopsMessage.findLb(LB)}: no load-balancer named "${LB}" in fr-par-1`],
    doc: "Check `loadBalancer` and `zone` in the target (for a target with several LBs, the `loadBalancers` entry the error's `lb` names, and its own `zone`); kOps names the LB `api.<cluster>`. Dead-lettered: fix the target, then redrive. A target with several LBs still reconciles its other LBs on every event (reconcile.md, Several LBs for one target).",
  },
  lb_ambiguous: {
    examples: [],
    doc: 'Several LBs carry exactly this name in the zone. Name the one to manage by id: `"loadBalancer": {"id": "..."}`.',
  },
  lb_answer_mismatch: {
    examples: [
      `${kopsMessage.findLb('11111111-1111-4111-8111-111111111111')}: the API answered load-balancer api.other.k8s.local (22222222-2222-4222-8222-222222222222), which is 22222222-2222-4222-8222-222222222222, not 11111111-1111-4111-8111-111111111111: nothing is written to it`,
      `${kopsMessage.listBackends('11111111-1111-4111-8111-111111111111')}: the API answered backend lb-backend-https (<id>), which belongs to load-balancer 22222222-2222-4222-8222-222222222222, not 11111111-1111-4111-8111-111111111111: the answer is not used, and nothing is written from it`,
    ],
    doc: "Every answer that picks where traffic goes is checked again on our side: GetLb must answer the id it was asked for, every LB an answer names must be in the target's zone (an LB of another zone carrying the name is left out and named in a `discovery_filter_mismatch` warning), and every listing of the LB's own resources (its backends — the listing a reconcile reads and the one it re-reads after creating a backend —, its frontends, its private-network attachments) must name no other LB. An answer that fails this is not used and nothing is written from it: taking the rest of such a listing would have the reconcile create a backend the frontend does not use, then delete it again, on every event. The real API is not known to answer so: suspect `SCW_API_URL` or a proxy first. Dead-lettered as permanent: once the cause is found, redrive. `lbsync doctor --record FILE` records the exchange for a bug report.",
  },
  private_network_attaching: {
    examples: [
      `${kopsMessage.privateNetworks(LB)}: its attachment to private network <network id> is pending, not ready: nothing is written until it is`,
    ],
    doc: "An `ipam-private` target's pool holds its servers' addresses on one private network, which the LB reaches only through its attachment to that network. The attachment exists but is not `ready` yet (attaching took about 30 s in the one recording, `lb-with-private-networks-ipam-ids`): nothing is written, the event is retried with backoff. If it lasts, look at the LB's private networks in the console (`scw lb private-network list lb-id=<id>`).",
  },
  private_network_not_attached: {
    examples: [
      `${kopsMessage.privateNetworks(LB)}: it is not attached to private network <network id> (it is attached to none), so it cannot reach the servers' addresses there: nothing is written`,
    ],
    doc: "An `ipam-private` target takes each server's address on one private network (`servers.privateNetworkId`, or the one all its servers' NICs are on); the LB can send traffic there only when it is attached to that network. Without the attachment (or with one in `error`), those addresses would never pass the LB's health check and make-before-break would wait for them for ever, so nothing is written and the event is dead-lettered. Attach the LB to the network (`scw lb private-network attach <lb-id> private-network-id=<network id>`, or the console), or name in `servers.privateNetworkId` the network it is attached to; then `lbsync dlq redrive`. `lbsync plan`, `lbsync status` and `lbsync doctor` (line `target:<name>:private-network`) show it before any event does.",
  },
  private_network_ambiguous: {
    examples: [
      `${kopsMessage.serverIp('cp-0,cp-1')}: the servers have private NICs on 2 private networks, <network id> (cp-0, cp-1); <network id> (cp-1), and the target does not name one (servers.privateNetworkId)`,
    ],
    doc: 'An `ipam-private` target whose servers have NICs on more than one private network must say which one the LB reaches them on: set `servers.privateNetworkId` to it (the message lists each network with its servers). Only the address of the NIC on that network is used, and the LB must be attached to it. Dead-lettered: fix the target, then redrive.',
  },
  lb_not_ready: {
    examples: [`${kopsMessage.waitLb(LB)}: load-balancer is locked`],
    doc: 'The LB is `locked`, `stopped` or in `error`. Needs a human: look at the LB in the console; contact Scaleway support if it stays so.',
  },
  resource_locked: {
    examples: [],
    doc: '423 from the API: the resource is locked, often by Scaleway for an abuse or billing reason.',
  },
  invalid_arguments: {
    examples: [`${kopsMessage.createBackend(LB)}: invalid argument(s): forward_port <why>`],
    doc: 'The API rejected a field (400); the message names it. Check the backend spec in the target.',
  },
  ipv6_pool_refused: {
    examples: [
      `${kopsMessage.setServers(LB)}: invalid argument(s): server_ip.3 does not respect constraint, <the API's reason>; the load balancer API refused the IPv6 member(s) 2001:bc8:710:7074:dc00:ff:fed1:458b`,
    ],
    doc: "The target's `servers.ipSource` is `public-ipv6` or `public-dual`, so its pool holds the servers' routed IPv6 addresses, and the LB API answered the pool write with a 400 naming `server_ip` (an entry that is one of those IPv6 addresses, or the list). Scaleway's docs say `server_ip` takes IPv4 or IPv6 addresses, but no recording shows an LB taking one, so this is the answer if it does not (the emulator's switch `ipv6PoolMembers`, [emulator.md](emulator.md#switches)). The call wrote nothing and the event is dead-lettered at once, not retried: the same pool would be refused again. Set `servers.ipSource` to `public` (the IPv4 addresses only) for this target and redrive (`lbsync dlq redrive`), or ask Scaleway whether this LB (its type, its zone) takes IPv6 backend servers. A 400 naming another field, or a pool write holding no IPv6, stays [`invalid_arguments`](#invalid_arguments).",
  },
  authentication_denied: {
    examples: [],
    doc: '401: the API key was refused. Check `SCW_ACCESS_KEY`/`SCW_SECRET_KEY` (`LBSYNC_SCW_…` in a function), that the key is not expired, and that `SCW_API_URL` is not pointing somewhere else. `lbsync doctor` tells a key the API refuses (401) from one the SDK refuses before sending anything (a malformed key).',
  },
  invalid_credentials: {
    examples: [
      'the Scaleway API key is malformed:\n  - SCW_SECRET_KEY is not a Scaleway secret key: expected a UUID: 36 characters, 32 hexadecimal digits in groups of 8-4-4-4-12 joined by "-"; it has 3 characters',
    ],
    doc: "The key was refused on our side before any request: a half of it does not have the shape Scaleway's keys have. The message names where it was read — `SCW_ACCESS_KEY` / `SCW_SECRET_KEY` (the CLI), `LBSYNC_SCW_ACCESS_KEY` / `LBSYNC_SCW_SECRET_KEY` (a deployed function), or the `access_key` / `secret_key` of a profile in the scw config file — and never shows any part of the value. Common causes: a truncated paste, quotes or spaces kept in the value, the two halves swapped (the message says so), or another tool's token. A function answers 500 (as for `invalid_config`), so its messages stay on the queue until fixed; fix the secret and deploy, then `lbsync dlq redrive --all` for the `max_receives` dead letters.",
  },
  permissions_denied: {
    examples: [`${kopsMessage.setServers(LB)}: insufficient permissions: <action> <resource>`],
    doc: "403: the key lacks a permission. `lbsync doctor` names the missing one (`iam:lb-read`, `iam:lb-backends`, `iam:instance-servers`, `iam:ipam-read`) without writing anything. The functions' key needs, on the project, `LoadBalancersFullAccess` (Scaleway has no narrower set that writes backends), `InstancesReadOnly` and `IPAMReadOnly`; the watcher's key `AuditTrailReadOnly` at organization scope. See [deploy.md, IAM](deploy.md#2-iam-one-application-per-role-least-privilege).",
  },
  quotas_exceeded: {
    examples: [],
    doc: '403 `quotas_exceeded`: raise the quota in the console or remove unused resources.',
  },
  precondition_failed: {
    examples: [],
    doc: "412: the API refused the change in the resource's current state; read the message and check the LB.",
  },
  listing_too_long: {
    examples: [
      `${kopsMessage.listServers()}: ListServers answered 50 full pages of 100 and had more: a listing that long is not used (nothing was written)`,
    ],
    doc: "Every listing is read page after page, the next page only after a full one, and the first short or empty page ends it; a listing's total (`X-Total-Count`, `total_count`) is not trusted to say how many pages there are (a total of 3000 for 3 servers would otherwise cost a thousand requests). A listing may read 50 pages of 100: past that it is not used, half read, and nothing is written. No target selects 5,000 servers nor holds 5,000 backends: an API (or a proxy on the way, `SCW_API_URL`) that ignores the `page` parameter answers so. Dead-lettered as permanent; record it with `lbsync doctor --record FILE` for a bug report.",
  },
  unknown_api_error: {
    examples: [],
    doc: 'An API answer this tool does not classify; the message has the status and body. Dead-lettered as permanent. If the URL really is the Scaleway API, please open an issue with the message (a wrong `SCW_API_URL` gives `api_route_not_found` instead).',
  },
  unexpected_answer: {
    examples: [
      "reading the rule groups of namespace scw-lb-sync: GET https://logs.cockpit.fr-par.scw.cloud/loki/api/v1/rules/scw-lb-sync answered 200 with text/html (<html><body>Sign in</body></html>); expected a YAML mapping of the namespace to its rule groups (Loki's ruler API)",
      "listing Cockpit's logs data sources in fr-par: GET http://proxy.example/cockpit/v1/regions/fr-par/data-sources answered 200 with text/html (<html>...); expected application/json (a Scaleway API answer)",
    ],
    doc: 'The answer came (a success status, even), but not of the type or shape the request asks for: an HTML page from a proxy, a login portal or a wrong host, a Grafana or Loki that answers for another path. Nothing was read from it and nothing was counted as done: a rule group or dashboard is never reported created on such an answer. Check the URL the message names (`--logs-url`, `--grafana-url`, `SCW_API_URL`) by opening it with the same credentials; a reconcile dead-letters it as permanent (fix the URL, then redrive).',
  },
  invalid_config: {
    examples: [
      'LBSYNC_TARGETS is invalid:\n  - LBSYNC_TARGETS[0].backends[0].forwardPortAlgorithm: Invalid option: expected one of "roundrobin"|"leastconn"|"first" (got "round-robin"); fix: did you mean "roundrobin"? (one of: roundrobin, leastconn, first)',
      'environment is invalid:\n  - SQS_ACCESS_KEY_ID: is not set; fix: <fix>',
      'the key of target "team-b.k8s.local" is invalid:\n  - TEAM_B_SECRET_KEY: is not set; target "team-b.k8s.local" names it in credentials.secretKeyEnv; fix: <fix>',
      `loadBalancers names load-balancer ${LB} (<id>) twice, as ${LB} (fr-par-1) and as <id> (fr-par-1): it is reconciled once, under the first; remove the other entry`,
    ],
    doc: "The configuration is refused before any API call, every bad field named with its fix: `LBSYNC_TARGETS is invalid:`, `LBSYNC_CONFIG is invalid:`, `dist/targets.json is invalid:` (the targets shipped in the archive, checked by the build: a broken archive; rebuild with `--targets`), the file given to the CLI's `--file` or to `npm run build -- --targets` (its path starts each field), `environment is invalid:` (among others, `LBSYNC_TARGETS: is set, and the bundle ships its own targets`: deploy one of the two), or `the Scaleway API key is invalid:` (the CLI's credentials). `lbsync targets validate` checks the targets alone. A function answers 500 on every message while its configuration is invalid (the queue redelivers, then moves the messages to the dead-letter queue): fix the configuration, then redrive. One exception, so that one target cannot stop the others: `the key of target \"...\" is invalid:` (a variable its `credentials` name is unset) fails that target's events alone, each dead-lettered `permanent_error`, and the watcher leaves its organization's trail to the other keys (`unread` when none may read it); set the variable on the reconcile and watch functions as a secret (configuration.md, A fleet), then redrive. Another only the API can tell: `loadBalancers names load-balancer ... twice` (one LB named by its name and by its id): it is reconciled once, under the first entry, and the events of that target are dead-lettered until the other entry is removed.",
  },
  invalid_event: {
    examples: [
      'event is invalid:\n  - event.serverIps[1]: is a loopback address, never a server to send traffic to; fix: <fix>',
      'event is invalid:\n  - event.notBefore: is 2300000000 s ahead, further than any retry is scheduled (900 s: <why>); fix: <fix>',
    ],
    doc: 'The body is not JSON or not an event of version 1; one line per field. A record of a body that is not an event keeps it whole up to 64 KiB (`rawBody`; `rawBodyBase64` when JSON would inflate it; a longer body is cut there with `rawBodyTruncated: true`); fix the producer, such a record cannot be redriven as is. A record that kept a valid event (a `notBefore` beyond the cap) can be: redrive drops `notBefore`.',
  },
  unknown_target: {
    examples: ['no target named "prod" in the configuration'],
    doc: "The event names a target that is not configured: check the sender, or add the target. (The CLI's `--target` with a name the configuration lacks is a usage error instead, exit 64.)",
  },
  queue_unavailable: {
    examples: ['queue SendMessage on lbsync-dead-letter failed: connection refused (ECONNREFUSED) on https://sqs.mnq.fr-par.scaleway.com/'],
    doc: 'The queue could not be reached or refused the message; with no answer at all, the message names the cause and the endpoint. Check `SQS_ENDPOINT`, the queue URLs and the Queues credentials. The reconcile function answers 500 so the message is redelivered; nothing is lost.',
  },
} as const satisfies Record<ErrorCode, GuideEntry>;

export const WARNING_GUIDE = {
  discovery_filter_mismatch: {
    examples: [
      '[discovery_filter_mismatch] the API answered 8 item(s) its request did not ask for, left out of every pool and backend: server nodes-fr-par-1-0 (<id>): does not carry noprefix=kops.k8s.io/role=ControlPlane; <...>',
    ],
    doc: "No answer is trusted to pick a pool: a server counts only when it carries every tag of `servers.tags` exactly, in the target's zone and, when `SCW_DEFAULT_PROJECT_ID` is set, in that project; an IPAM address only when it belongs to a private NIC that was asked about and is IPv4; an LB a listing names only when it is in the target's zone; a health report only when it is of the backend asked about (else another port's check could let a member that serves leave). Everything else the API returned is named here, once per reconcile (answer, log, `lbsync plan`, `lbsync doctor`, `lbsync status`), and the pool is built from the rest. It means the API's filter was looser than documented ([emulator.md](emulator.md#switches), switch `serverTagsFilter`). Nothing to fix unless a server named should be in the pool: then check its tags (exact, case included), its zone and `SCW_DEFAULT_PROJECT_ID` (the profile's default project, for the CLI).",
  },
  contradictory_answer: {
    examples: [
      '[contradictory_answer] the API contradicted itself about 1 server(s), left out of the pool: server control-plane-fr-par-1-0 (<id>) is listed 2 times, with different public IPv4 [51.15.100.11] and [51.15.100.99]; <...>',
    ],
    doc: 'One ListServers answer listed a server (one id) more than once, with different content: two addresses, two states, other tags. Which copy is true the answer does not say, and taking both would put two addresses of one server in a pool, so that server is left out of this reconcile: it is not added, and a pool member of it leaves only as any serving member does (once the other members pass their health checks, at most `maxUnavailable` per write, never the last passing one). Copies that agree (a listing whose pages shifted while it was read) are one server, and no warning. The real API is not known to answer so; if it repeats, record it with `lbsync doctor --record FILE` and send the file in.',
  },
  unusable_address: {
    examples: [
      '[unusable_address] left out of the pool: 127.0.0.1 of server control-plane-fr-par-1-3 is a loopback address, never a server to send traffic to',
    ],
    doc: "An address the API gave for a server is not a unicast address of the family the target's `ipSource` asks for (IPv4, or IPv6 for `public-ipv6` and `public-dual`'s IPv6 half), by the rules inject holds `serverIps` to: loopback, link-local, the metadata service, multicast, reserved, unspecified, IPv4-mapped IPv6, or no address of that family at all (`2001:db8::4 of server cp-0 is not an IPv4 address`), or the answer does not say it is attached to the server (a public IP's `state` other than `attached`: `detached`, `pending`, `error`; `51.15.100.5 of server cp-0 is detached, not attached to it`); it never reaches a pool, and the server's next address is used (none: `left out of the pool`). Check the server's IPs in the console.",
  },
  pool_contested: {
    examples: [
      '[pool_contested] target prod.k8s.local: scw-lb-sync reverted another scw-lb-sync deployment (owner staging-par) (owners staging-par and ours, prod-par) 4 times in the last 30 minutes: two scw-lb-sync deployments manage this target and undo each other: keep the target in one of them (compare their LBSYNC_TARGETS and LBSYNC_OWNER_ID)',
    ],
    doc: "The watcher reads every backend write on a target's backends in Audit Trail and names whoever made it (its User-Agent: kOps, Terraform, the cloud-controller-manager, the Scaleway CLI, the console, another scw-lb-sync deployment by its `LBSYNC_OWNER_ID`): each is a `foreign_write` log line and an entry of the watch answer's `foreignWrites`. When scw-lb-sync wrote the pool back after the same writer 3 times within 30 minutes, the pool is contested: the watcher logs a `pool_contested` line (the dashboard's panel, the alert `LbSyncPoolContested`), and the event it enqueues carries it, so the reconcile answer, its log, `lbsync status` and `lbsync doctor` say it too. What to do depends on the writer. **kOps**: its apply (`kops update cluster`, each step of a rolling update) writes kOps' own pool, workers included, and scw-lb-sync takes the workers out again within a watcher period: expected, it converges, and the alert leaves it out. The same apply sends `on_marked_down_action` (back to none) in its `UpdateBackend`: a kops target that names `kops.backend.onMarkedDownAction` (or other backend fields kOps' PUT leaves out) has it written back after every kOps apply, one `UpdateBackend` each time, for as long as both manage the backend ([kops-parity.md, section 3](kops-parity.md#3-backends-settings-health-check-kopscontroller)). **Another scw-lb-sync deployment**: two deployments (two owner ids) manage one target, each undoing the other's pool; keep the target in one `LBSYNC_TARGETS`. **Terraform**: the backend's `server_ips` are in Terraform's state and every `terraform apply` writes them back; add `lifecycle { ignore_changes = [server_ips] }` to the `scaleway_lb_backend`, or leave the target out of scw-lb-sync. **The cloud-controller-manager**: the backend belongs to a Kubernetes Service of type LoadBalancer; keep the two apart. **The CLI or the console**: a person is editing the pool by hand.",
  },
  leaving_admitted: {
    examples: [
      '[leaving_admitted] added leaving server(s): 51.15.100.12 of server control-plane-fr-par-1-1 to lb-backend-https (marked needs-update; kOps removes it): added all the same: no other member passes its health check (better a doomed server than none)',
    ],
    doc: "A leaving server (`kops update cluster` marks every server it will replace with `noprefix=kops.k8s.io/needs-update`; a full target may name its own `servers.leavingTags`) is never added to a pool, so scw-lb-sync does not put back a control plane kOps has deregistered and is draining. The one exception is this warning: without it the pool would hold no member that passes its health check, so it is added all the same (better a server about to be replaced than none). It leaves again when it stops or is removed. Find out why the other members fail (`lbsync status` shows the LB's health of each): a rolling update that replaced a control plane whose successor never came up should be stopped (`kops rolling-update` waits for validation; with `--cloudonly` it does not).",
  },
} as const satisfies Record<WarningCode, GuideEntry>;

export const COMMAND_ERROR_GUIDE = {
  usage: {
    examples: [
      "error: unknown option '--prot-base' (did you mean --port-base?)",
      '--watch takes a whole number of seconds from 1 to 3600, got "0"',
    ],
    doc: 'Exit code 64: nothing ran. Unknown commands and flags get the closest known one ("did you mean"); a `--target` the configuration lacks is a usage error too (`lbsync targets validate` lists the names). `npm start` tells its own flags the same way.',
  },
  unexpected: {
    examples: ['error [unexpected] <what was thrown>'],
    doc: 'A failure nothing in the tool has a code for. A function that fails so answers 500 and prints a `function_failed` line with `code="unexpected"`: the queue redelivers the message, and after 4 deliveries it becomes a `max_receives` dead letter. Run the command again with `LOG_LEVEL=debug`, and report the message and what you ran.',
  },
  not_found: {
    examples: ['no dead letter with event or message id evt-0b7c1a2f', 'no logs data source made by Scaleway in fr-par for this project'],
    doc: '`lbsync dlq show` found no dead letter with that id (`lbsync dlq list` lists them; an id is a whole event or message id, or a prefix of at least 8 characters); `lbsync cockpit install` found no logs data source (Cockpit makes it when a product first sends logs: deploy the functions first, or give `--logs-url`). Exit 1.',
  },
  ambiguous_id: {
    examples: ["--id evt-0b7c is the start of 2 dead letters' ids: give more of it"],
    doc: 'The prefix starts the ids of several dead letters; the candidates are listed with their targets and reasons. `redrive` and `delete` skip such an id and touch nothing for it. Give more of the id.',
  },
  id_too_short: {
    examples: ["--id evt-f is shorter than the 8 characters a prefix needs: 2 dead letters' ids start with it"],
    doc: 'A prefix must have at least 8 characters, so that a short one cannot pick the wrong dead letter by accident; the message says how many ids start with what was given. Give at least 8 characters (the `evt-0b7c1a2f` a log line prints), or the whole id.',
  },
  invalid_seed: {
    examples: ["cannot read the seed my-seed.json: <why: no such file, or the JSON parser's message>"],
    doc: '`lbsync emulator --seed` and `npm start -- --seed` read a JSON file in the format of `emulator/seeds/demo.json` (or take the names `demo` and `kops-made`). Exit 1, nothing started.',
  },
  record_failed: {
    examples: [
      '--record: could not write doctor.cassette.yaml: EACCES: permission denied',
      '--record: a credential of this run is still in the recording after scrubbing; nothing was written to doctor.cassette.yaml',
    ],
    doc: 'The doctor ran and printed its checks; only the cassette was not written. Either the path is not writable (pick another), or the file as written still held a credential of the run in some form the scrubber missed: it was checked once more before it was kept, so no file is left. Report that second case (without any recording): it is a bug of the scrubber. A path that is a symbolic link is refused earlier, as a usage error.',
  },
  unauthorized: {
    examples: ['the inject function refused the token (401)'],
    doc: "The inject function's own check: `Authorization: Bearer <token>` must be the function's `INJECT_TOKEN`. The CLI reads it from `--token-env` (default `INJECT_TOKEN`) or `--token-file`; the boot hook from `/etc/lbsync/token`. The function logs every refusal (`log_type=\"inject_answer\"`, `status` 401) and Cockpit's `LbSyncInjectRefused` alert counts them. Rotating: [operations.md §4](operations.md#4-rotating-keys-and-tokens).",
  },
  forbidden: {
    examples: ['the platform refused the X-Auth-Token (403): nothing was enqueued'],
    doc: "The platform's gate in front of a private function refused the call, before the function ran: so the function's logs never see it, and no alert can count it (the boot hook logs it on the node). Send `X-Auth-Token` with the secret key of an IAM application holding `FunctionsPrivateAccess` (`lbsync-injector`: [deploy.md](deploy.md)).",
  },
  not_configured: {
    examples: ['the inject function has no INJECT_TOKEN configured'],
    doc: 'The inject function refuses every request with 503 until its `INJECT_TOKEN` secret is set: set it and deploy ([deploy.md](deploy.md)).',
  },
  method_not_allowed: { examples: ['use POST'], doc: 'The inject function answers 405 to anything but POST.' },
  payload_too_large: {
    examples: ['the body must be at most 65536 bytes'],
    doc: 'The inject function refuses a body over 64 KiB (413) before reading it as JSON.',
  },
  unsupported_media_type: {
    examples: ['send Content-Type: application/json'],
    doc: 'The inject function refuses a body that is not declared JSON (415).',
  },
  invalid_args: {
    examples: ['the cron args are invalid: targets: must be an array of target names'],
    doc: 'The sweep and the watcher take `{}` or `{"targets": ["<name>", ...]}` as their cron trigger\'s args (`input:` in serverless.yml); anything else is a 400 naming the field, and nothing runs.',
  },
  inject_unreachable: {
    examples: ['could not reach the inject function: connection refused (ECONNREFUSED) on POST https://<host>/'],
    doc: "`lbsync inject --url` got no answer from the URL (the function's endpoint: `https://` + its `domain_name`). Nothing was enqueued; check the URL, DNS, a proxy, and that the function is deployed.",
  },
  inject_failed: {
    examples: ['the inject function answered 503: could not enqueue the injected event'],
    doc: "The inject function answered an error other than the ones above, usually a 503: the queue refused or could not be reached ([`queue_unavailable`](#queue_unavailable)). Nothing was enqueued; try again, and read the function's log lines.",
  },
} as const satisfies Record<CommandErrorCode, GuideEntry>;
