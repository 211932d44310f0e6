import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPresets, listTemplates, listTypes, schemasForUri, templateByKey, templateForUri } from "../src/catalog/lookup.ts";
import { APPLICATION_ENTRIES } from "../src/catalog/application-templates.ts";
import { EVALUATOR_ENTRIES } from "../src/catalog/evaluator-templates.ts";
import { catalogRoutes } from "../src/catalog/routes.ts";

let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify();
  await app.register(catalogRoutes, { prefix: "/api" });
  await app.ready();
});

afterAll(async () => {
  await app.close();
});

async function get(url: string): Promise<any> {
  const response = await app.inject({ method: "GET", url });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json();
}

const EVALUATOR_KEYS = [
  "auto_exact_match", "auto_contains_json", "auto_regex_test", "field_match_test", "auto_json_diff",
  "auto_similarity_match", "auto_semantic_similarity", "auto_levenshtein_distance", "auto_starts_with",
  "auto_ends_with", "auto_contains", "auto_contains_any", "auto_contains_all", "auto_custom_code_run",
  "auto_webhook_test", "auto_ai_critique",
];

describe("application catalog", () => {
  it("lists the five application templates with their flags and data", async () => {
    const body = await get("/api/applications/catalog/templates/");
    expect(body.count).toBe(body.templates.length);
    expect(body.templates.map((t: any) => t.key).sort()).toEqual(["chat", "code", "completion", "hook", "mock"]);
    for (const t of body.templates) {
      expect(t.flags.is_application).toBe(true);
      expect(Object.keys(t.flags).sort()).toEqual(["is_application", "is_archived", "is_evaluator", "is_recommended", "is_snippet"]);
      expect(t.data.uri).toMatch(/^agenta:(builtin|custom):[a-z_]+:v0$/);
    }
  });

  it("serves the completion template: uri, schemas and default prompt", async () => {
    const { count, template } = await get("/api/applications/catalog/templates/completion");
    expect(count).toBe(1);
    expect(template.data.uri).toBe("agenta:builtin:completion:v0");
    expect(template.data.schemas.parameters.properties.prompt["x-ag-type-ref"]).toBe("prompt-template");
    expect(template.data.schemas.inputs).toMatchObject({ type: "object", additionalProperties: true });
    expect(template.data.schemas.outputs.type).toEqual(expect.arrayContaining(["string", "object"]));
    const prompt = template.data.parameters.prompt;
    expect(prompt.messages.map((m: any) => m.role)).toEqual(["system", "user"]);
    expect(prompt.messages[1].content).toContain("{{country}}");
    expect(prompt.template_format).toBe("curly");
    expect(prompt.llm_config).toEqual({ model: "gpt-4o-mini" });
  });

  it("gives chat a messages input and a message output", async () => {
    const { template } = await get("/api/applications/catalog/templates/chat");
    expect(template.data.uri).toBe("agenta:builtin:chat:v0");
    expect(template.data.schemas.inputs.properties.messages.type).toBe("array");
    const outputs = template.data.schemas.outputs;
    expect(outputs["x-ag-type-ref"]).toBe("message");
    expect(outputs.type).toBe("object");
    expect(Object.keys(outputs.properties)).toEqual(expect.arrayContaining(["role", "content", "tool_calls"]));
    expect(outputs.required).toEqual(["role"]);
  });

  it("gives the code template a default JavaScript script", async () => {
    const { template } = await get("/api/applications/catalog/templates/code");
    expect(template.data.uri).toBe("agenta:custom:code:v0");
    expect(template.data.runtime).toBe("javascript");
    expect(template.data.script).toMatch(/function run\(inputs, parameters\)/);
    const hook = (await get("/api/applications/catalog/templates/hook")).template;
    expect(hook.data.uri).toBe("agenta:custom:hook:v0");
  });

  it("serves presets and single presets", async () => {
    const completion = await get("/api/applications/catalog/templates/completion/presets/");
    expect(completion.presets.map((p: any) => p.key)).toEqual(expect.arrayContaining(["default", "capital-city"]));
    expect(completion.count).toBe(completion.presets.length);
    const { count, preset } = await get("/api/applications/catalog/templates/chat/presets/assistant");
    expect(count).toBe(1);
    expect(preset).toMatchObject({ key: "assistant", data: { uri: "agenta:builtin:chat:v0" } });
    expect(preset.data.parameters.prompt.messages[0].role).toBe("system");
    for (const key of ["completion", "chat", "hook", "code"]) {
      expect((await get(`/api/applications/catalog/templates/${key}/presets/`)).count).toBeGreaterThan(0);
    }
  });

  it("answers count 0 for unknown keys instead of 404", async () => {
    expect(await get("/api/applications/catalog/templates/nope")).toEqual({ count: 0 });
    expect(await get("/api/applications/catalog/templates/completion/presets/nope")).toEqual({ count: 0 });
    expect(await get("/api/applications/catalog/templates/nope/presets/")).toEqual({ count: 0, presets: [] });
    // An evaluator is not an application template.
    expect(await get("/api/applications/catalog/templates/auto_exact_match")).toEqual({ count: 0 });
  });
});

