// Plays the Scaleway platform's gate in front of a private function: a request without the right
// X-Auth-Token never reaches the function. Assumed shape (no recording): 403 with a JSON message; the
// real gate also takes any IAM key with FunctionsPrivateAccess, here one token stands for it.
import type { Handle } from '../shared/platform/function-shell';
import { tokenMatches } from '../shared/platform/http-edge';
import { header } from '../shared/platform/request-response';

export function privateGate(handle: Handle, functionToken: string): Handle {
  return async (event, context) => {
    const presented = header(event, 'x-auth-token');
    if (presented === undefined || !tokenMatches(presented, functionToken)) {
      return {
        statusCode: 403,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: 'Forbidden: a valid X-Auth-Token is required' }),
      };
    }
    return handle(event, context);
  };
}
