// cw explore: joint histogram of (out-degree, in-degree, undirected degree) over a domain's atoms,
// counting distinct neighbours other than the atom itself.
MATCH (a:Atom)
WHERE a.domain = $domain
OPTIONAL MATCH (a)-[:${rel}]->(o:Atom)
WHERE o.id <> a.id
WITH a, count(DISTINCT o) AS outdeg
OPTIONAL MATCH (a)<-[:${rel}]-(i:Atom)
WHERE i.id <> a.id
WITH a, outdeg, count(DISTINCT i) AS indeg
OPTIONAL MATCH (a)-[:${rel}]-(n:Atom)
WHERE n.id <> a.id
WITH a, outdeg, indeg, count(DISTINCT n) AS degree
RETURN outdeg, indeg, degree, count(a) AS atoms
ORDER BY outdeg, indeg, degree
