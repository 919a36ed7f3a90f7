/**
 * The README's table of the run parameters, written from the contract (contract.ts). The README holds it between
 * the markers below; `node --import tsx scripts/parameter-table.mjs` rewrites it there, and
 * test/workflows/parameterContract.test.ts fails when the two differ.
 */
import { CHOICE_PARAMETERS, GRAMMAR_PARAMETERS, GRAMMAR_PARAMS, MODEL_CHOICE_PARAMS, NUMERIC_PARAMETERS, NUMERIC_PARAMS, rangeText } from './contract.js';

export const TABLE_START = '<!-- run-parameters: generated from src/workflows/parameters/contract.ts by scripts/parameter-table.mjs -->';
export const TABLE_END = '<!-- /run-parameters -->';

const code = (text: string) => `\`${text}\``;

/** The table in Markdown (no markers), one row per parameter: numeric ones first, then the model choices, then the grammar parameters. */
export function parameterTableMarkdown(): string {
  const rows = [
    '| parameter | CLI flag | workflows | type | unit | range or values | default | what |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  for (const name of NUMERIC_PARAMS) {
    const p = NUMERIC_PARAMETERS[name];
    const range = `${rangeText(name)}${p.notBefore === undefined ? '' : `, not before ${code(p.notBefore)}`}`;
    const fallback = `${p.default}${p.cli.defaultInWords === undefined ? '' : ` (CLI: ${p.cli.defaultInWords})`}`;
    rows.push(row([code(name), code(p.cli.flag), p.workflows.join(', '), p.type, p.unit ?? '', range, fallback, `${p.label}${p.note ?? ''}`]));
  }
  for (const name of MODEL_CHOICE_PARAMS) {
    const p = CHOICE_PARAMETERS[name];
    rows.push(row([code(name), code(p.cli.flag), p.workflows.join(', '), 'string', '', p.values.map(code).join(', '), code(p.default), p.title]));
  }
  for (const name of GRAMMAR_PARAMS) {
    const p = GRAMMAR_PARAMETERS[name];
    rows.push(row([code(name), code(p.cli.flag), p.workflows.join(', '), 'string', '', p.grammar.replace(/<([a-z]+)>/g, '&lt;$1&gt;').replace(/\|/g, '\\|'), code(p.default), `${p.title} (e.g. ${code(p.example)})`]));
  }
  return rows.join('\n');
}

/** `readme` with the text between the markers replaced by the current table; throws when the markers are missing. */
export function withParameterTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no run-parameter table between ${TABLE_START} and ${TABLE_END}`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${parameterTableMarkdown()}\n${readme.slice(end)}`;
}
