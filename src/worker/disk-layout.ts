/** The page size of every database this app writes: see below. */
export const PAGE_BYTES = 1024;

/**
 * How the database meets the disk (`onDiskPragmas` in open-database.ts), chosen by the bytes one
 * Send writes (`npm run bench -- disk`).
 * - The lock is held for as long as the database is open (this worker's connection is the only
 *   one: the pool's files are its alone), so SQLite trusts its page cache across transactions, and
 *   it is what lets WAL run without shared memory, which OPFS does not have.
 * - WAL writes each changed page once per commit, where the rollback journal wrote it twice (its
 *   old copy to the journal, then the page), and appends instead of seeking back and forth. A
 *   commit is still synced before it is acknowledged: a crash loses nothing committed.
 * - 1 KiB pages (the build's default is 8): most commits change a few rows in each of several
 *   B-trees, and each changed page is written whole, so the smaller the page, the fewer bytes a
 *   Send writes (at 1,000 turns, measured in Node with a page's changes diffed: 512 B 67 KB, 1 KiB
 *   100, 2 KiB 159, 4 KiB 260). Smaller pages once measured worse in the browser only because the
 *   pager wrote whole 4 KiB sectors (`openTrustingOverwrites`). 512-byte pages would leave an index
 *   entry of two text ids (~80 bytes) near the size past which it spills off its page. An older
 *   database is rewritten to them once (`rewrite-database.ts`).
 * - The WAL is copied into the database every 10,000 pages (SQLite's default is 1,000): a copy
 *   writes each page the WAL holds once, and the pages a Send touches are mostly the same few
 *   dozen, so the rarer the copy, the fewer it writes a Send. The WAL's file peaks near 10 MB while
 *   playing and is emptied when the app is quiet (`shrinkWal`).
 * - The WAL is capped so a restore's big transaction does not leave a big file behind.
 * - Commits are not padded to a sector, nor a page's neighbours in its sector written with it
 *   (`openTrustingOverwrites`).
 */
export const WAL_PAGES_BEFORE_COPY = 10_000;
