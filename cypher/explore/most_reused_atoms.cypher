// The atoms that appear in the most admitted tasks of a domain.
// Params: $domain, $limit.
// Defaults: limit=10
MATCH (t:Task)-[:COMPOSES]->(a:Atom)
WHERE t.domain = $domain AND t.status = 'admitted'
RETURN a.id AS atom, a.title AS title, count(DISTINCT t) AS tasks, min(t.level) AS min_level,
       max(t.level) AS max_level
ORDER BY tasks DESC, atom
LIMIT $limit
