import { describe, expect, it } from "vitest";
import { renderTemplate, type TemplateFormat } from "../../src/runtime/templates/render.ts";
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

  it("bounds runaway templates", () => {
    expect(renderError("jinja2", "{% for i in range(1000000000) %}x{% endfor %}").message).toMatch(/limited/);
    expect(renderError("jinja2", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}").message).toMatch(/budget/);
    expect(renderError("jinja2", "{{ 'x' * 100000000 }}").message).toMatch(/too large/);
    expect(renderError("jinja2", `{{ ${"(".repeat(5000)}1${")".repeat(5000)} }}`).message).toMatch(/too deep|nested/);
  });

  it("reports syntax errors and unknown filters", () => {
    expect(renderError("jinja2", "{% if x %}unclosed").message).toMatch(/endif/);
    expect(renderError("jinja2", "{{ x|shell }}").message).toMatch(/Unknown filter 'shell'/);
    expect(renderError("jinja2", "{% import 'os' as os %}").message).toMatch(/Unsupported tag/);
  });
});
