import { defineConfig } from "vitest/config";

/**
 * The heavy hostile cases (default-size memory bombs, 40,000-deep values, floods of hundreds of thousands of host
 * calls): seconds each, so `npm test` skips them and `npm run test:hostile` (and CI) runs them.
 */
export default defineConfig({
	test: {
		include: ["test/hostile/heavy/**/*.test.ts"],
		env: { HOSTILE_HEAVY: "1" },
		testTimeout: 120_000,
		hookTimeout: 60_000,
		// One file at a time: each case may take the sandbox's whole memory cap.
		fileParallelism: false,
	},
});
