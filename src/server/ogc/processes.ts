/**
 * The processes of the OGC API – Processes endpoints (OGC 18-062r2): `sol` and `eemt` (the service's workflows, run
 * as jobs, asynchronously) and `echo` (returns its input at once; the standard's test suite needs such a process).
 * Inputs are described from the parameter contract, as the /api submit form is, so both stay in step.
 */
import { CHOICE_PARAMETERS, GRAMMAR_PARAMETERS, NUMERIC_PARAMETERS, parametersOf } from '../../workflows/parameters/contract.js';
import type { GrammarWorkflowParam, ModelChoiceParam, NumericWorkflowParam, WorkflowType } from '../../workflows/types.js';
import { grammarSchema, modelChoiceSchema, numericDescription, numericSchema } from '../parameters.js';

export const DEM_MEDIA_TYPE = 'image/tiff; application=geotiff';

export type ProcessId = 'sol' | 'eemt' | 'echo';
export const PROCESS_IDS: readonly ProcessId[] = ['sol', 'eemt', 'echo'];

export interface InputDescription {
  readonly title: string;
  readonly description: string;
  readonly schema: Record<string, unknown>;
  readonly minOccurs: number;
  readonly maxOccurs: number;
}

export interface ProcessDescription {
  readonly id: ProcessId;
  readonly title: string;
  readonly description: string;
  readonly version: string;
  readonly jobControlOptions: readonly ('sync-execute' | 'async-execute' | 'dismiss')[];
  readonly outputTransmission: readonly ('value' | 'reference')[];
  readonly inputs: Record<string, InputDescription>;
  readonly outputs: Record<string, { title: string; description: string; schema: Record<string, unknown> }>;
}

function numberInput(name: NumericWorkflowParam): InputDescription {
  return { title: NUMERIC_PARAMETERS[name].title, description: numericDescription(name), schema: numericSchema(name), minOccurs: 0, maxOccurs: 1 };
}

function choiceInput(name: ModelChoiceParam): InputDescription {
  const { description, ...schema } = modelChoiceSchema(name);
  return { title: CHOICE_PARAMETERS[name].title, description, schema, minOccurs: 0, maxOccurs: 1 };
}

function grammarInput(name: GrammarWorkflowParam): InputDescription {
  const { description, ...schema } = grammarSchema(name);
  return { title: GRAMMAR_PARAMETERS[name].title, description, schema, minOccurs: 0, maxOccurs: 1 };
}

/** The parameter inputs of a workflow's process: its numeric parameters, then its model choices, then its grammar parameters. */
function parameterInputs(type: WorkflowType): Record<string, InputDescription> {
  const { numeric, choices, grammar } = parametersOf(type);
  return {
    ...Object.fromEntries(numeric.map((name) => [name, numberInput(name)])),
    ...Object.fromEntries(choices.map((name) => [name, choiceInput(name)])),
    ...Object.fromEntries(grammar.map((name) => [name, grammarInput(name)])),
  };
}

function demInput(hrefAllowed: boolean): InputDescription {
  return {
    title: 'DEM',
    description:
      'A georeferenced single-band GeoTIFF, inline as a qualified value {"value": "<base64>", "mediaType": "' +
      DEM_MEDIA_TYPE +
      '"}' +
      (hrefAllowed ? ', or by reference {"href": "<url>"} from the allowed URL prefixes' : ' (references by href are not enabled on this service)') +
      '. It is checked like an upload: structure, size (EEMT_MAX_UPLOAD_MB, EEMT_OGC_MAX_INLINE_MB) and cell limits.',
    schema: { type: 'string', contentEncoding: 'base64', contentMediaType: DEM_MEDIA_TYPE },
    minOccurs: 1,
    maxOccurs: 1,
  };
}

const RESULTS_OUTPUT = {
  title: 'Results archive',
  description: 'ZIP of the output GeoTIFFs (global/…, insol/…; for eemt also eemt/…, topo/… and the climate inputs), by reference',
  schema: { type: 'string', contentEncoding: 'binary', contentMediaType: 'application/zip' },
};

/** The three process descriptions; `hrefAllowed` says whether DEM references are enabled. */
export function processDescriptions(version: string, hrefAllowed: boolean): Record<ProcessId, ProcessDescription> {
  const jobControl = ['async-execute', 'dismiss'] as const;
  return {
    sol: {
      id: 'sol',
      title: 'Terrain solar radiation (r.sun daily model)',
      description:
        'Daily global irradiation (365 maps, Wh m-2 day-1), monthly sums (12, Wh m-2 month-1) and sunshine hours (365, h) of a DEM, ' +
        'with terrain shadows; clear sky. The input products selects which of them are written (default all).',
      version,
      jobControlOptions: jobControl,
      outputTransmission: ['reference'],
      inputs: { dem: demInput(hrefAllowed), ...parameterInputs('sol') },
      outputs: { results: RESULTS_OUTPUT },
    },
    eemt: {
      id: 'eemt',
      title: 'Effective Energy and Mass Transfer (EEMT)',
      description:
        'Everything sol makes, plus monthly, annual and mean EEMT-Topo and EEMT-Trad (MJ m-2), slope, aspect and wetness index, and ' +
        "monthly real-sky global irradiation (Wh m-2) from Daymet's observed shortwave radiation, from Daymet climate of the given years. " +
        'The model choices (pet_method, topo_npp, topo_radiation, lieth_npp_gate) are recorded in ' +
        "the job's parameters, README.txt, every EEMT GeoTIFF's metadata and the STAC Item.",
      version,
      jobControlOptions: jobControl,
      outputTransmission: ['reference'],
      inputs: { dem: demInput(hrefAllowed), ...parameterInputs('eemt') },
      outputs: { results: RESULTS_OUTPUT },
    },
    echo: {
      id: 'echo',
      title: 'Echo',
      description: 'Returns its input unchanged, at once (for clients and test suites).',
      version,
      jobControlOptions: ['sync-execute'],
      outputTransmission: ['value'],
      inputs: {
        string_input: { title: 'Text', description: 'Any text', schema: { type: 'string' }, minOccurs: 1, maxOccurs: 1 },
      },
      outputs: {
        string_output: {
          title: 'Text',
          description: 'The input text; raw, as text/plain or, when application/json is preferred, as a JSON string',
          schema: { type: 'string' },
        },
      },
    },
  };
}
