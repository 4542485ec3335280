// The ${rel} edges leaving the atoms of a domain, as the keys of their two ends: the walk's frontier
// path (codewalk.walk) reads its relation so and keeps it as integer arrays. Here keys are ids. Read
// in pages of $chunk source atoms after the id $after (see atom_index), one record per page: `src`
// the page's atoms, `dst` for each the list of its neighbours' ids (empty for an atom without edges).
MATCH (a:Atom)
WHERE a.domain = $domain AND a.id > $after
WITH a ORDER BY a.id LIMIT $chunk
WITH collect(a) AS page
RETURN [a IN page | a.id] AS src, [a IN page | [(a)-[:${rel}]->(b:Atom) | b.id]] AS dst
