// Connected components of a domain's relation (edges taken undirected), largest first.
// Each component is named by its smallest atom id. One breadth-first search per atom: fine for graphs
// of a few thousand atoms (`cw explore` uses label propagation instead).
// Params: $domain.
MATCH (a:Atom)
WHERE a.domain = $domain
OPTIONAL MATCH (a)-[:SHARES_FILE|FEEDS* SHORTEST 1..30]-(b:Atom)
WITH a, min(b.id) AS reach
WITH a, CASE WHEN reach IS NULL OR a.id < reach THEN a.id ELSE reach END AS component
RETURN component, count(a) AS atoms
ORDER BY atoms DESC, component
