// The ${rel} edges leaving the atoms of a domain whose `key` (see atom_index) is in [$lo, $hi), as the
// keys of their two ends: the walk's frontier path (codewalk.walk) reads its relation so and keeps it
// as integer arrays. Here keys are ids, and the reader asks for one slice ($lo, $hi null). Grouped by
// source (`dst` a list per source), and those groups returned as columns in chunks of $chunk sources,
// one record each (Neo4jStore.read_columns): the Python driver spends about 30 us per record.
MATCH (a:Atom)-[:${rel}]->(b:Atom)
WHERE a.domain = $domain AND ($lo IS NULL OR a.id >= $lo) AND ($hi IS NULL OR a.id < $hi)
WITH a.id AS src, collect(b.id) AS dst
WITH collect([src, dst]) AS rows
UNWIND range(0, size(rows) - 1, $chunk) AS at
WITH rows[at..at + $chunk] AS part
RETURN [r IN part | r[0]] AS src, [r IN part | r[1]] AS dst
