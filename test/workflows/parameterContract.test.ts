/**
 * The parameter contract (src/workflows/parameters/contract.ts) and everything derived from it: the submit form's
 * schema, the OGC process inputs, the CLI options and the README's table state the same ranges and defaults, and
 * typed JSON values (OGC) are read by the same rules as form text (/api).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Command, Option } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { processDescriptions } from '../../src/server/ogc/processes.js';
import { SubmitForm } from '../../src/server/routes/submit.js';
import {
  CHOICE_PARAMETERS,
  GRAMMAR_PARAMETERS,
  GRAMMAR_PARAMS,
  MODEL_CHOICE_PARAMS,
  NUMERIC_PARAMETERS,
  NUMERIC_PARAMS,
} from '../../src/workflows/parameters/contract.js';
import { parameterTableMarkdown, TABLE_END, TABLE_START, withParameterTable } from '../../src/workflows/parameters/markdownTable.js';
import { parametersFromText, parametersFromValues } from '../../src/workflows/parameters/values.js';
import { ParameterRangeError } from '../../src/workflows/params.js';
import type { NumericWorkflowParam, WorkflowType } from '../../src/workflows/types.js';

const README = new URL('../../README.md', import.meta.url);

test('README: the run-parameter table is the one the contract writes (node --import tsx scripts/parameter-table.mjs)', () => {
  const readme = readFileSync(README, 'utf8');
  assert.ok(readme.includes(TABLE_START) && readme.includes(TABLE_END), 'README.md has the table markers');
  const current = readme.slice(readme.indexOf(TABLE_START) + TABLE_START.length, readme.indexOf(TABLE_END)).trim();
  assert.equal(current, parameterTableMarkdown(), 'the README table differs from the contract: run node --import tsx scripts/parameter-table.mjs');
  assert.equal(withParameterTable(readme), readme);
  // one row per parameter, each with its range and default as the contract has them
  const rows = current.split('\n').slice(2).map((line) => line.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, '').trim()));
  assert.deepEqual(rows.map((cells) => cells[0]), [...NUMERIC_PARAMS, ...MODEL_CHOICE_PARAMS, ...GRAMMAR_PARAMS].map((name) => `\`${name}\``));
  for (const name of GRAMMAR_PARAMS) {
    const cells = rows.find((row) => row[0] === `\`${name}\``)!;
    assert.equal(cells[1], `\`${GRAMMAR_PARAMETERS[name].cli.flag}\``);
    assert.equal(cells[6], `\`${GRAMMAR_PARAMETERS[name].default}\``, `${name}: default`);
    assert.ok(cells[5]!.includes('daily:&lt;days&gt;'), `${name}: grammar ${cells[5]}`);
  }
  for (const name of NUMERIC_PARAMS) {
    const cells = rows.find((row) => row[0] === `\`${name}\``)!;
    const p = NUMERIC_PARAMETERS[name];
    assert.ok(cells[5]!.startsWith(`${p.minimum}–${p.maximum}`), `${name}: range ${cells[5]}`);
    assert.ok(cells[6]!.startsWith(String(p.default)), `${name}: default ${cells[6]}`);
  }
});

test('the submit form schema (OpenAPI) states each range and default of the contract', () => {
  const properties = (SubmitForm as unknown as { properties: Record<string, Record<string, unknown>> }).properties;
  for (const name of NUMERIC_PARAMS) {
    const p = NUMERIC_PARAMETERS[name];
    const schema = properties[name]!;
    assert.deepEqual([schema.type, schema.minimum, schema.maximum, schema.default], [p.type, p.minimum, p.maximum, p.default], name);
    assert.ok(String(schema.description).includes(`${p.minimum}–${p.maximum}`), `${name}: ${schema.description}`);
  }
  for (const name of MODEL_CHOICE_PARAMS) {
    const schema = properties[name] as { anyOf: { const: string }[]; default: string };
    assert.deepEqual(schema.anyOf.map((value) => value.const), CHOICE_PARAMETERS[name].values, name);
    assert.equal(schema.default, CHOICE_PARAMETERS[name].default, name);
  }
  for (const name of GRAMMAR_PARAMS) {
    const schema = properties[name]!;
    assert.deepEqual([schema.type, schema.default], ['string', GRAMMAR_PARAMETERS[name].default], name);
    assert.ok(String(schema.description).includes(GRAMMAR_PARAMETERS[name].grammar), `${name}: ${schema.description}`);
  }
});

test('the OGC processes have the inputs of their workflow, with the schemas of the contract', () => {
  const processes = processDescriptions('0', false);
  for (const type of ['sol', 'eemt'] as const) {
    const inputs = processes[type].inputs;
    const expected = [...NUMERIC_PARAMS, ...MODEL_CHOICE_PARAMS, ...GRAMMAR_PARAMS].filter((name) =>
      (
        NUMERIC_PARAMETERS[name as NumericWorkflowParam] ??
        CHOICE_PARAMETERS[name as keyof typeof CHOICE_PARAMETERS] ??
        GRAMMAR_PARAMETERS[name as keyof typeof GRAMMAR_PARAMETERS]
      ).workflows.includes(type),
    );
    assert.deepEqual(Object.keys(inputs), ['dem', ...expected], type);
    for (const name of NUMERIC_PARAMS.filter((n) => expected.includes(n))) {
      const p = NUMERIC_PARAMETERS[name];
      assert.deepEqual(inputs[name]!.schema, { type: p.type, minimum: p.minimum, maximum: p.maximum, default: p.default }, `${type} ${name}`);
      assert.equal(inputs[name]!.title, p.title);
    }
    for (const name of MODEL_CHOICE_PARAMS.filter((n) => expected.includes(n))) {
      const p = CHOICE_PARAMETERS[name];
      assert.deepEqual(inputs[name]!.schema, { type: 'string', enum: p.values, default: p.default }, `${type} ${name}`);
    }
    for (const name of GRAMMAR_PARAMS.filter((n) => expected.includes(n))) {
      const p = GRAMMAR_PARAMETERS[name];
      assert.deepEqual(inputs[name]!.schema, { type: 'string', default: p.default }, `${type} ${name}`);
      assert.ok(inputs[name]!.description.includes(p.grammar), `${type} ${name}: ${inputs[name]!.description}`);
    }
  }
  assert.deepEqual(Object.keys(processes.sol.inputs), ['dem', 'step', 'linke_value', 'albedo_value', 'num_threads', 'products']);
});

function command(path: string[]): Command {
  let found = buildProgram();
  for (const name of path) found = found.commands.find((c) => c.name() === name)!;
  return found;
}

function option(cmd: Command, flag: string): Option {
  const found = cmd.options.find((o) => o.long === flag);
  assert.ok(found, `${cmd.name()} has ${flag}`);
  return found!;
}

test('the CLI options: the flags, ranges and defaults of the contract', () => {
  const cases: [string[], NumericWorkflowParam[]][] = [
    [['sol'], ['step', 'linke_value', 'albedo_value', 'num_threads']],
    [['eemt'], [...NUMERIC_PARAMS]],
    [['climate', 'prefetch'], ['start_year', 'end_year']],
  ];
  for (const [path, names] of cases) {
    const cmd = command(path);
    for (const name of names) {
      const p = NUMERIC_PARAMETERS[name];
      const o = option(cmd, p.cli.flag);
      const fallback = name === 'num_threads' ? Math.min(availableParallelism(), p.maximum) : p.default;
      assert.equal(o.defaultValue, fallback, `${path.join(' ')} ${p.cli.flag}`);
      assert.ok(o.description.includes(`${p.minimum}–${p.maximum}`), `${p.cli.flag}: ${o.description}`);
    }
  }
  assert.equal(option(command(['eemt']), '--end-year').description, 'last Daymet year, 1980–2024, not before --start-year');
  for (const name of MODEL_CHOICE_PARAMS) {
    const p = CHOICE_PARAMETERS[name];
    assert.ok(option(command(['eemt']), p.cli.flag).description.endsWith(`; default ${p.default}`), p.cli.flag);
    assert.equal(command(['sol']).options.find((o) => o.long === p.cli.flag), undefined, `sol has no ${p.cli.flag}`);
  }
  for (const name of GRAMMAR_PARAMS) {
    const p = GRAMMAR_PARAMETERS[name];
    for (const workflow of p.workflows) {
      const description = option(command([workflow]), p.cli.flag).description;
      assert.ok(description.includes(p.grammar) && description.endsWith(`; default ${p.default}`), `${workflow} ${p.cli.flag}: ${description}`);
    }
  }
});

/** The result of reading parameters, or the field and message of the refusal. */
function outcome(read: () => unknown): unknown {
  try {
    return { ok: read() };
  } catch (error) {
    assert.ok(error instanceof ParameterRangeError, String(error));
    return { field: error.field, message: error.message };
  }
}

