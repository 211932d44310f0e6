import { CONNECTION_HELP, clientCommand, parseClientArgs, positionals, printJson } from "./client-command.ts";
import { openClient } from "./client-connection.ts";
import { NotFound } from "./client-lookup.ts";
import { UsageError } from "./command.ts";

export const command = clientCommand({
  name: "apps deploy",
  summary: "Deploy an application variant's latest revision to an environment",
  usage: `
Usage: tessera apps deploy APP --variant V --env ENV [--key K] [--message M]

Points the environment ENV (development, staging, production, …) at the latest revision of the
variant V of the application APP. Deploying moves the pointer; no revision changes. What an
environment held before stays in its history ('tessera log environments ENV').

Arguments and options:
  APP                  the application's slug or id
  --variant <v>        the variant's slug or id; its short name works too ('default' for
                       'APP.default', the variant the simple API creates)
  --env <env>          the environment's slug
  --key <k>            the key inside the environment (default: APP.revision)
  --message <m>        the message of the environment's new revision

--json prints the server's answer: {count, application_revision, retrieval_info}.
${CONNECTION_HELP}`,
  async run(args) {
    const { values, positionals: given } = parseClientArgs(args, {
      variant: { type: "string" }, env: { type: "string" }, key: { type: "string" }, message: { type: "string" },
    });
    const [appRef] = positionals(given, "APP");
    if (!values.variant) throw new UsageError("--variant V is required");
    if (!values.env) throw new UsageError("--env ENV is required");
    const { client, lookup } = openClient(values);

    const app = await lookup.artifact("applications", appRef);
    if (!app) throw new NotFound(`No application has slug or id "${appRef}"`);
    const variant = await lookup.variantOf("applications", app, values.variant);
    const answer = await client.deploy({ application: app.slug, variant: variant.slug, environment: values.env, key: values.key, message: values.message }) as Record<string, any>;
    if (values.json) printJson(answer);
    else {
      const rev = answer.application_revision ?? {};
      process.stdout.write(`Deployed ${app.slug} (variant ${variant.slug}, version ${rev.version}) to ${values.env}\n  revision ${rev.id}\n`);
    }
    return 0;
  },
});
