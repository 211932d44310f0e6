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
 *
 * `--max-semi-space-size=16`: V8 grows the young generation while objects survive its minor collections, up to a
 * size set from the machine's memory (over 100 MB a half on 24 GiB); each minor collection then copies more and
 * promotes more. Under cached retrieves a PostgreSQL-backed server grew it so, and spent 23-25 µs of CPU a request
 * against 16.7-18.5 µs capped (the same loads in alternating order), holding 509 MB against 196 MB. Capped, the
 * evaluation and upload lines ran at the same speed with 100-140 MB less peak RSS. The flag sizes every thread's young
 * generation (V8 reads it over a Worker's `resourceLimits.maxYoungGenerationSizeMb`, which it then ignores): an OTLP
 * thread's work, which keeps a whole export request's spans alive while it reads them, cost 22-31 µs of CPU a span at
 * 16 MB against 18-21 µs at 64 MB (bench/span-work.ts, alternating runs).
 */
export const SERVER_NODE_FLAGS = ["--no-memory-reducer", "--expose-gc", "--max-semi-space-size=16"];

/**
 * The environment a Tessera server starts with, passed where the flags are (and set by `npm start`).
 *
 * `MALLOC_MMAP_THRESHOLD_`: glibc's allocator serves a block over 128 KB from its own pages, which go back to
 * the system when freed. By default the threshold rises after each such block is freed (up to 32 MB), so the
 * buffers of a large upload land in the allocator's heap and stay there, fragmented: after a
 * 1,000,000-row upload on the embedded database the process held about 100 MB more (820–870 against
 * 720–740 MB), for the same upload time. Other C libraries ignore it.
 */
export const SERVER_ENV = { MALLOC_MMAP_THRESHOLD_: "131072" };
