// Every atom of a domain: the walk's start population, labels and sources. `key` names the atom in
// `relation_keys` (here the id itself: id() is deprecated in Neo4j 5). The client sorts by id.
// Read in pages of $chunk atoms after the id $after, one record per page whose fields are lists
// (columns): the Python driver's cost is per record, and a page bounds the server's memory
// (Neo4jStore.read_columns asks for the next page until one comes back short).
MATCH (a:Atom)
WHERE a.domain = $domain AND a.id > $after
WITH a ORDER BY a.id LIMIT $chunk
WITH collect(a) AS page
RETURN [a IN page | a.id] AS key, [a IN page | a.id] AS id, [a IN page | a.label] AS label,
       [a IN page | a.source] AS source
