/**
 * The `outputs` of an execute request (output.yaml of OGC 18-062r2): which outputs, how they are transmitted and in
 * which media type, checked against the process description. An output the process does not have, or a
 * transmission mode it does not offer (its `outputTransmission`), is an invalid parameter, not silently ignored.
 */
import { OGC_EXCEPTION_TYPES, OgcError } from '../errors.js';
import { echoed } from '../../util/echoed.js';
import type { ProcessDescription } from './processes.js';

export type TransmissionMode = 'value' | 'reference';

export interface RequestedOutput {
  readonly id: string;
  readonly transmissionMode: TransmissionMode;
  /** `format.mediaType` of the request, when given. */
  readonly mediaType?: string;
}

const invalid = (detail: string): never => {
  throw new OgcError(400, OGC_EXCEPTION_TYPES.invalidParameterValue, detail);
};

/**
 * The requested outputs. No `outputs` means every output of the process (/req/core/process-execute-default-outputs);
 * so does an empty `outputs` object (version 1.0 leaves it open; its test suite sends `{}` expecting the output).
 * An output without `transmissionMode` gets the process's first offered mode (the schema's default, `value`, is
 * not offered by every process).
 */
export function requestedOutputs(process: ProcessDescription, outputs: Record<string, unknown> | undefined): RequestedOutput[] {
  const ids = Object.keys(process.outputs);
  const offered = process.outputTransmission;
  const requests = outputs && Object.keys(outputs).length > 0 ? outputs : Object.fromEntries(ids.map((id) => [id, {}]));
  return Object.entries(requests).map(([id, raw]) => {
    if (!ids.includes(id)) invalid(`No output "${echoed(id)}"; the outputs of ${process.id} are ${ids.join(', ')}`);
    const request = (typeof raw === 'object' && raw !== null ? raw : {}) as { transmissionMode?: unknown; format?: { mediaType?: unknown } };
    const mode = request.transmissionMode ?? offered[0];
    if (!offered.includes(mode as TransmissionMode)) {
      invalid(`Output ${echoed(id)}: transmissionMode "${echoed(String(mode))}" is not offered; ${process.id} gives its outputs by ${offered.join(' or ')}`);
    }
    const mediaType = request.format?.mediaType;
    return { id, transmissionMode: mode as TransmissionMode, ...(typeof mediaType === 'string' ? { mediaType } : {}) };
  });
}
