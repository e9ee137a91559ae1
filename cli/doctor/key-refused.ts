// A 401 on any read: the key itself was refused, every further call with it would be too.
import { asLbSyncError, type LbSyncError } from '../../shared/errors/lbsync-error';

/** Thrown to stop a key's Scaleway checks; its credentials line tells why. */
export class KeyRefused extends Error {
  constructor(readonly error: LbSyncError) {
    super(error.message);
  }
}

/** The failure of a read as the step told it, unless it is the key's refusal: that stops the key's checks. */
export function unlessKeyRefused(error: unknown): LbSyncError {
  if (error instanceof KeyRefused) throw error;
  const failure = asLbSyncError(error);
  if (failure.code === 'authentication_denied') throw new KeyRefused(failure);
  return failure;
}
