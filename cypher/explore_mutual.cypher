// cw explore: ordered pairs (a, b) of distinct atoms with edges both ways (a -> b -> a).
MATCH (a:Atom)-[:${rel}]->(b:Atom)-[:${rel}]->(a)
WHERE a.domain = $domain AND a.id <> b.id
WITH DISTINCT a.id AS x, b.id AS y
RETURN count(*) AS pairs
