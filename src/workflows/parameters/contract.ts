/**
 * The parameter contract: one definition of each parameter of a run — its type, unit, range or values, default,
 * wording and which workflows use it. Everything that states a parameter is derived from here: the workflow check
 * (params.ts), the submit form's schema and OpenAPI text and the OGC process inputs (server/parameters.ts), the
 * command-line options and their help (cli/program.ts), and the README's parameter table (markdownTable.ts,
 * checked by test/workflows/parameterContract.test.ts). The ranges are those of docs/service-contract.md ("Limits").
 *
 * Three kinds: numeric parameters (a number in a range), model choices (one of a list) and grammar parameters (text
 * in a small language of their own, checked and normalised by the contract's `normalise`, e.g. `products`).
 */
import {
  DEFAULT_EEMT_OPTIONS,
  LIETH_NPP_GATES,
  PET_METHODS,
  TOPO_NPP_MODELS,
  TOPO_RADIATIONS,
} from '../../science/eemt/constants.js';
import { DAYMET_FIRST_YEAR } from '../../climate/daymetSettings.js';
import { ALL_PRODUCTS_TEXT, normalisedProducts, PRODUCTS_GRAMMAR } from '../solarYear/productSelection.js';
import type { GrammarWorkflowParam, ModelChoiceParam, NumericWorkflowParam, WorkflowType } from '../types.js';

/** How a parameter appears on the command line. */
export interface CliOption {
  /** The flag, e.g. `--step`. */
  readonly flag: string;
  /** The value's name in the usage line, e.g. `<minutes>`. */
  readonly valueName: string;
  /** The help text before the range (numbers) or the default (choices). */
  readonly help: string;
  /** Said after the range in the help, e.g. ` (capped at the CPU count)`. */
  readonly note?: string;
  /** The command line's default where it is not the parameter's, in words (the value is the CLI's). */
  readonly defaultInWords?: string;
}

/** A numeric parameter: a number (or an integer) in a closed range. */
export interface NumericParameter {
  readonly type: 'number' | 'integer';
  readonly minimum: number;
  readonly maximum: number;
  readonly default: number;
  /** Unit in the descriptions (`-` for a ratio); none for a count or a year. */
  readonly unit?: string;
  /** The workflows that use it (the others check it and drop it). */
  readonly workflows: readonly WorkflowType[];
  /** What it is, as the workflow's messages name it (`step (time step in minutes) must be in <min>–<max>; got …`). */
  readonly what: string;
  /** Its title (OGC process input, README table). */
  readonly title: string;
  /** The API description before the unit and the range. */
  readonly label: string;
  /** Said after the range in the API description, e.g. ` (capped at CONTAINER_CPU_LIMIT)`. */
  readonly note?: string;
  /** A parameter this one must not be smaller than. */
  readonly notBefore?: NumericWorkflowParam;
  /** The largest value the browser's submit form offers, where it is below `maximum`. */
  readonly formMaximum?: number;
  readonly cli: CliOption;
}

/** A model choice: one of a fixed list of values. */
export interface ChoiceParameter {
  /** The allowed values, the default first. */
  readonly values: readonly string[];
  readonly default: string;
  readonly workflows: readonly WorkflowType[];
  /** What it selects, as the messages name it (`pet_method (PET method of EEMT-Trad) must be one of …`). */
  readonly what: string;
  readonly title: string;
  /** The API description: each value with its source (docs/eemt-model.md §0.1c). */
  readonly description: string;
  readonly cli: Omit<CliOption, 'note' | 'defaultInWords'>;
}

/**
 * A parameter written as text in a grammar of its own (a list of items): any text is offered, and `normalise` reads
 * it, refusing a bad one with a RangeError whose message names the bad item, and gives the one text of its meaning
 * (what a job records).
 */
export interface GrammarParameter {
  readonly type: 'string';
  /** The normalised default: what a run without the parameter does. */
  readonly default: string;
  readonly workflows: readonly WorkflowType[];
  /** What it selects, as messages name it. */
  readonly what: string;
  readonly title: string;
  /** The API description: what it selects and its grammar. */
  readonly description: string;
  /** The grammar in one line (the submit form's hint, the CLI's help, the README). */
  readonly grammar: string;
  /** A value that is not the default, for the docs' examples. */
  readonly example: string;
  /** The normalised text of `text`; a RangeError naming the bad item when it does not follow the grammar. */
  readonly normalise: (text: string) => string;
  readonly cli: Omit<CliOption, 'note' | 'defaultInWords'>;
}

const SOLAR: readonly WorkflowType[] = ['sol', 'eemt'];
const EEMT: readonly WorkflowType[] = ['eemt'];