describe("evaluator catalog", () => {
  it("lists every built-in evaluator with schemas", async () => {
    const body = await get("/api/evaluators/catalog/templates/");
    const keys = body.templates.map((t: any) => t.key);
    expect(keys).toEqual(expect.arrayContaining(EVALUATOR_KEYS));
    expect(keys).not.toContain("completion");
    for (const t of body.templates) {
      expect(t.flags.is_evaluator).toBe(true);
      if (!EVALUATOR_KEYS.includes(t.key)) continue;
      expect(t.data.uri).toBe(`agenta:builtin:${t.key}:v0`);
      expect(t.data.schemas.parameters.type).toBe("object");
      expect(t.data.schemas.outputs.properties.success).toEqual({ type: "boolean" });
    }
  });

  it("describes parameters and defaults", async () => {
    const exact = (await get("/api/evaluators/catalog/templates/auto_exact_match")).template;
    expect(exact.data.schemas.parameters.properties.correct_answer_key.default).toBe("correct_answer");
    expect(exact.data.parameters).toEqual({ correct_answer_key: "correct_answer" });
    const regex = (await get("/api/evaluators/catalog/templates/auto_regex_test")).template;
    expect(Object.keys(regex.data.schemas.parameters.properties)).toEqual(
      expect.arrayContaining(["regex_pattern", "regex_should_match", "correct_answer_key"]),
    );
    expect(regex.data.schemas.parameters.required).toEqual(["regex_pattern"]);
    const levenshtein = (await get("/api/evaluators/catalog/templates/auto_levenshtein_distance")).template;
    expect(levenshtein.data.schemas.outputs.properties).toEqual({ score: { type: "number" }, success: { type: "boolean" } });
    const webhook = (await get("/api/evaluators/catalog/templates/auto_webhook_test")).template;
    expect(webhook.data.schemas.parameters.required).toEqual(["webhook_url"]);
  });

  it("ships LLM-as-a-judge presets", async () => {
    const judge = (await get("/api/evaluators/catalog/templates/auto_ai_critique")).template;
    const props = judge.data.schemas.parameters.properties;
    expect(props.prompt_template["x-ag-type-ref"]).toBe("messages");
    expect(props.model["x-ag-type"]).toBe("grouped_choice");
    expect(Object.keys(props)).toEqual(expect.arrayContaining(["prompt_template", "model", "correct_answer_key", "threshold"]));
    expect(judge.data.parameters.prompt_template.length).toBeGreaterThan(0);
    const { presets } = await get("/api/evaluators/catalog/templates/auto_ai_critique/presets/");
    expect(presets.map((p: any) => p.key)).toEqual(expect.arrayContaining(["default", "hallucination", "relevance", "conciseness"]));
    const { preset } = await get("/api/evaluators/catalog/templates/auto_ai_critique/presets/hallucination");
    expect(preset.data.uri).toBe("agenta:builtin:auto_ai_critique:v0");
    expect(preset.data.parameters.prompt_template[0].content).toMatch(/hallucination/i);
  });

  it("serves the legacy template list from the same data", async () => {
    const body = await get("/api/simple/evaluators/templates");
    expect(body.count).toBe(body.templates.length);
    expect(body.templates.map((t: any) => t.key)).toEqual(expect.arrayContaining(EVALUATOR_KEYS));
    const exact = body.templates.find((t: any) => t.key === "auto_exact_match");
    expect(exact).toMatchObject({
      name: "Exact Match",
      direct_use: true,
      oss: true,
      requires_llm_api_keys: false,
      archived: false,
      outputs_schema: { type: "object", properties: { success: { type: "boolean" } } },
    });
    expect(exact.settings_template.correct_answer_key).toMatchObject({ type: "string", default: "correct_answer", advanced: true, ground_truth_key: true });
    const judge = body.templates.find((t: any) => t.key === "auto_ai_critique");
    expect(judge.requires_llm_api_keys).toBe(true);
    expect(judge.settings_template.prompt_template.type).toBe("messages");
    expect(judge.settings_template.model).toMatchObject({ type: "multiple_choice", default: "gpt-4o-mini" });
    expect(judge.settings_template.model.options).toContain("gpt-4o-mini");
    expect(judge.settings_presets.map((p: any) => p.key)).toContain("hallucination");
    const hallucination = judge.settings_presets.find((p: any) => p.key === "hallucination");
    expect(hallucination.values.prompt_template.length).toBe(2);
    const catalogJudge = (await get("/api/evaluators/catalog/templates/auto_ai_critique")).template;
    expect(judge.settings_template.prompt_template.default).toEqual(catalogJudge.data.parameters.prompt_template);
    const regex = body.templates.find((t: any) => t.key === "auto_regex_test");
    expect(regex.settings_template.regex_pattern).toMatchObject({ type: "regex", required: true });
    expect(regex.settings_template.regex_should_match).toMatchObject({ type: "boolean", default: true });
  });
});

