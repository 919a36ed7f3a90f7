/** Settings of the service that the workflows read in the job child, whatever the runtime. */

const FORWARDED = ['EEMT_DAYMET_URL', 'EEMT_DAYMET_MAX_POINTS'] as const;

/** The Daymet service address and point limit of the service's environment, to pass on to a job. */
export function forwardedWorkflowSettings(): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = process.env[name];
    if (value !== undefined && value !== '') settings[name] = value;
  }
  return settings;
}
