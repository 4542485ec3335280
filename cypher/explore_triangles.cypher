// cw explore: triangles of the relation taken undirected, each counted once.
MATCH (a:Atom)-[:${rel}]-(b:Atom)-[:${rel}]-(c:Atom)-[:${rel}]-(a)
WHERE a.domain = $domain AND a.id < b.id AND b.id < c.id
WITH DISTINCT a.id AS x, b.id AS y, c.id AS z
RETURN count(*) AS triangles