test('typed values (OGC) and form text (/api) are read by the same rules: ranges, integers, defaults, years in order', () => {
  const types: WorkflowType[] = ['sol', 'eemt'];
  let refused = 0;
  for (const name of NUMERIC_PARAMS) {
    const { minimum, maximum, type } = NUMERIC_PARAMETERS[name];
    const candidates = [minimum, maximum, (minimum + maximum) / 2, minimum - 0.5, maximum + 0.5, minimum - 1, maximum + 1, 1e308, 1e-7];
    // the parameters ordered with this one (the years) at the ends of their ranges, so that any value of this one is in order
    const others: Partial<Record<NumericWorkflowParam, number>> = {};
    for (const other of NUMERIC_PARAMS) {
      if (NUMERIC_PARAMETERS[other].notBefore === name) others[other] = NUMERIC_PARAMETERS[other].maximum;
      if (NUMERIC_PARAMETERS[name].notBefore === other) others[other] = NUMERIC_PARAMETERS[other].minimum;
    }
    const othersText = Object.fromEntries(Object.entries(others).map(([key, value]) => [key, String(value)]));
    for (const value of candidates) {
      for (const workflow of types) {
        const typed = outcome(() => parametersFromValues(workflow, { ...others, [name]: value }));
        const text = outcome(() => parametersFromText(workflow, { ...othersText, [name]: String(value) }));
        const inRange = value >= minimum && value <= maximum && (type === 'number' || Number.isInteger(value));
        if (inRange) {
          assert.deepEqual(typed, text, `${workflow} ${name}=${value}`);
          const ok = (typed as { ok: Record<string, number> }).ok;
          if (NUMERIC_PARAMETERS[name].workflows.includes(workflow)) assert.equal(ok[name], value);
          else assert.equal(ok[name], undefined, `${workflow} drops ${name}`);
        } else {
          refused++;
          const t = typed as { field: string; message: string };
          assert.equal(t.field, name, `${workflow} ${name}=${value}`);
          assert.equal(t.message, `${name} must be ${type === 'integer' ? 'an integer' : 'a number'} from ${minimum} to ${maximum}, got ${value}`);
          // the form echoes the text it was sent for a non-integer, the number otherwise
          assert.equal((text as { message: string }).message.replace(`"${String(value)}"`, String(value)), t.message);
        }
      }
    }
  }
  assert.ok(refused > 40, `${refused} refusals checked`);
  // absent values are the defaults, the same either way
  assert.deepEqual(parametersFromValues('eemt', {}), parametersFromText('eemt', {}));
  assert.deepEqual(Object.keys(parametersFromValues('sol', {})), ['step', 'linke_value', 'albedo_value', 'num_threads', 'products']);
  // end_year before start_year: refused for eemt, not looked at for sol (which drops both)
  const reversed = { start_year: 2021, end_year: 2020 };
  assert.deepEqual(outcome(() => parametersFromValues('eemt', reversed)), {
    field: 'end_year',
    message: 'end_year (2020) must not be before start_year (2021)',
  });
  assert.deepEqual(outcome(() => parametersFromValues('sol', reversed)), outcome(() => parametersFromText('sol', { start_year: '2021', end_year: '2020' })));
  // model choices: the same list, white space trimmed, blank is the default
  assert.deepEqual(outcome(() => parametersFromValues('eemt', { pet_method: 'penman' })), {
    field: 'pet_method',
    message: 'pet_method (PET method of EEMT-Trad) must be one of thornthwaite, hamon, hamon-linear; got "penman"',
  });
  assert.equal((parametersFromValues('eemt', { topo_npp: ' lieth ', pet_method: '' }) as { topo_npp: string }).topo_npp, 'lieth');
  // grammar parameters: recorded normalised (the default when absent), the same either way; a bad item is named
  for (const workflow of types) {
    assert.equal(parametersFromText(workflow, {}).products, 'monthly,daily,hours');
    assert.equal(parametersFromValues(workflow, { products: ' hours:172, monthly ,daily:172' }).products, 'monthly,daily:172,hours:172');
  }
  for (const bad of ['', 'monthly,,daily', 'weekly', 'daily:366', 'hours:9-2']) {
    const typed = outcome(() => parametersFromValues('sol', { products: bad }));
    assert.deepEqual(outcome(() => parametersFromText('sol', { products: bad })), typed, bad);
    assert.equal((typed as { field: string }).field, 'products', bad);
  }
  assert.deepEqual(outcome(() => parametersFromText('eemt', { products: 'monthly,weekly' })), {
    field: 'products',
    message: `products: unknown item "weekly"; products is ${GRAMMAR_PARAMETERS.products.grammar}`,
  });
});
