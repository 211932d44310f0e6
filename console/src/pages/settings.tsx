import { ApiKeys } from "../settings/api-keys.tsx";
import { ProviderKeys } from "../settings/provider-keys.tsx";
import { ServerFacts } from "../settings/server-facts.tsx";
import { Webhooks } from "../settings/webhooks.tsx";

/** `/settings`: provider keys, API keys, webhooks, and the project's and server's facts and limits. */
export function SettingsPage() {
  return (
    <>
      <h1>Settings</h1>
      <ProviderKeys />
      <ApiKeys />
      <Webhooks />
      <ServerFacts />
    </>
  );
}
