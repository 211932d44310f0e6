import { renderTemplate } from "./src/runtime/templates/render.ts";
const n = Number(process.argv[2]);
const cases: [string, string][] = [
  ["curly", "{{".repeat(n)],
  ["mustache", "{{!}}".repeat(n)],
  ["mustache", "{{#a}}{{/a}}".repeat(n / 2)],
  ["jinja2", "{{".repeat(n)],
  ["jinja2", "{%".repeat(n)],
  ["jinja2", "{#".repeat(n)],
  ["jinja2", "{{ 'a".repeat(n)],
  ["fstring", "{".repeat(n)],
];
for (const [f, t] of cases) {
  const s = performance.now();
  let out: string;
  try { out = "ok " + renderTemplate(f as never, t, { a: [] }).length; } catch (e) { out = (e as Error).name + ": " + (e as Error).message; }
  console.log(f, t.slice(0, 20), t.length, (performance.now() - s).toFixed(0) + "ms", out.slice(0, 120));
}
