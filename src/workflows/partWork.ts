/**
 * The parts of a job split across workers compute a slice of the solar year's compute tiles each, then one run
 * assembles them (`RunMode` in types.ts). The job layer plans parts (`jobs/queue/partPlan.ts`), the runtimes hand their
 * mode to the job child, and the workflows run them (`runWorkflow`).
 */

/** Most tile slices of one job. */
export const MAX_TILE_SLICES = 256;