describe("workflow catalog", () => {
  it("lists all templates and filters by flags", async () => {
    const all = await get("/api/workflows/catalog/templates/");
    const keys = all.templates.map((t: any) => t.key);
    expect(keys).toEqual(expect.arrayContaining(["completion", "chat", "hook", "code", ...EVALUATOR_KEYS]));
    const apps = await get("/api/workflows/catalog/templates/?is_application=true");
    expect(apps.templates.every((t: any) => t.flags.is_application)).toBe(true);
    expect(apps.templates.map((t: any) => t.key)).toContain("completion");
    const onlyEvaluators = await get("/api/workflows/catalog/templates/?is_application=false&is_evaluator=true");
    expect(onlyEvaluators.templates.map((t: any) => t.key).sort()).toEqual([...EVALUATOR_KEYS].sort());
    expect((await get("/api/workflows/catalog/templates/?is_snippet=true")).count).toBe(0);
    expect((await get("/api/workflows/catalog/templates/?include_archived=true")).count).toBeGreaterThanOrEqual(all.count);
  });

  it("rejects a non-boolean filter", async () => {
    const response = await app.inject({ method: "GET", url: "/api/workflows/catalog/templates/?is_application=maybe" });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
  });

  it("serves evaluator presets through the workflow family too", async () => {
    const { count, preset } = await get("/api/workflows/catalog/templates/auto_ai_critique/presets/relevance");
    expect(count).toBe(1);
    expect(preset.key).toBe("relevance");
  });

  it("lists the shared types, with models grouped by provider", async () => {
    const body = await get("/api/workflows/catalog/types/");
    const keys = body.types.map((t: any) => t.key);
    expect(keys).toEqual(expect.arrayContaining(["message", "messages", "model", "prompt-template", "tools", "tool", "response-format", "llm-config"]));
    expect(body.count).toBe(body.types.length);
    const model = body.types.find((t: any) => t.key === "model").json_schema;
    expect(model["x-ag-type"]).toBe("grouped_choice");
    expect(Object.keys(model.choices)).toEqual(expect.arrayContaining(["openai", "anthropic", "gemini", "mistral", "groq"]));
    expect(model.choices.openai).toContain("gpt-4o-mini");
    for (const family of ["applications", "evaluators"]) {
      expect((await get(`/api/${family}/catalog/types/`)).count).toBe(body.count);
    }
  });

  it("serves one type by key, with the prompt-template shape", async () => {
    const { count, type } = await get("/api/workflows/catalog/types/prompt-template");
    expect(count).toBe(1);
    const schema = type.json_schema;
    expect(schema["x-ag-type"]).toBe("prompt-template");
    expect(schema.properties.template_format.enum).toEqual(["curly", "fstring", "jinja2", "mustache"]);
    expect(schema.properties.messages.type).toBe("array");
    expect(schema.properties.input_keys).toBeDefined();
    const llm = schema.properties.llm_config.properties;
    expect(llm.temperature).toMatchObject({ minimum: 0, maximum: 2 });
    expect(llm.top_p).toMatchObject({ minimum: 0, maximum: 1 });
    expect(llm.frequency_penalty).toMatchObject({ minimum: -2, maximum: 2 });
    expect(llm.presence_penalty).toMatchObject({ minimum: -2, maximum: 2 });
    expect(llm.reasoning_effort.enum).toEqual(["none", "low", "medium", "high"]);
    expect(Object.keys(llm)).toEqual(expect.arrayContaining(["model", "max_tokens", "response_format", "tools", "tool_choice"]));
    expect(await get("/api/workflows/catalog/types/nope")).toEqual({ count: 0 });
  });

  it("serves harnesses", async () => {
    const body = await get("/api/workflows/catalog/harnesses/");
    expect(body.harnesses.map((h: any) => h.key)).toEqual(expect.arrayContaining(["completion", "chat", "hook", "code"]));
    const { count, harness } = await get("/api/workflows/catalog/harnesses/chat");
    expect(count).toBe(1);
    expect(harness.capabilities.messages).toBe(true);
    expect(await get("/api/workflows/catalog/harnesses/nope")).toEqual({ count: 0 });
  });
});

