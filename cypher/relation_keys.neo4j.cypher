// The ${rel} edges leaving the atoms of a domain whose `key` (see atom_index) is in [$lo, $hi), as the
// keys of their two ends: the walk's frontier path (codewalk.walk) reads its relation so and keeps it
// as integer arrays. Here keys are ids, and the reader asks for one slice ($lo, $hi null): the driver
// streams records anyway. Grouped by source, as the Python driver spends about 30 us per record:
// one record per atom rather than one per edge (5x fewer at 10^5 atoms).
MATCH (a:Atom)-[:${rel}]->(b:Atom)
WHERE a.domain = $domain AND ($lo IS NULL OR a.id >= $lo) AND ($hi IS NULL OR a.id < $hi)
RETURN a.id AS src, collect(b.id) AS dst
