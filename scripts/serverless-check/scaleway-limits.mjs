// Scaleway Functions' size limits on variables (docs/architecture.md, "Facts we rely on"): LBSYNC_TARGETS grows with the targets, and
// the limit decides whether it is deployed as a variable or as a secret.
export const MAX_ENV_CHARS = 1000;
export const MAX_SECRET_BYTES = 65536;
