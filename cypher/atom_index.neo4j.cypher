// Every atom of a domain: the walk's start population, labels and sources. `key` names the atom in
// `relation_keys` (here the id itself: id() is deprecated in Neo4j 5). The client sorts by id.
// Columns in chunks of $chunk atoms, one record each (Neo4jStore.read_columns): the Python driver's
// cost is per record, so 10^5 atoms come back as a few records instead of 10^5.
MATCH (a:Atom)
WHERE a.domain = $domain
WITH collect([a.id, a.label, a.source]) AS rows
UNWIND range(0, size(rows) - 1, $chunk) AS at
WITH rows[at..at + $chunk] AS part
RETURN [r IN part | r[0]] AS key, [r IN part | r[0]] AS id, [r IN part | r[1]] AS label, [r IN part | r[2]] AS source
