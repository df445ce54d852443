/**
 * The arena's names and limits in one place: the schemas (models.ts) state them, the services
 * enforce what a schema cannot. docs/arena.md explains each.
 */

/** A suite's slug: what the URLs and the CLI name it by. */
export const SLUG_PATTERN = "^[a-z0-9][a-z0-9-]{0,62}$";
/** A methodology version: an operator's label ("1", "2026.1", "v2-rc1"), compared as a string. */
export const VERSION_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$";

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 2_000;
/** Cases of one suite version: as many as an eval holds. */
export const MAX_CASES = 100;

/** Suites the public list shows (their current versions); the operator adds them by hand. */
export const MAX_SUITES_LISTED = 200;
/** Entries of one leaderboard: models with a completed run on the version. */
export const MAX_BOARD_ENTRIES = 200;

/** The run's signed statement (type and version of its payload). */
export const RUN_STATEMENT_TYPE = "arena-run";
export const RUN_STATEMENT_VERSION = 1;

/** An error's message as stored on a failed run. */
export const ERROR_MESSAGE_MAX = 500;
