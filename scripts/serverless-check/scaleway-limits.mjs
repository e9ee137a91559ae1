// What Scaleway Functions and serverless-scaleway-functions accept.

/** Scaleway Functions runtimes in status "available" for Node.js (DESIGN §2: node20 / node22). */
export const NODE_RUNTIMES = ['node20', 'node22'];
/** Memory tiers (MB) a function may use: Scaleway docs, "Available vCPU and memory tiers". */
export const MEMORY_TIERS = [128, 256, 512, 1024, 2048, 3072, 4096];
/** Regions the plugin accepts for scwRegion and trigger regions. */
export const REGIONS = ['fr-par', 'nl-ams', 'pl-waw'];
/** Scaleway Functions limits: scale per function, plain and secret variable sizes. */
export const MAX_SCALE = 50;
export const MAX_ENV_CHARS = 1000;
export const MAX_SECRET_BYTES = 65536;
/** Trigger types the plugin knows; name and queue rules as its validator states them. */
export const TRIGGER_TYPES = ['schedule', 'sqs', 'nats'];
export const TRIGGER_NAME = /^[a-zA-Z0-9-]{2,100}$/;
export const SQS_QUEUE_NAME = /^[a-zA-Z0-9._-]{2,80}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
