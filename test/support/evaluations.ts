const TERMINAL = ["success", "failure", "errors", "cancelled"];

/**
 * Polls an evaluation (`get` reads `GET /simple/evaluations/{id}` as some client) until it has ended, for at most
 * `polls` × 50 ms, and returns it.
 */
export async function finishedEvaluation(get: (path: string) => Promise<any>, id: string, polls = 1200) {
  for (let i = 0; i < polls; i++) {
    const { evaluation } = await get(`/simple/evaluations/${id}`);
    if (TERMINAL.includes(evaluation.data.status) && !evaluation.flags.is_active) return evaluation;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`evaluation ${id} did not finish`);
}
