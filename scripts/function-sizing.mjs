// How every function is sized, in one place: its memory tier and the node options its V8 runs with.
// serverless.yml must say the same (scripts/serverless-check enforces it), `npm run build` makes the V8 code
// cache under these node options (V8 turns down a cache made under other flags), and `npm run bench` runs
// the functions with them (section 7: peak RSS per instance, 1,000 events of each kind, one at a time).

/**
 * The 128 MB tier: the bench measures every function's sequential peak under 96 MB (25 % headroom) with the
 * node options below. A bigger tier doubles the GB-seconds of every event for memory nothing uses.
 */
export const FUNCTION_MEMORY_MB = 128;

/**
 * V8's heap bounded for that tier: a 1 MB semi-space (the young generation V8 itself picks when it sees a
 * 128 MB memory limit; by default it grows to 16 MB semi-spaces, 30 MB more RSS) and a 64 MB old generation
 * (about 4x the ~14 MB that stays live). Cost measured by the bench: CPU per event with and without.
 */
export const FUNCTION_NODE_OPTIONS = '--max-semi-space-size=1 --max-old-space-size=64';
