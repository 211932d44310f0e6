import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

type Value = string | number;
const attrs = (values: Record<string, Value>) => Object.entries(values).map(([key, value]) => ({
  key, value: typeof value === "string" ? { stringValue: value } : { intValue: String(value) },
}));
const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
/** Nanoseconds since the epoch, `ms` from `at`, as OTLP/JSON writes them. */
const ns = (at: number, ms: number) => String(BigInt(at + ms) * 1_000_000n);

/**
 * A support bot's answer as its OpenTelemetry SDK would export it: a workflow root span with its inputs, output,
 * references, session and user; a retrieval tool span; a model call with tokens (and, when it fails, an exception).
 */
function supportTrace(question: string, answer: string, startedAt: number, failed = false) {
  const traceId = hex(16);
  const root = hex(8);
  const status = failed ? { code: 2, message: "The model provider timed out" } : { code: 1 };
  const span = (
    spanId: string, parentSpanId: string, name: string, from: number, to: number, values: Record<string, Value>,
  ) => ({
    traceId, spanId, ...(parentSpanId ? { parentSpanId } : {}), name, kind: 1,
    startTimeUnixNano: ns(startedAt, from), endTimeUnixNano: ns(startedAt, to), attributes: attrs(values),
    status: { code: 1 },
  });
  const exception = attrs({ "exception.type": "TimeoutError", "exception.message": "no answer in 30 s" });
  const spans = [
    {
      ...span(root, "", "support-bot", 0, 1200, {
        "ag.type.node": "workflow", "ag.data.inputs.question": question, "ag.data.outputs": answer,
        "ag.refs.application.slug": "support-bot", "ag.refs.environment.slug": "production",
        "ag.session.id": "session-42", "ag.user.id": "ada@example.com",
      }),
      status,
    },
    span(hex(8), root, "retrieve-articles", 20, 260, { "ag.type.node": "tool", "ag.data.inputs.query": question }),
    {
      ...span(hex(8), root, "chat gpt-4o-mini", 300, 1150, {
        "ag.type.node": "chat", "ag.data.inputs.prompt": `Answer the customer: ${question}`,
        "ag.data.parameters.model": "gpt-4o-mini", "ag.data.outputs": answer,
        "ag.metrics.unit.tokens.prompt": 412, "ag.metrics.unit.tokens.completion": 57,
        "ag.metrics.unit.tokens.total": 469,
      }),
      status,
      events: failed
        ? [{ name: "exception", timeUnixNano: ns(startedAt, 1150), attributes: exception }]
        : [],
    },
  ];
  return { traceId, spans };
}

