#!/usr/bin/env node
// Rewrites the run-parameter table of README.md from the parameter contract (src/workflows/parameters/contract.ts).
// Usage: node --import tsx scripts/parameter-table.mjs   (prints the table and whether README.md changed)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { withParameterTable, parameterTableMarkdown } = await import('../src/workflows/parameters/markdownTable.ts');
const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
const before = readFileSync(readmePath, 'utf8');
const after = withParameterTable(before);
process.stdout.write(`${parameterTableMarkdown()}\n`);
if (after === before) {
  process.stdout.write('README.md: the table is current\n');
} else {
  writeFileSync(readmePath, after);
  process.stdout.write('README.md: table rewritten\n');
}
