import { Problem } from '../../core/problems';

/**
 * "Keep the form and show the error", the one rule of every console form that can be refused: a
 * refusal the person can put right (a problem that is neither "Not allowed" nor the service's own
 * failure) shows the same page again with what they typed and why, answered with the refusal's
 * status (404 for a target that is not there, 409 for a state that forbids it, 422 otherwise).
 * Anything else goes on to the console's error pages.
 */
export type ShowFormAgain = (message: string, status: number, problem: Problem) => Promise<void>;

export async function keepingTheForm(change: () => Promise<void>, showAgain: ShowFormAgain): Promise<void> {
  try {
    await change();
  } catch (err) {
    if (!(err instanceof Problem) || err.status >= 500 || err.status === 403) throw err;
    const status = err.status === 404 || err.status === 409 ? err.status : 422;
    await showAgain(`Not saved: ${err.detail}`, status, err);
  }
}
