import { readlinkSync } from "node:fs";
import { access } from "node:fs/promises";
import { getPriority, setPriority } from "node:os";

/** The calling worker thread's id in the kernel, or null (the main thread, or no /proc). */
function threadId(): number | null {
  try {
    const thread = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(thread) && thread !== process.pid ? thread : null;
  } catch {
    return null;
  }
}

/**
 * A thread started by a lowered thread inherits its priority, and libuv starts the process's one pool of threads (for
 * the file system, zlib, crypto: every thread's) when a thread first asks it for work: were that a lowered thread,
 * the main thread's file reads and compression would run at the lowest priority too. Asking it for work first makes
 * sure that it has started, at the priority the thread had until now.
 */
const poolStarted = () => access(".").catch(() => {});

/**
 * Lowers the calling worker thread's priority by `nicer` (nice values, 0–19): on Linux a thread has a nice value of
 * its own (setpriority on its thread id), so the thread's work (parsing an upload, another project's code) gives way
 * to the thread that answers requests when both want a core, and takes every core left idle. Elsewhere, or without
 * the right to change priorities, the thread keeps the process's priority.
 */
export async function lowerThreadPriority(nicer: number): Promise<void> {
  await poolStarted();
  const thread = threadId();
  if (thread === null) return;
  try {
    setPriority(thread, Math.min(19, getPriority(thread) + nicer));
  } catch {
    // No right to change priorities.
  }
}
