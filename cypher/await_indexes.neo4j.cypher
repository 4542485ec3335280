// After a bulk import: wait (up to 10 minutes) until the indexes and constraints just created are
// populated, so the first walk does not scan.
CALL db.awaitIndexes(600)
