/**
 * The Node flags a Tessera server runs with: `npm start` (package.json), `tessera serve`, the test
 * processes and the bench all pass these. Cluster workers inherit them.
 *
 * `--no-memory-reducer`: after a quiet spell V8 shrinks the heap, and the garbage collections that
 * follow cost the next traffic ~20% of its throughput for as long as it was measured (40 s of
 * cached retrieves after 15 s idle: ~33k instead of ~39k requests/s on a 2-core machine). A server keeps its working heap instead.
 * It can only be given on the command line (not NODE_OPTIONS, not at run time).
 *
 * `--expose-gc`: so that a server idle after big work still gives that memory back, with one full
 * collection (src/http/idle-collector.ts) instead of the reducer's repeated shrinking.
 */
export const SERVER_NODE_FLAGS = ["--no-memory-reducer", "--expose-gc"];