describe("console: traces", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  const traces: Record<string, string> = {};

  /** Sends spans as OTLP/JSON over HTTP, as an OpenTelemetry exporter does. */
  const exportSpans = async (spans: object[]) => {
    const resource = { attributes: attrs({ "service.name": "support-bot" }) };
    const res = await fetch(`${server.url}/api/otlp/v1/traces`, {
      method: "POST",
      headers: { authorization: `ApiKey ${server.key}`, "content-type": "application/json" },
      body: JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ spans }] }] }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };

  /**
   * Waits until the table shows `count` rows, the first holding `first`: a count alone can be met by the rows of the
   * view before, still shown while the new one loads.
   */
  const shown = (page: Page, count: number, first = "") => page.waitForFunction(([count, first]) => {
    const rows = document.querySelectorAll("tbody tr");
    return rows.length === count && (rows[0]?.textContent ?? "").includes(first as string);
  }, [count, first] as const);

  beforeAll(async () => {
    server = await startConsoleServer();
  });
  afterAll(async () => server?.close());

  it("says how to send traces while there are none", async () => {
    const { page } = browser;
    await signIn(page, server);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Traces" }).click();
    await page.getByRole("heading", { name: "Traces" }).waitFor();
    const empty = page.getByRole("status").filter({ hasText: "No traces yet" });
    await expect(empty.textContent()).resolves.toContain(`${server.url}/api/otlp/v1/traces`);
    await expect(empty.textContent()).resolves.toContain("Authorization: ApiKey");
    await screenshot(page, "observability-empty");
  });

  it("lists ingested and hosted traces, filters them, opens one and adds two to a new testset", async () => {
    const now = Date.now();
    const reset = "Open Settings, then Security, then Reset password.";
    const password = supportTrace("How do I reset my password?", reset, now - 60_000);
    const refund = supportTrace("Where is my refund?", "Sorry, I could not look that up.", now - 40_000, true);
    const invoiceAnswer = "Yes: Billing, then Invoices, then Download.";
    const invoice = supportTrace("Can I get an invoice?", invoiceAnswer, now - 20_000);
    await exportSpans([...password.spans, ...refund.spans, ...invoice.spans]);
    Object.assign(traces, { password: password.traceId, refund: refund.traceId, invoice: invoice.traceId });
    // A hosted invocation: an application deployed to production, run through the runtime.
    const app = (await server.api("POST", "/simple/applications/", {
      application: {
        slug: "geo", name: "Geo", data: { uri: "svc:custom:code:v0", script: "function run(i) { return 'Lima'; }" },
      },
    })).application;
    await server.api("POST", "/applications/revisions/deploy", {
      application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "production" },
    });
    const invoked = await fetch(`${server.url}/services/invoke`, {
      method: "POST",
      headers: { authorization: `ApiKey ${server.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        data: { inputs: { country: "Peru" } },
        references: { application: { id: app.id }, environment: { slug: "production" } },
      }),
    });
    expect(invoked.status).toBe(200);
    traces.hosted = (await invoked.json()).trace_id;
    expect(traces.hosted).toMatch(/^[0-9a-f]{32}$/);

    const { page } = browser;
    await signIn(page, server, "/traces");
    const table = page.getByRole("table", { name: "Traces, newest first" });
    const rows = table.locator("tbody tr");
    // Newest first: the hosted run, then the three exported traces.
    await shown(page, 4, "Peru");
    await expect(rows.nth(0).textContent()).resolves.toContain("Peru");
    await expect(rows.nth(0).textContent()).resolves.toContain("geo");
    await expect(rows.nth(1).textContent()).resolves.toContain("Can I get an invoice?");
    const refundRow = rows.filter({ hasText: "Where is my refund?" });
    await expect(refundRow.textContent()).resolves.toMatch(/support-bot.*production.*error/);
    await expect(rows.filter({ hasText: "reset my password" }).textContent()).resolves.toMatch(/1\.20 s.*469/);
    await screenshot(page, "observability");

    // Status: only the failed trace; the filter is in the URL.
    await page.getByLabel("Status").selectOption({ label: "Error" });
    await page.waitForURL(`${server.url}/traces?status=error`);
    await shown(page, 1, "Where is my refund?");
    await expect(rows.first().textContent()).resolves.toContain("Where is my refund?");
    // Search in inputs and outputs, with the application and the time range: a link that opens the same view.
    await page.getByLabel("Status").selectOption({ label: "Any" });
    await page.getByLabel("Application").selectOption({ value: "geo" });
    await shown(page, 1, "Peru");
    await expect(rows.first().textContent()).resolves.toContain("Peru");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.waitForURL(`${server.url}/traces`);
    // What is typed stays in the box while the view changes around it, until Enter commits it.
    await page.getByLabel("Search inputs and outputs").fill("password");
    await page.getByLabel("Time").selectOption({ label: "Last hour" });
    await page.waitForURL(`${server.url}/traces?range=1h`);
    await page.getByLabel("Search inputs and outputs").press("Enter");
    await page.waitForURL(`${server.url}/traces?range=1h&q=password`);
    await shown(page, 1, "How do I reset my password?");
    await expect(rows.first().textContent()).resolves.toContain("How do I reset my password?");
    await page.goto(`${server.url}/traces?session=session-42&user=ada%40example.com&q=refund`);
    await shown(page, 1, "Where is my refund?");
    await expect(rows.first().textContent()).resolves.toContain("Where is my refund?");
    await expect(page.getByLabel("Session id").inputValue()).resolves.toBe("session-42");
    await page.goto(`${server.url}/traces?q=nothing-matches-this`);
    await page.getByText("No matching traces").waitFor();

    // One trace: the span tree and its waterfall, then a span's inputs.
    await page.goto(`${server.url}/traces?q=password`);
    await rows.first().getByRole("link", { name: "support-bot" }).click();
    await page.waitForURL(`${server.url}/traces/${traces.password}`);
    const spans = page.getByRole("list", { name: "Spans" });
    await spans.getByRole("button", { name: /^chat gpt-4o-mini/ }).waitFor();
    const bars = await page.getByTestId("waterfall-bar").evaluateAll((els) => els.map((el) => {
      const bar = el.getBoundingClientRect();
      const track = el.parentElement!.getBoundingClientRect();
      return { left: (bar.left - track.left) / track.width, width: bar.width / track.width };
    }));
    // Placed by start and end within the 1.2 s trace: the root spans all of it, the tool call starts at 20 ms and
    // lasts 240 ms, the model call starts at 300 ms and lasts 850 ms.
    expect(bars).toHaveLength(3);
    expect(bars[0]!.left).toBeCloseTo(0, 2);
    expect(bars[0]!.width).toBeCloseTo(1, 2);
    expect(bars[1]!.left).toBeCloseTo(20 / 1200, 2);
    expect(bars[1]!.width).toBeCloseTo(240 / 1200, 2);
    expect(bars[2]!.left).toBeCloseTo(300 / 1200, 2);
    expect(bars[2]!.width).toBeCloseTo(850 / 1200, 2);
    await spans.getByRole("button", { name: /^chat gpt-4o-mini/ }).click();
    const details = page.getByRole("region", { name: "Span details" });
    await expect(details.getByRole("region", { name: "Inputs" }).textContent())
      .resolves.toContain("Answer the customer: How do I reset my password?");
    await expect(details.getByRole("region", { name: "Parameters" }).textContent()).resolves.toContain("gpt-4o-mini");
    await expect(details.textContent()).resolves.toMatch(/Tokens469 \(prompt 412, completion 57\)/);
    expect(new URL(page.url()).searchParams.get("span")).toMatch(/^[0-9a-f]{16}$/);
    await screenshot(page, "observability-trace");
    // A failed trace shows its error where it happened.
    await page.goto(`${server.url}/traces/${traces.refund}`);
    await spans.getByRole("button", { name: /^chat gpt-4o-mini.*error$/ }).click();
    await expect(details.getByRole("alert").textContent()).resolves.toContain("TimeoutError: no answer in 30 s");

    // Two traces into a new testset: their inputs as columns, their outputs as the expected answer.
    await page.goto(`${server.url}/traces?app=support-bot&status=ok`);
    await shown(page, 2);
    await page.getByLabel("Select all shown").check();
    await page.getByRole("button", { name: "Add to testset" }).click();
    const form = page.getByRole("form", { name: "Add to testset" });
    await form.getByLabel("New testset's name").fill("Support questions");
    await expect(form.getByLabel("Expected answer column").inputValue()).resolves.toBe("correct_answer");
    await form.getByLabel("Commit message").fill("Two answers from production");
    await screenshot(page, "observability-add");
    await form.getByRole("button", { name: "Commit rows" }).click();
    await page.waitForURL(/\/testsets\/[0-9a-f-]+\/revisions\/[0-9a-f-]+\/rows$/);
    await page.getByText("Two answers from production").waitFor();
    await screenshot(page, "observability-testset");
    await page.getByTestId("row-count").filter({ hasText: "2" }).waitFor();
    const [, testsetId, revisionId] = /\/testsets\/([^/]+)\/revisions\/([^/]+)\/rows$/.exec(page.url())!;
    const stored = await server.api("POST", "/testcases/query", { testset_revision_ref: { id: revisionId } });
    expect(stored.testcases.map((t: { data: object }) => t.data)).toEqual(expect.arrayContaining([
      expect.objectContaining({ question: "Can I get an invoice?", correct_answer: invoiceAnswer }),
      expect.objectContaining({ question: "How do I reset my password?", correct_answer: reset }),
    ]));
    expect(stored.testcases).toHaveLength(2);

    // A third trace into the same testset: the next revision, under the column the testset already has.
    await page.goto(`${server.url}/traces?status=error`);
    await shown(page, 1);
    await rows.first().getByRole("checkbox").check();
    await page.getByRole("button", { name: "Add to testset" }).click();
    await form.getByRole("combobox", { name: /^Testset/ }).selectOption({ label: "Support questions" });
    await form.getByRole("button", { name: "Commit rows" }).click();
    await page.waitForURL((url) =>
      url.pathname.startsWith(`/testsets/${testsetId}/revisions/`) && !url.pathname.includes(revisionId));
    await page.getByText("Add 1 trace").waitFor();
    await page.getByTestId("row-count").filter({ hasText: "3" }).waitFor();
    const nextRevision = new URL(page.url()).pathname.split("/")[4];
    const next = await server.api("POST", "/testcases/query", { testset_revision_ref: { id: nextRevision } });
    expect(next.testcases).toHaveLength(3);
    expect(next.testcases.map((t: { data: object }) => t.data)).toContainEqual(
      expect.objectContaining({ question: "Where is my refund?", correct_answer: "Sorry, I could not look that up." }),
    );
  });
});
