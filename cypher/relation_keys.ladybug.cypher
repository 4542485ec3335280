// The ${rel} edges leaving the atoms of a domain whose `key` (see atom_index) is in [$lo, $hi), as the
// keys of their two ends: the walk's frontier path (codewalk.walk) reads its relation so, in slices,
// and keeps it as integer arrays. A slice's result is materialised in the engine's buffer pool and
// again in Arrow, so slices bound the memory of reading 10^6 atoms.
MATCH (a:Atom)-[:${rel}]->(b:Atom)
WHERE a.domain = $domain AND offset(id(a)) >= $lo AND offset(id(a)) < $hi
RETURN offset(id(a)) AS src, offset(id(b)) AS dst
