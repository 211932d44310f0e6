import { invalidInputs, invalidParameters } from "../../errors.ts";
import { type ChatMessage, parseMessages } from "../../messages.ts";
import type { JsonObject } from "../../templates/json-data.ts";
import { templateRenderer } from "../../prompt.ts";
import { isTemplateFormat, type TemplateFormat } from "../../templates/render.ts";
import { applicationOutput, type EvaluatorContext, findGroundTruth, testcaseColumns } from "../context.ts";
import { correctAnswerKey } from "../parameters.ts";

/**
 * The judge's messages, rendered with what the reference offers its templates: `inputs` (and each
 * input by name, testcase columns too), `outputs` (alias `prediction`), the expected answer as
 * `ground_truth` / `correct_answer` / `reference`, `trace` and `parameters`.
 */
export function renderJudgePrompt(context: EvaluatorContext): ChatMessage[] {
  const { parameters, inputs, request } = context;
  const format = templateFormat(parameters);
  const messages = parseMessages(parameters.prompt_template, "parameters.prompt_template", invalidParameters);
  const truth = findGroundTruth(context, correctAnswerKey(parameters));
  const outputs = applicationOutput(context);
  const variables: JsonObject = {
    parameters,
    ...(truth.found && { ground_truth: truth.value, correct_answer: truth.value, reference: truth.value }),
    prediction: outputs,
    outputs,
    ...testcaseColumns(request.testcase),
    ...inputs,
    inputs,
    ...(request.trace !== undefined && request.trace !== null && { trace: request.trace }),
  };

  const { renderAll, missing } = templateRenderer(format, variables, request.limits?.templates);
  const rendered = renderAll(messages, "parameters.prompt_template");
  if (missing.length > 0) {
    const names = [...new Set(missing)];
    throw invalidInputs(`Missing template variable${names.length > 1 ? "s" : ""} in the judge prompt: ${names.join(", ")}`);
  }
  return rendered;
}

/** `template_format`, else what the configuration's `version` implies (version 2 prompts were f-strings). */
function templateFormat(parameters: Record<string, unknown>): TemplateFormat {
  const format = parameters.template_format ?? (String(parameters.version ?? "") === "2" ? "fstring" : "curly");
  if (!isTemplateFormat(format)) throw invalidParameters("parameters.template_format must be one of curly, mustache, fstring, jinja2");
  return format;
}
