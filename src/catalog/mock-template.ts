import { MOCK_BEHAVIOURS } from "../runtime/mock/mock.ts";
import { catalogFlags, presetOf, type CatalogEntry, type CatalogTemplate } from "./entry.ts";
import { object, openObject, string } from "./json-schema.ts";

/*
 * The reference's deterministic test workflow: an application and an evaluator without a model or a
 * sandbox, for wiring evaluations end to end. `key` picks a behaviour, `kwargs` are its arguments.
 */

const mock: CatalogTemplate = {
  key: "mock",
  name: "Mock",
  description:
    "Deterministic test workflow, no model: echo, static or messages as an application; pass, fail, score or reflect " +
    "as an evaluator; error fails, delay waits `seconds` (capped by the server) then behaves as `then`.",
  categories: ["custom"],
  flags: catalogFlags({ is_application: true, is_evaluator: true }),
  data: {
    uri: "agenta:custom:mock:v0",
    schemas: {
      parameters: object(
        {
          key: string({ enum: [...MOCK_BEHAVIOURS], description: "The behaviour to run." }),
          kwargs: openObject({
            description:
              "Its arguments: static {output}; messages {text}; score {score, threshold (0.5)}; error {message}; " +
              "delay {seconds (0.1), then ('pass')}.",
          }),
        },
        { required: ["key"], additional: false },
      ),
      inputs: openObject(),
      outputs: { description: "The behaviour's outputs: the application's, or {score, success} for an evaluator." },
    },
    parameters: { key: "echo", kwargs: {} },
  },
};

const preset = (key: string, name: string, description: string, kwargs: Record<string, unknown> = {}) =>
  presetOf(mock, { key, name, description, data: { parameters: { key, kwargs } } });

export const MOCK_ENTRY: CatalogEntry = {
  template: mock,
  presets: [
    preset("echo", "Echo", "Answers with its inputs."),
    preset("pass", "Pass", "Always {score: 1, success: true}."),
    preset("fail", "Fail", "Always {score: 0, success: false}."),
    preset("score", "Score", "A fixed score against a threshold.", { score: 0.5, threshold: 0.5 }),
  ],
};
