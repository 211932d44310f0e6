import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/**
 * Lowers the calling worker thread's priority by `nicer` (nice values, 0–19): on Linux a thread has a nice value of
 * its own (setpriority on its thread id), so the thread's work (parsing an upload, another project's code) gives way
 * to the thread that answers requests when both want a core, and takes every core left idle. Elsewhere, or without
 * the right to change priorities, the thread keeps the process's priority.
 */
export function lowerThreadPriority(nicer: number): void {
  try {
    const thread = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(thread) && thread !== process.pid) {
      setPriority(thread, Math.min(19, getPriority(thread) + nicer));
    }
  } catch {
    // No /proc, or no right to change priorities.
  }
}