/** The climate years of an eemt run: Daymet's record, up to the last year it had when these limits were set. */
const LAST_CLIMATE_YEAR = 2024;
const DEFAULT_CLIMATE_YEAR = 2020;

/** The numeric parameters, in the order of the submit form. */
export const NUMERIC_PARAMETERS: Readonly<Record<NumericWorkflowParam, NumericParameter>> = {
  step: {
    // the browser form offers 3–15 minutes (docs/service-contract.md, "What the service does")
    type: 'number', minimum: 3, maximum: 60, formMaximum: 15, default: 15, unit: 'minutes', workflows: SOLAR,
    what: 'time step in minutes', title: 'Time step [minutes]', label: 'Time step of the daily integration',
    cli: { flag: '--step', valueName: '<minutes>', help: 'time step of the daily integration' },
  },
  linke_value: {
    type: 'number', minimum: 1, maximum: 8, default: 3, unit: '-', workflows: SOLAR,
    what: 'Linke turbidity', title: 'Linke turbidity', label: 'Linke atmospheric turbidity',
    cli: { flag: '--linke', valueName: '<value>', help: 'Linke turbidity' },
  },
  albedo_value: {
    type: 'number', minimum: 0, maximum: 1, default: 0.2, unit: '-', workflows: SOLAR,
    what: 'surface albedo', title: 'Albedo', label: 'Surface albedo (reflectance)',
    cli: { flag: '--albedo', valueName: '<value>', help: 'ground albedo' },
  },
  num_threads: {
    type: 'integer', minimum: 1, maximum: 32, default: 4, workflows: SOLAR,
    what: 'number of threads', title: 'CPU threads', label: 'CPU threads', note: ' (capped at CONTAINER_CPU_LIMIT)',
    cli: { flag: '--threads', valueName: '<n>', help: 'worker threads', note: ' (capped at the CPU count)', defaultInWords: 'the number of CPUs, within the range' },
  },
  start_year: {
    type: 'integer', minimum: DAYMET_FIRST_YEAR, maximum: LAST_CLIMATE_YEAR, default: DEFAULT_CLIMATE_YEAR, workflows: EEMT,
    what: 'first Daymet year', title: 'First climate year', label: 'First climate year',
    cli: { flag: '--start-year', valueName: '<year>', help: 'first Daymet year' },
  },
  end_year: {
    type: 'integer', minimum: DAYMET_FIRST_YEAR, maximum: LAST_CLIMATE_YEAR, default: DEFAULT_CLIMATE_YEAR, workflows: EEMT,
    what: 'last Daymet year', title: 'Last climate year', label: 'Last climate year', notBefore: 'start_year',
    cli: { flag: '--end-year', valueName: '<year>', help: 'last Daymet year' },
  },
};

/**
 * The EEMT model choices of an eemt run (eemt-model.md §0.1c), named as in the submit form. The defaults are the
 * configurations of the published figures a user most likely compares with.
 */
export const CHOICE_PARAMETERS: Readonly<Record<ModelChoiceParam, ChoiceParameter>> = {
  pet_method: {
    values: PET_METHODS, default: DEFAULT_EEMT_OPTIONS.petMethod, workflows: EEMT,
    what: 'PET method of EEMT-Trad', title: 'PET method of EEMT-Trad',
    description:
      'PET of EEMT-Trad — thornthwaite (Thornthwaite 1948, heat index and day-length correction; as in Rasmussen et al. 2005 and ' +
      'Zapata-Rios et al. 2016), hamon (Hamon in the form of Haith & Shoemaker 1987, 0.021 H² e_s/(T+273) cm/day; as cited by Rasmussen et al. 2015), ' +
      'hamon-linear (29.8 D e_s/(T+273.2) mm/day)',
    cli: { flag: '--pet-method', valueName: '<value>', help: 'PET method of EEMT-Trad: thornthwaite (Thornthwaite 1948), hamon (Haith & Shoemaker 1987), hamon-linear' },
  },
  topo_npp: {
    values: TOPO_NPP_MODELS, default: DEFAULT_EEMT_OPTIONS.topoNppModel, workflows: EEMT,
    what: 'NPP model of EEMT-Topo', title: 'NPP model of EEMT-Topo',
    description:
      'NPP of EEMT-Topo — regression (Rasmussen et al. 2015 Eq. 11, max(0.39 z + 346 n − 187, 100) g m⁻² yr⁻¹) or ' +
      "lieth (Lieth 1975 Miami temperature model on the month's topographic temperature)",
    cli: { flag: '--topo-npp', valueName: '<value>', help: 'NPP of EEMT-Topo: regression (Rasmussen et al. 2015 Eq. 11) or lieth (Lieth 1975 on the topographic temperature)' },
  },
  topo_radiation: {
    values: TOPO_RADIATIONS, default: DEFAULT_EEMT_OPTIONS.topoRadiation, workflows: EEMT,
    what: 'radiation of the solar ratio of EEMT-Topo', title: 'Radiation of the solar ratio of EEMT-Topo',
    description:
      'S_topo of the solar ratio of EEMT-Topo — unshaded (sloped surface without terrain shadows, as the radiation of ' +
      'Rasmussen et al. 2015), shaded (with terrain shadows, the sol monthly sums) or realsky (the real-sky sums of the sloped, shaded ' +
      "surface over those of a horizontal one, from the climate's observed shortwave radiation: Daymet srad, or srad grids in climate_file; " +
      'a climate_file without them is refused)',
    cli: {
      flag: '--topo-radiation',
      valueName: '<value>',
      help:
        'S_topo of the solar ratio of EEMT-Topo: unshaded (no terrain shadows, as Rasmussen et al. 2015), shaded, or realsky ' +
        "(real-sky sums from the climate's observed radiation: Daymet srad, or srad grids in --climate-file)",
    },
  },
  lieth_npp_gate: {
    values: LIETH_NPP_GATES, default: DEFAULT_EEMT_OPTIONS.liethNppGate, workflows: EEMT,
    what: "months in which Lieth's NPP counts", title: "Months in which Lieth's NPP counts",
    description:
      "months in which Lieth's NPP counts (EEMT-Trad, and EEMT-Topo with topo_npp=lieth) — temperature (mean temperature above 0 °C) or none (every month)",
    cli: { flag: '--lieth-npp-gate', valueName: '<value>', help: "months in which Lieth's NPP counts: temperature (only T > 0 °C) or none (every month)" },
  },
};

