// Every atom of a domain: the walk's start population, labels and sources. `key` names the atom in
// `relation_keys` (the node's offset in its table: an integer, cheaper than the id string to read and
// match for millions of edges). The client sorts by id in its own string order.
MATCH (a:Atom)
WHERE a.domain = $domain
RETURN offset(id(a)) AS key, a.id AS id, a.label AS label, a.source AS source
