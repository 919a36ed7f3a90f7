// The submit page states the parameter contract's ranges and defaults, not numbers of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fillParameterFields } from '../../src/server/pages/parameterFields.js';
import { CHOICE_PARAMETERS, GRAMMAR_PARAMETERS, GRAMMAR_PARAMS, MODEL_CHOICE_PARAMS, NUMERIC_PARAMETERS, NUMERIC_PARAMS } from '../../src/workflows/parameters/contract.js';

const TEMPLATE = readFileSync(new URL('../../public/index.html', import.meta.url), 'utf8');
const page = fillParameterFields(TEMPLATE);

/** The attributes of the input named `name` in `html`. */
function inputAttributes(html: string, name: string): Record<string, string> {
  const tag = new RegExp(`<input[^>]*\\bname="${name}"[^>]*>`).exec(html)?.[0];
  assert.ok(tag, `an input named ${name}`);
  return Object.fromEntries([...tag.matchAll(/\b([a-z-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

test('every numeric field takes its minimum, maximum (the form maximum of the step) and default from the contract', () => {
  for (const name of NUMERIC_PARAMS) {
    const parameter = NUMERIC_PARAMETERS[name];
    const input = inputAttributes(page, name);
    assert.equal(Number(input.min), parameter.minimum, `${name} min`);
    assert.equal(Number(input.max), parameter.formMaximum ?? parameter.maximum, `${name} max`);
    assert.equal(Number(input.value), parameter.default, `${name} default`);
    // the page file itself holds placeholders, not numbers
    const raw = inputAttributes(TEMPLATE, name);
    for (const attribute of ['min', 'max', 'value']) assert.match(raw[attribute]!, /^\{\{[a-z_]+\.[A-Za-z]+\}\}$/, `${name} ${attribute}`);
  }
  assert.equal(NUMERIC_PARAMETERS.step.formMaximum, 15, 'the browser form offers a time step of 3–15 minutes (the contract)');
  assert.doesNotMatch(page, /\{\{/, 'no placeholder is left');
});

test("each model choice's default option is the one selected, and only it", () => {
  for (const name of MODEL_CHOICE_PARAMS) {
    const select = new RegExp(`<select[^>]*\\bname="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(page)?.[1];
    assert.ok(select, `a select named ${name}`);
    const selected = [...select.matchAll(/<option value="([^"]+)" selected>/g)].map((m) => m[1]);
    assert.deepEqual(selected, [CHOICE_PARAMETERS[name].default], name);
    const values = [...select.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual([...values].sort(), [...CHOICE_PARAMETERS[name].values].sort(), `${name} offers every value`);
  }
});

test('each grammar parameter is a text field with its default and its grammar in the hint, from the contract', () => {
  for (const name of GRAMMAR_PARAMS) {
    const parameter = GRAMMAR_PARAMETERS[name];
    const input = inputAttributes(page, name);
    assert.equal(input.type, 'text', name);
    assert.equal(input.value, parameter.default, `${name} default`);
    assert.equal(inputAttributes(TEMPLATE, name).value, `{{${name}.default}}`);
    const hint = new RegExp(`<p class="hint" id="${name}-hint">([\\s\\S]*?)</p>`).exec(page)?.[1]?.replace(/\s+/g, ' ');
    const escaped = parameter.grammar.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    assert.ok(hint?.includes(escaped), `${name} hint: ${hint}`);
  }
  assert.throws(() => fillParameterFields('<input value="{{products.minimum}}">'), /names no parameter field/);
});

test('a placeholder naming no parameter field is refused', () => {
  assert.throws(() => fillParameterFields('<input value="{{step.maximal}}">'), /\{\{step\.maximal\}\} names no parameter field/);
  assert.throws(() => fillParameterFields('<input value="{{steps.default}}">'), /names no parameter field/);
});