describe("lookup", () => {
  it("finds templates by uri in any spelling", () => {
    expect(templateForUri("agenta:builtin:chat:v0")?.key).toBe("chat");
    expect(templateForUri("svc:builtin:chat:v0")?.key).toBe("chat");
    expect(templateForUri("builtin:chat")?.key).toBe("chat");
    expect(templateForUri("agenta:custom:code:v0")?.key).toBe("code");
    expect(templateForUri("agenta:builtin:auto_exact_match:v0")?.flags.is_evaluator).toBe(true);
    expect(templateForUri("user:custom:mine:v1")).toBeNull();
    expect(templateForUri("svc:builtin:chat:v9")).toBeNull();
    expect(templateForUri("")).toBeNull();
  });

  it("returns the schemas of a uri", () => {
    const schemas = schemasForUri("completion");
    expect(schemas?.parameters?.properties).toHaveProperty("prompt");
    expect(schemasForUri("nope:nope:nope:v0")).toBeNull();
  });

  it("finds templates by family and key", () => {
    expect(templateByKey("applications", "completion")?.data.uri).toBe("agenta:builtin:completion:v0");
    expect(templateByKey("applications", "auto_exact_match")).toBeNull();
    expect(templateByKey("evaluators", "auto_exact_match")?.key).toBe("auto_exact_match");
    expect(templateByKey("workflows", "chat")?.key).toBe("chat");
  });

  it("hands out copies, so the catalog cannot be changed by a caller or a request", async () => {
    const mine = templateByKey("applications", "completion")!;
    (mine.data.parameters as any).prompt.messages[0].content = "changed";
    mine.flags.is_archived = true;
    const again = templateByKey("applications", "completion")!;
    expect((again.data.parameters as any).prompt.messages[0].content).toBe("You are an expert in geography.");
    expect(again.flags.is_archived).toBe(false);
    const served = (await get("/api/applications/catalog/templates/completion")).template;
    expect(served.data.parameters.prompt.messages[0].content).toBe("You are an expert in geography.");
    const stored = APPLICATION_ENTRIES[0].template.data.parameters as any;
    expect(Object.isFrozen(stored.prompt.messages[0])).toBe(true);
    expect(() => { stored.prompt.messages[0].content = "changed"; }).toThrow(TypeError);
    expect(Object.isFrozen(EVALUATOR_ENTRIES[0].presets)).toBe(true);
  });
});

describe("schemas are usable JSON Schema", () => {
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

  it("every type compiles", () => {
    for (const type of listTypes()) expect(() => ajv.compile(type.json_schema), type.key).not.toThrow();
  });

  it("every template's defaults and presets satisfy its parameters schema", () => {
    for (const template of listTemplates("workflows", { include_archived: true })) {
      const schemas = template.data.schemas!;
      for (const part of ["inputs", "outputs"] as const) {
        if (schemas[part]) expect(() => ajv.compile(schemas[part]!), `${template.key} ${part}`).not.toThrow();
      }
      const validate = ajv.compile(schemas.parameters!);
      const properties = (schemas.parameters!.properties ?? {}) as Record<string, { default?: unknown }>;
      // Defaults may leave out only what the user must choose (required, with no default).
      validate(template.data.parameters ?? {});
      for (const error of validate.errors ?? []) {
        expect(error.keyword, `${template.key} defaults: ${ajv.errorsText([error])}`).toBe("required");
        expect(properties[error.params.missingProperty]?.default).toBeUndefined();
      }
      for (const preset of listPresets("workflows", template.key, { include_archived: true })!) {
        expect(preset.data.uri).toBe(template.data.uri);
        const ok = validate(preset.data.parameters ?? {});
        expect(ok, `${template.key}/${preset.key}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    }
  });

  it("default prompts are valid prompt templates", () => {
    const promptTemplate = ajv.compile(listTypes().find((t) => t.key === "prompt-template")!.json_schema);
    for (const key of ["completion", "chat"]) {
      for (const preset of listPresets("applications", key)!) {
        const ok = promptTemplate((preset.data.parameters as any).prompt);
        expect(ok, `${key}/${preset.key}: ${ajv.errorsText(promptTemplate.errors)}`).toBe(true);
      }
    }
    const messages = ajv.compile(listTypes().find((t) => t.key === "messages")!.json_schema);
    for (const preset of listPresets("evaluators", "auto_ai_critique")!) {
      expect(messages((preset.data.parameters as any).prompt_template), preset.key).toBe(true);
    }
  });
});
