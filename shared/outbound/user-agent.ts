import { version } from '../../package.json';

/**
 * Appended to the Scaleway SDK's own User-Agent on every request we make. Audit Trail records the User-Agent of each
 * call, so the watcher recognises the LB writes this deployment made itself, and names every other writer (another
 * scw-lb-sync deployment by its owner id).
 */
export const LBSYNC_USER_AGENT = `scw-lb-sync/${version}`;

/**
 * Our part of the User-Agent: `scw-lb-sync/<version> owner/<owner id>` (the deployment, LBSYNC_OWNER_ID), plus
 * ` event/<id>` for the calls made for one event.
 */
export function userAgentFor(eventId?: string, ownerId?: string): string {
  return [LBSYNC_USER_AGENT, ...(ownerId ? [`owner/${ownerId}`] : []), ...(eventId ? [`event/${eventId}`] : [])].join(' ');
}

/** What an Audit Trail event's user_agent contains when the call was scw-lb-sync's (any version, any deployment). */
export const LBSYNC_USER_AGENT_MARKER = 'scw-lb-sync/';
