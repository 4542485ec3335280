// Connected components of a domain's relation (edges taken undirected), largest first.
// Each component is named by its smallest atom id. One breadth-first search per atom: fine for graphs
// of a few thousand atoms (`cw explore` uses label propagation instead).
// Params: $domain.
MATCH (a:Atom {domain: $domain})
MATCH ANY SHORTEST (a)-[:SHARES_FILE|FEEDS]-*(b:Atom)
WITH a, min(b.id) AS component
RETURN component, count(a) AS atoms
ORDER BY atoms DESC, component
