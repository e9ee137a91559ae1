import { version } from '../../package.json';

/**
 * Appended to the Scaleway SDK's own User-Agent on every request we make. Audit Trail records the
 * User-Agent of each call, so the watcher recognises (and ignores) the LB writes we made ourselves.
 */
export const LBSYNC_USER_AGENT = `scw-lb-sync/${version}`;

/** Our part of the User-Agent: `scw-lb-sync/<version>`, plus ` event/<id>` for the calls made for one event. */
export function userAgentFor(eventId?: string): string {
  return eventId ? `${LBSYNC_USER_AGENT} event/${eventId}` : LBSYNC_USER_AGENT;
}

/** What an Audit Trail event's user_agent contains when the call was ours (any version). */
export const LBSYNC_USER_AGENT_MARKER = 'scw-lb-sync/';
