import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

const chat = {
  uri: "svc:builtin:chat:v0",
  parameters: {
    prompt: {
      messages: [
        { role: "system", content: "You are an expert in geography." },
        { role: "user", content: "What is the capital of {{country}}?" },
      ],
      llm_config: { model: "gpt-4o-mini", temperature: 0.7, top_p: 0.9 },
      template_format: "curly",
    },
    note: "kept as it is",
  },
};

describe("console: edit and commit", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let app: { id: string; variant_id: string; revision_id: string };

  beforeAll(async () => {
    server = await startConsoleServer();
    app = (await server.api("POST", "/simple/applications/", { application: { slug: "capitals", name: "Capitals", data: chat } })).application;
  });
  afterAll(async () => server?.close());

  const latest = async (variantId: string, kind = "application") =>
    (await server.api("POST", `/${kind}s/revisions/retrieve`, { [`${kind}_variant_ref`]: { id: variantId } }))[`${kind}_revision`];

  it("edits a chat prompt's message and temperature and commits them with a message as the next version", async () => {
    const { page } = browser;
    const before = await latest(app.variant_id);
    const n = Number(before.version);
    await signIn(page, server, `/applications/${app.id}`);
    await page.getByRole("link", { name: "Edit capitals.default" }).click();
    await page.getByRole("heading", { name: /Edit Capitals/ }).waitFor();
    expect(page.url()).toBe(`${server.url}/applications/${app.id}/variants/${app.variant_id}/edit`);
    await expect(page.getByLabel("Variables in message 2").textContent()).resolves.toBe("{{country}}");
    await expect(page.getByLabel("Variables in message 1").textContent()).resolves.toBe("No variables");
    await expect(page.getByLabel("Temperature").inputValue()).resolves.toBe("0.7");

    await page.getByLabel("Message 2 (user)").fill("Capital of {{country}}, answered in the style of {{ style }}?");
    await expect(page.getByLabel("Variables in message 2").textContent()).resolves.toBe("{{country}}{{style}}");
    await page.getByLabel("Temperature").fill("0.2");
    await page.getByLabel("Max tokens").fill("64");
    await page.getByLabel("Commit message").fill("Shorter answers, with a style");
    await page.getByRole("button", { name: `Commit version ${n + 1}` }).click();
    await page.getByRole("status").filter({ hasText: `Committed version ${n + 1}: Shorter answers, with a style` }).waitFor();

    const after = await latest(app.variant_id);
    expect(Number(after.version)).toBe(n + 1);
    expect(after.message).toBe("Shorter answers, with a style");
    expect(page.url()).toBe(`${server.url}/applications/${app.id}/variants/${app.variant_id}/edit?revision=${after.id}&committed=1`);
    expect(after.data.uri).toBe("svc:builtin:chat:v0");
    expect(after.data.parameters.note).toBe("kept as it is");
    expect(after.data.parameters.prompt).toEqual({
      messages: [
        { role: "system", content: "You are an expert in geography." },
        { role: "user", content: "Capital of {{country}}, answered in the style of {{ style }}?" },
      ],
      llm_config: { model: "gpt-4o-mini", temperature: 0.2, top_p: 0.9, max_tokens: 64 },
      template_format: "curly",
    });
    // The earlier version is unchanged; the page now edits the new one.
    expect((await server.api("GET", `/applications/revisions/${before.id}`)).application_revision.data).toEqual(before.data);
    await expect(page.getByLabel("Message 2 (user)").inputValue()).resolves.toBe("Capital of {{country}}, answered in the style of {{ style }}?");
    await page.getByRole("button", { name: `Commit version ${n + 2}` }).waitFor();
    await screenshot(page, "edit");
  });

  it("shows errors at their field: the form's own checks, then the server's 422", async () => {
    const { page } = browser;
    browser.allowErrors(/status of 422/); // the browser logs the refused request itself
    const before = await latest(app.variant_id);
    await signIn(page, server, `/applications/${app.id}/variants/${app.variant_id}/edit`);
    await page.getByLabel("Temperature").fill("3");
    await page.getByRole("button", { name: /^Commit version/ }).click();
    await expect(page.locator("#temperature-error").textContent()).resolves.toBe("A number between 0 and 2");
    await expect(page.getByLabel("Temperature").getAttribute("aria-invalid")).resolves.toBe("true");
    await page.getByLabel("Temperature").fill("1");

    // The server refuses a commit message over 65536 characters: shown under the message field.
    await page.getByLabel("Commit message").fill("x".repeat(70_000));
    await page.getByRole("button", { name: /^Commit version/ }).click();
    await expect(page.locator("#commit-message-error").textContent()).resolves.toMatch(/65536/);
    await expect(page.getByLabel("Commit message").getAttribute("aria-invalid")).resolves.toBe("true");
    expect((await latest(app.variant_id)).id).toBe(before.id);

    // As JSON, a malformed URI: the server's issue is shown under the data, naming its path.
    await page.getByLabel("Commit message").fill("Broken URI");
    await page.getByRole("button", { name: "JSON" }).click();
    const editor = page.getByLabel(/^Revision data/);
    const data = JSON.parse(await editor.inputValue());
    expect(data.parameters.prompt.llm_config.temperature).toBe(1);
    await editor.fill(JSON.stringify({ ...data, uri: "svc::completion" }));
    await page.getByRole("button", { name: "Format" }).click();
    expect(await editor.inputValue()).toContain('\n  "uri": "svc::completion"');
    await page.getByRole("button", { name: /^Commit version/ }).click();
    await expect(page.locator("#revision-data-error").textContent()).resolves.toMatch(/^data\.uri: Malformed URI "svc::completion"/);
    // Text that does not parse is caught before anything is sent.
    await editor.fill("{\"uri\": ");
    await expect(page.locator("#revision-data-error").textContent()).resolves.toMatch(/^Not valid JSON/);
    await expect(page.getByRole("button", { name: "Format" }).isDisabled()).resolves.toBe(true);
    expect((await latest(app.variant_id)).id).toBe(before.id);
  });

  it("edits a workflow without a prompt as JSON", async () => {
    const { page } = browser;
    const flow = (await server.api("POST", "/simple/workflows/", {
      workflow: { slug: "echo", name: "Echo", data: { uri: "svc:custom:code:v0", runtime: "javascript", script: "function run(inputs) { return inputs; }" } },
    })).workflow;
    await signIn(page, server, `/workflows/${flow.id}`);
    await page.getByRole("link", { name: "Edit echo.default" }).click();
    const editor = page.getByLabel(/^Revision data/);
    await editor.waitFor();
    await expect(page.getByRole("button", { name: "Prompt" }).count()).resolves.toBe(0);
    const data = JSON.parse(await editor.inputValue());
    await editor.fill(JSON.stringify({ ...data, script: "function run(inputs) { return { twice: inputs }; }" }, null, 2));
    await page.getByLabel("Commit message").fill("Wrap the answer");
    await page.getByRole("button", { name: /^Commit version/ }).click();
    await page.getByRole("status").filter({ hasText: "Wrap the answer" }).waitFor();
    const after = await latest(flow.variant_id, "workflow");
    expect(after.data.script).toBe("function run(inputs) { return { twice: inputs }; }");
    expect(after.message).toBe("Wrap the answer");
  });

  it("warns before committing over a newer revision, and commits only when told", async () => {
    const { page } = browser;
    browser.allowErrors(/status of 409/); // the browser logs the refused request itself
    const base = await latest(app.variant_id);
    await signIn(page, server, `/applications/${app.id}/variants/${app.variant_id}/edit?revision=${base.id}`);
    await page.getByLabel("Message 1 (system)").fill("You are a terse geographer.");
    // Meanwhile someone else commits on the same variant.
    const theirs = (await server.api("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: app.variant_id, message: "Theirs", data: chat },
    })).application_revision;
    await page.getByLabel("Commit message").fill("Mine");
    await page.getByRole("button", { name: /^Commit version/ }).click();
    const warning = page.getByRole("alert").filter({ hasText: "newer revision" });
    await warning.waitFor();
    await expect(warning.textContent()).resolves.toContain(`(v${theirs.version})`);
    expect((await latest(app.variant_id)).id).toBe(theirs.id); // nothing committed yet
    const compare = warning.getByRole("link", { name: `Compare v${base.version} with v${theirs.version}` });
    const diff = `/applications/${app.id}/diff?from=${base.id}&to=${theirs.id}`;
    await expect(compare.getAttribute("href")).resolves.toBe(diff);
    await screenshot(page, "edit-stale-base");

    await warning.getByRole("button", { name: "Commit anyway" }).click();
    await page.getByRole("status").filter({ hasText: ": Mine" }).waitFor();
    const mine = await latest(app.variant_id);
    expect(mine.message).toBe("Mine");
    expect(Number(mine.version)).toBe(Number(theirs.version) + 1);
    expect(mine.data.parameters.prompt.messages[0].content).toBe("You are a terse geographer.");

    // "Discard my edits" opens the newest revision instead.
    await page.goto(`${server.url}/applications/${app.id}/variants/${app.variant_id}/edit?revision=${base.id}`);
    await page.getByLabel("Message 1 (system)").fill("Something else");
    await page.getByRole("button", { name: /^Commit version/ }).click();
    await page.getByRole("button", { name: `Discard my edits and open v${mine.version}` }).click();
    await page.waitForURL(`**/edit?revision=${mine.id}`);
    await expect.poll(() => page.getByLabel("Message 1 (system)").inputValue()).toBe("You are a terse geographer.");
    expect((await latest(app.variant_id)).id).toBe(mine.id);
  });
});
