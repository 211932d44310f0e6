import { describe, expect, it } from "vitest";
import { renderTemplate, type TemplateFormat } from "../../src/runtime/templates/render.ts";
import { RenderBudget, TemplateLimitError, type TemplateLimits } from "../../src/runtime/templates/render-budget.ts";
import { TemplateError } from "../../src/runtime/templates/template-error.ts";

const context = {
  name: "Ada",
  "user.name": "literal key",
  user: { name: "nested", tags: ["math", "engines"] },
  items: [{ n: "a", v: 1 }, { n: "b", v: 2 }],
  profile: { city: "London", "a/b": "slash", "m~n": "tilde" },
  count: 3,
  nothing: null,
  flag: false,
  inputs: { name: "Ada" },
};

const render = (format: TemplateFormat, template: string, ctx: Record<string, unknown> = context) => renderTemplate(format, template, ctx);

function renderError(format: TemplateFormat, template: string, ctx: Record<string, unknown> = context): TemplateError {
  try {
    render(format, template, ctx);
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    return error as TemplateError;
  }
  throw new Error(`expected ${JSON.stringify(template)} to fail`);
}

describe("curly", () => {
  it("trims placeholders and resolves dot paths, with a literal key winning", () => {
    expect(render("curly", "Hi {{name}} / {{  name  }}")).toBe("Hi Ada / Ada");
    expect(render("curly", "{{ user.name }}")).toBe("literal key");
    expect(render("curly", "{{ user.tags.1 }} {{ items.0.n }} {{ inputs.name }}")).toBe("engines a Ada");
  });

  it("resolves $ JSONPath and / JSON Pointer", () => {
    expect(render("curly", "{{ $.user.tags[0] }}|{{ $.items[-1].n }}|{{ $['profile']['city'] }}")).toBe("math|b|London");
    expect(render("curly", "{{ $.items[*].n }}|{{ $..v }}|{{ $.user.tags[0:1] }}")).toBe('["a","b"]|[1,2]|["math"]');
    expect(render("curly", "{{ /profile/city }}|{{ /profile/a~1b }}|{{ /profile/m~0n }}|{{ /items/1/v }}")).toBe("London|slash|tilde|2");
  });

  it("renders objects and lists as JSON and scalars as text", () => {
    expect(render("curly", "{{ user }}")).toBe('{"name":"nested","tags":["math","engines"]}');
    expect(render("curly", "{{ count }} {{ nothing }} {{ flag }}")).toBe("3 null false");
  });

  it("names every missing placeholder", () => {
    const error = renderError("curly", "{{ name }} {{ missing }} {{ user.age }} {{ $.nope }} {{ /no/pe }} {{ items.9 }}");
    expect(error.missing).toEqual(["missing", "user.age", "$.nope", "/no/pe", "items.9"]);
    expect(error.message).toContain("missing, user.age");
  });

  it("renders in a single pass, without escaping", () => {
    expect(render("curly", "{{ a }}", { a: "{{ b }} <b>&", b: "never" })).toBe("{{ b }} <b>&");
  });

  it("never reads prototypes", () => {
    expect(renderError("curly", "{{ __proto__ }} {{ constructor }} {{ name.length }} {{ user.toString }}").missing).toHaveLength(4);
    expect(renderError("curly", "{{ $.constructor }}").missing).toEqual(["$.constructor"]);
  });

  it("refuses JSONPath filter and script expressions", () => {
    expect(renderError("curly", "{{ $.items[?(@.v > 1)] }}").message).toMatch(/not supported/);
  });
});

describe("mustache", () => {
  it("renders variables, dotted names, sections and inverted sections without escaping", () => {
    const ctx = { name: "<Ada & co>", user: { name: "nested" }, items: [{ n: "a" }, { n: "b" }], empty: [], on: true };
    expect(render("mustache", "{{name}}|{{{name}}}|{{&name}}|{{user.name}}", ctx)).toBe("<Ada & co>|<Ada & co>|<Ada & co>|nested");
    expect(render("mustache", "{{#items}}[{{n}}]{{/items}}{{#on}}yes{{/on}}{{^empty}}none{{/empty}}{{#empty}}x{{/empty}}", ctx)).toBe("[a][b]yesnone");
    expect(render("mustache", "{{#user}}{{name}}{{/user}} {{#items}}{{.}}{{/items}}", { user: { name: "n" }, items: [1, 2] })).toBe("n 12");
  });

  it("renders missing names as empty and trims standalone tag lines", () => {
    expect(render("mustache", "a{{missing}}b{{missing.deep}}c{{! comment }}")).toBe("abc");
    expect(render("mustache", "List:\n{{#items}}\n- {{n}}\n{{/items}}\nEnd", context)).toBe("List:\n- a\n- b\nEnd");
  });

  it("never reads prototypes", () => {
    expect(render("mustache", "[{{constructor}}][{{#constructor}}x{{/constructor}}][{{name.length}}][{{__proto__}}]")).toBe("[][][][]");
  });

  it("rejects unbalanced sections", () => {
    expect(renderError("mustache", "{{#a}}x").message).toMatch(/Unclosed section/);
    expect(renderError("mustache", "{{#a}}x{{/b}}").message).toMatch(/Unexpected closing tag/);
  });
});

