/** Schemas shared by several route groups. Route-specific schemas live next to their routes. */
import { Type } from 'typebox';

export const ErrorDetail = Type.Object(
  { detail: Type.String({ description: 'Human-readable error message' }) },
  { $id: 'ErrorDetail', description: 'Error body of the job and submit endpoints' },
);

export const JobIdParams = Type.Object({
  job_id: Type.String({ description: 'Job identifier (a UUID); any other value is an unknown job' }),
});

export const WorkflowTypeSchema = Type.Union([Type.Literal('sol'), Type.Literal('eemt')], { description: 'Workflow type' });
export const JobStatusSchema = Type.Union(
  [Type.Literal('pending'), Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')],
  { description: 'Job status' },
);

/** Job timestamp: ISO 8601 UTC with a trailing Z. */
export const JobTimestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC, trailing Z' });
/** Cleanup timestamp: ISO 8601 UTC without a zone designator (as in the specification). */
export const CleanupTimestamp = Type.String({ description: 'ISO 8601 UTC without zone designator' });
