import { render } from "preact";
import { App } from "./app.tsx";
import { takeKeyFromFragment } from "./session.ts";
import { applyTheme, storedTheme } from "./theme.ts";

applyTheme(storedTheme());
takeKeyFromFragment();
render(<App />, document.getElementById("app")!);