/** The grammar parameters. */
export const GRAMMAR_PARAMETERS: Readonly<Record<GrammarWorkflowParam, GrammarParameter>> = {
  products: {
    type: 'string', default: ALL_PRODUCTS_TEXT, workflows: SOLAR,
    what: 'solar products written', title: 'Solar products written',
    description:
      `Which solar products the run writes: ${PRODUCTS_GRAMMAR}. Items combine by union; the run is recorded with the normalised list. ` +
      'Every day is still computed for the monthly sums; eemt always writes its own products (EEMT, terrain, climate maps) and computes what they need',
    grammar: PRODUCTS_GRAMMAR,
    example: 'monthly,daily:172,hours:172',
    normalise: normalisedProducts,
    cli: { flag: '--products', valueName: '<list>', help: 'solar products to write' },
  },
};

/** The numeric parameters, in the order of the submit form. */
export const NUMERIC_PARAMS = Object.keys(NUMERIC_PARAMETERS) as NumericWorkflowParam[];
/** The model-choice parameters, in the order they are shown. */
export const MODEL_CHOICE_PARAMS = Object.keys(CHOICE_PARAMETERS) as ModelChoiceParam[];

/** The grammar parameters, in the order they are shown. */
export const GRAMMAR_PARAMS = Object.keys(GRAMMAR_PARAMETERS) as GrammarWorkflowParam[];

/** Whether `name` is a grammar parameter. */
export function isGrammarParameter(name: string): name is GrammarWorkflowParam {
  return Object.hasOwn(GRAMMAR_PARAMETERS, name);
}

/** Whether `name` is a model choice (else a numeric parameter). */
export function isModelChoice(name: string): name is ModelChoiceParam {
  return Object.hasOwn(CHOICE_PARAMETERS, name);
}

/** The parameters a workflow uses, numeric first, in form order. */
export function parametersOf(type: WorkflowType): { numeric: NumericWorkflowParam[]; choices: ModelChoiceParam[]; grammar: GrammarWorkflowParam[] } {
  return {
    numeric: NUMERIC_PARAMS.filter((name) => NUMERIC_PARAMETERS[name].workflows.includes(type)),
    choices: MODEL_CHOICE_PARAMS.filter((name) => CHOICE_PARAMETERS[name].workflows.includes(type)),
    grammar: GRAMMAR_PARAMS.filter((name) => GRAMMAR_PARAMETERS[name].workflows.includes(type)),
  };
}

/** The range as people read it: `<min>–<max>`. */
export function rangeText(name: NumericWorkflowParam): string {
  const { minimum, maximum } = NUMERIC_PARAMETERS[name];
  return `${minimum}–${maximum}`;
}

/** The default value of every numeric parameter. */
export const DEFAULT_NUMERIC_VALUES = Object.fromEntries(NUMERIC_PARAMS.map((name) => [name, NUMERIC_PARAMETERS[name].default])) as Readonly<
  Record<NumericWorkflowParam, number>
>;
