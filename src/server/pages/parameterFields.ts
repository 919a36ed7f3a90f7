/**
 * The submit page's parameter fields from the parameter contract (workflows/parameters/contract.ts), so the page
 * states no range or default of its own: `{{<parameter>.<field>}}` placeholders in the HTML (field `minimum`,
 * `maximum`, `formMaximum` or `default` of a numeric parameter; `default` or `grammar` of a grammar parameter, HTML-escaped)
 * are filled in, and in each model choice's `<select name="…">` the contract's default option is the selected one. A
 * placeholder naming no parameter or field fails at start-up.
 */
import { CHOICE_PARAMETERS, GRAMMAR_PARAMETERS, isGrammarParameter, MODEL_CHOICE_PARAMS, NUMERIC_PARAMETERS, NUMERIC_PARAMS } from '../../workflows/parameters/contract.js';
import type { NumericWorkflowParam } from '../../workflows/types.js';

const FIELDS = ['minimum', 'maximum', 'formMaximum', 'default'] as const;
const GRAMMAR_FIELDS = ['default', 'grammar'] as const;

const escapedHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The value of placeholder field `field` of parameter `name`, or undefined when the contract has none. */
function fieldValue(name: string, field: string): string | undefined {
  if (isGrammarParameter(name)) {
    return (GRAMMAR_FIELDS as readonly string[]).includes(field) ? escapedHtml(GRAMMAR_PARAMETERS[name][field as (typeof GRAMMAR_FIELDS)[number]]) : undefined;
  }
  const parameter = (NUMERIC_PARAMS as string[]).includes(name) ? NUMERIC_PARAMETERS[name as NumericWorkflowParam] : undefined;
  const value = parameter && (FIELDS as readonly string[]).includes(field) ? parameter[field as (typeof FIELDS)[number]] : undefined;
  return value === undefined ? undefined : String(value);
}

/** `html` with its parameter placeholders filled in and the model choices' defaults selected. */
export function fillParameterFields(html: string): string {
  const filled = html.replace(/\{\{([a-z_]+)\.([A-Za-z]+)\}\}/g, (placeholder, name: string, field: string) => {
    const value = fieldValue(name, field);
    if (value === undefined) throw new Error(`pages: ${placeholder} names no parameter field of the contract`);
    return value;
  });
  let selected = filled;
  for (const name of MODEL_CHOICE_PARAMS) {
    const select = new RegExp(`(<select[^>]*\\bname="${name}"[^>]*>)([\\s\\S]*?)(</select>)`);
    const match = select.exec(selected);
    if (!match) continue;
    const options = match[2]!.replace(/ selected(?=>)/g, '').replace(`<option value="${CHOICE_PARAMETERS[name].default}">`, `<option value="${CHOICE_PARAMETERS[name].default}" selected>`);
    selected = selected.replace(select, `${match[1]}${options}${match[3]}`);
  }
  return selected;
}
