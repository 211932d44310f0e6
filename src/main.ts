import { enableCompileCache } from "node:module";

/*
 * `npm start`'s entry point. Node's compile cache keeps each module as compiled (its types stripped, its code
 * compiled by V8) in a directory of its own, `NODE_COMPILE_CACHE` or the system's temporary one, so that a restart
 * does not do it again: a warm restart on the embedded database answered its first health check in 2.1-2.3 s
 * against 2.4-3.0 s without it. It applies to the modules loaded after it, hence the import below;
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
enableCompileCache();
await import("./launch.ts");
