import { render } from "preact";
import { App } from "./app.tsx";
import { takeKeyFromFragment } from "./session.ts";
import { applyTheme, storedTheme } from "./theme.ts";

applyTheme(storedTheme());
takeKeyFromFragment();
// A sign-in link pasted into a tab already on the console changes only the fragment: no page load.
window.addEventListener("hashchange", () => takeKeyFromFragment());
render(<App />, document.getElementById("app")!);
