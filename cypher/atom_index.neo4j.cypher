// Every atom of a domain: the walk's start population, labels and sources. `key` names the atom in
// `relation_keys` (here the id itself: id() is deprecated in Neo4j 5). The client sorts by id.
MATCH (a:Atom)
WHERE a.domain = $domain
RETURN a.id AS key, a.id AS id, a.label AS label, a.source AS source