describe("fstring", () => {
  it("substitutes names and unescapes doubled braces", () => {
    expect(render("fstring", "Hi {name}, {{literal}} {profile.city} {items[1][n]}")).toBe("Hi Ada, {literal} London b");
  });

  it("names every missing field", () => {
    const error = renderError("fstring", "{name} {missing} {other}");
    expect(error.missing).toEqual(["missing", "other"]);
  });

  it("rejects malformed format strings", () => {
    expect(renderError("fstring", "a } b").missing).toEqual([]);
    expect(renderError("fstring", "a { b").message).toMatch(/Unclosed/);
  });
});

describe("jinja2", () => {
  it("renders variables, filters, conditions and loops", () => {
    const template = "{{ name|upper }} {{ name|lower }} {{ '  x '|trim }} {{ items|length }} {{ user.tags|join(', ') }} {{ missing|default('none') }}";
    expect(render("jinja2", template)).toBe("ADA ada x 2 math, engines none");
    expect(render("jinja2", "{% for i in items %}{{ loop.index }}:{{ i.n }}{% if not loop.last %}, {% endif %}{% endfor %}")).toBe("1:a, 2:b");
    expect(render("jinja2", "{% if count > 2 and name == 'Ada' %}big{% elif count %}small{% else %}none{% endif %}")).toBe("big");
    expect(render("jinja2", "{{ user|tojson }}")).toBe('{"name": "nested", "tags": ["math", "engines"]}');
    expect(render("jinja2", "{% for k, v in profile.items() %}{{ k }}={{ v }};{% endfor %}")).toBe("city=London;a/b=slash;m~n=tilde;");
    expect(render("jinja2", "{{ items|map(attribute='v')|sum }} {{ items|selectattr('v', 'gt', 1)|map(attribute='n')|first }}")).toBe("3 b");
  });

  it("supports set, namespace, whitespace control, raw and Python-like printing", () => {
    const template = "{% set ns = namespace(total=0) %}{% for i in range(4) -%}\n  {% set ns.total = ns.total + i %}\n{%- endfor %}{{ ns.total }}";
    expect(render("jinja2", template)).toBe("6");
    expect(render("jinja2", "{% raw %}{{ not rendered }}{% endraw %}")).toBe("{{ not rendered }}");
    expect(render("jinja2", "{{ [1, 'a', none, true] }} {{ {'k': 1} }} {{ nothing }} {{ flag }}")).toBe("[1, 'a', None, True] {'k': 1} None False");
  });

  it("renders undefined values as empty", () => {
    expect(render("jinja2", "[{{ missing }}][{{ missing.deep.path }}][{{ user.nope }}][{{ items[7] }}]")).toBe("[][][][]");
    expect(render("jinja2", "{% if missing is defined %}d{% else %}u{% endif %}")).toBe("u");
  });

  it("cannot reach prototypes, constructors, functions or the host", () => {
    const escapes = [
      "{{ ''.constructor.constructor('return process')() }}",
      "{{ ''.__class__.__mro__[1].__subclasses__() }}",
      "{{ x.__proto__.constructor('return process')() }}",
      "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
      "{{ range.constructor('return this')() }}",
      "{{ name.toString() }}",
      "{{ self.__init__.__globals__ }}",
      "{{ lipsum.__globals__['os'] }}",
    ];
    for (const template of escapes) {
      let output = "";
      try {
        output = render("jinja2", template);
      } catch (error) {
        expect(error).toBeInstanceOf(TemplateError);
      }
      expect(output).toBe("");
    }
    expect(render("jinja2", "[{{ x.__proto__ }}][{{ user.__proto__ }}][{{ user['constructor'] }}][{{ name.constructor }}][{{ items.constructor }}][{{ range }}]")).toBe("[][][][][][]");
    expect(render("jinja2", "{{ user.__proto__ is defined }} {{ 'polluted' in user }}")).toBe("False False");
  });

  it("keeps data a dict literal puts under __proto__ as plain data", () => {
    expect(render("jinja2", "{% set d = {'__proto__': {'x': 1}} %}{{ d.x }}|{{ d['__proto__'].x }}")).toBe("|1");
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("refuses nesting too deep to parse", () => {
    expect(renderError("jinja2", `{{ ${"(".repeat(5000)}1${")".repeat(5000)} }}`).message).toMatch(/too deep|nested/);
  });

  it("reports syntax errors and unknown filters", () => {
    expect(renderError("jinja2", "{% if x %}unclosed").message).toMatch(/endif/);
    expect(renderError("jinja2", "{{ x|shell }}").message).toMatch(/Unknown filter 'shell'/);
    expect(renderError("jinja2", "{% import 'os' as os %}").message).toMatch(/Unsupported tag/);
  });
});

/** Renders with a budget of its own and returns the limit it hit, with the budget as it stood then. */
function exhaust(format: TemplateFormat, template: string, ctx: Record<string, unknown>, limits?: TemplateLimits) {
  const budget = new RenderBudget(limits);
  try {
    renderTemplate(format, template, ctx, budget);
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateLimitError);
    return { error: error as TemplateLimitError, budget };
  }
  throw new Error(`expected ${JSON.stringify(template.slice(0, 80))} to exceed its budget`);
}

const BYTES = "TESSERA_TEMPLATE_MAX_BYTES";
const STEPS = "TESSERA_TEMPLATE_MAX_STEPS";
const thousand = Array.from({ length: 1000 }, (_, i) => i);
const tenKb = "a".repeat(10_000);

describe("the rendering budget", () => {
  it("stops the nested-section bomb after its step budget, having written next to nothing", () => {
    const { error, budget } = exhaust("mustache", "{{#x}}{{#x}}{{#x}}y{{/x}}{{/x}}{{/x}}", { x: thousand });
    expect(error.variable).toBe(STEPS);
    expect(error.message).toMatch(/TESSERA_TEMPLATE_MAX_STEPS \(1000000 steps\)/);
    expect(budget.bytes).toBeLessThan(1_000_000);
  });

  it("caps the output of every format while it is written, never past the cap", () => {
    const cases: [TemplateFormat, string][] = [
      ["curly", "{{ x }}".repeat(200)],
      ["mustache", "{{x}}".repeat(200)],
      ["fstring", "{x}".repeat(200)],
      ["jinja2", "{% for i in range(200) %}{{ x }}{% endfor %}"],
    ];
    for (const [format, template] of cases) {
      const { error, budget } = exhaust(format, template, { x: tenKb }, { maxBytes: 100_000, maxSteps: 1_000_000 });
      expect(error.variable, format).toBe(BYTES);
      expect(error.message).toContain("TESSERA_TEMPLATE_MAX_BYTES (100000 bytes");
      expect(budget.bytes, format).toBeLessThanOrEqual(100_000);
    }
  });

  it("counts rendered bytes as UTF-8", () => {
    const { error } = exhaust("curly", "{{ x }}", { x: "é".repeat(600) }, { maxBytes: 1000, maxSteps: 1000 });
    expect(error.variable).toBe(BYTES);
    expect(render("curly", "{{ x }}", { x: "é".repeat(400) })).toHaveLength(400);
  });

  it("caps work: sections, loops and placeholders all spend steps", () => {
    const limits = { maxBytes: 1_000_000, maxSteps: 5_000 };
    expect(exhaust("mustache", "{{#x}}{{^y}}{{/y}}{{/x}}", { x: thousand.concat(thousand, thousand) }, limits).error.variable).toBe(STEPS);
    expect(exhaust("curly", "{{ x }}".repeat(6_000), { x: "" }, limits).error.variable).toBe(STEPS);
    expect(exhaust("fstring", "{x}".repeat(6_000), { x: "" }, limits).error.variable).toBe(STEPS);
    expect(exhaust("jinja2", "{% for i in x %}{% for j in x %}{% endfor %}{% endfor %}", { x: thousand }, limits).error.variable).toBe(STEPS);
  });

  it("prices JSONPath walks and serialised objects by their size", () => {
    const wide = { rows: Array.from({ length: 2000 }, (_, i) => ({ i, tags: ["a", "b"] })) };
    const limits = { maxBytes: 10_000_000, maxSteps: 5_000 };
    expect(exhaust("curly", "{{ $..tags }}", wide, limits).error.variable).toBe(STEPS);
    expect(exhaust("curly", "{{ rows }}", wide, limits).error.variable).toBe(STEPS);
    expect(exhaust("mustache", "{{ rows }}", wide, { maxBytes: 1_000, maxSteps: 1_000_000 }).error.variable).toBe(BYTES);
  });

  it("refuses jinja values before building them: repetition, range, concatenation, join", () => {
    expect(exhaust("jinja2", "{{ 'x' * 10**9 }}", {}).error.variable).toBe(BYTES);
    expect(exhaust("jinja2", "{{ [1] * 10**9 }}", {}).error.variable).toBe(STEPS);
    expect(exhaust("jinja2", "{% for i in range(10**9) %}{% endfor %}", {}).error.variable).toBe(STEPS);
    expect(exhaust("jinja2", "{{ range(10**9)|length }}", {}).error.variable).toBe(STEPS);
    expect(exhaust("jinja2", "{{ range(1000)|join('y' * 5000) }}", {}).error.variable).toBe(BYTES);
    expect(exhaust("jinja2", "{{ ([x] * 1000)|join(',') }}", { x: thousand }).error.variable).toBe(BYTES);
    expect(exhaust("jinja2", "{{ [x] * 1000 }}", { x: thousand }).error.variable).toBe(BYTES);
    expect(exhaust("jinja2", "{{ ([x] * 1000)|tojson }}", { x: thousand }).error.variable).toBe(BYTES);
    expect(exhaust("jinja2", "{{ x|replace('a', x) }}", { x: tenKb }).error.variable).toBe(BYTES);
    expect(exhaust("jinja2", "{{ x|center(10**8) }}", { x: "a" }).error.variable).toBe(BYTES);
  });

  it("prices jinja work that reads big values: accumulation, comparison, string walks, unique", () => {
    const grow = "{% set ns = namespace(s='') %}{% for i in range(100000) %}{% set ns.s = ns.s ~ 'xxxxxxxxxx' %}{% endfor %}";
    expect(exhaust("jinja2", grow, {}).error.variable).toBe(STEPS);
    const big = Array.from({ length: 100_000 }, (_, i) => i);
    expect(exhaust("jinja2", "{% for i in range(100) %}{% if x == y %}{% endif %}{% endfor %}", { x: big, y: [...big] }).error.variable).toBe(STEPS);
    expect(exhaust("jinja2", "{% for i in range(100) %}{{ x|list|length }}{% endfor %}", { x: "a".repeat(100_000) }).error.variable).toBe(STEPS);
    const document = "word ".repeat(200_000);
    for (const reader of ["{{ x|wordcount }}", "{{ x.count('w') }}", "{% if x == y %}{% endif %}", "{% if x < y %}{% endif %}"]) {
      expect(exhaust("jinja2", `{% for i in range(300) %}${reader}{% endfor %}`, { x: document, y: `${document}!` }).error.variable, reader).toBe(STEPS);
    }
    expect(render("jinja2", "{{ range(20000)|unique|list|length }}", {})).toBe("20000");
  });

  it("renders large but legal prompts", () => {
    const document = "word ".repeat(100_000);
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ q: `question ${i}`, a: `answer ${i}` }));
    expect(render("curly", "Summarise:\n{{ document }}", { document })).toHaveLength(document.length + 11);
    expect(render("fstring", "Summarise:\n{document}", { document })).toHaveLength(document.length + 11);
    const mustache = render("mustache", "{{#rows}}Q: {{q}}\nA: {{a}}\n{{/rows}}", { rows });
    expect(mustache.split("\n")).toHaveLength(10_001);
    const jinja = render("jinja2", "{% for r in rows %}{{ loop.index }}. {{ r.q|upper }} -> {{ r.a }}\n{% endfor %}", { rows });
    expect(jinja).toContain("5000. QUESTION 4999 -> answer 4999");
  });

  it("reads long templates in one pass: unclosed braces and long blank runs are not rescanned", () => {
    expect(render("curly", "{{".repeat(100_000), {})).toHaveLength(200_000);
    expect(render("jinja2", `x${" ".repeat(100_000)}{{- 1 }}`, {})).toBe("x1");
    expect(render("jinja2", `${" ".repeat(100_000)}x{{- 1 }}`, {})).toHaveLength(100_002);
    expect(render("mustache", `${" ".repeat(100_000)}x{{#a}}{{/a}}\n`, { a: [] })).toHaveLength(100_002);
    expect(render("mustache", "a\n  {{#a}}  \r\nb\n{{/a}}", { a: [1] })).toBe("a\nb\n");
  });

  it("charges parsing too: a template of a million tags runs out of steps", () => {
    expect(exhaust("jinja2", "{{ 1 }}".repeat(300_000), {}).error.variable).toBe(STEPS);
    expect(exhaust("mustache", "{{!}}".repeat(1_100_000), {}).error.variable).toBe(STEPS);
  });

  it("shares one budget across everything rendered with it", () => {
    const budget = new RenderBudget({ maxBytes: 25_000, maxSteps: 1_000_000 });
    expect(renderTemplate("curly", "{{ x }}", { x: tenKb }, budget)).toHaveLength(10_000);
    expect(renderTemplate("jinja2", "{{ x }}", { x: tenKb }, budget)).toHaveLength(10_000);
    expect(() => renderTemplate("mustache", "{{ x }}", { x: tenKb }, budget)).toThrow(/TESSERA_TEMPLATE_MAX_BYTES/);
  });
});
