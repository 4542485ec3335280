// bench/walks.py only: empty the benchmark's own Neo4j before a load, in batches so the
// transaction state stays small. Needs an auto-commit (implicit) transaction.
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
