/** Polls `check` until it holds; fails naming `what` after `ms`, so a test that waits on a real session cannot hang. */
export async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
	const end = Date.now() + ms;
	while (!check()) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
