// One step of a batch of chain walks: extend from the chain's last atom along outgoing edges.
UNWIND $walks AS w
MATCH (a:Atom {id: w.last})
OPTIONAL MATCH (a)-[:${rel}]->(n:Atom)
WITH w, n
WHERE n IS NOT NULL AND NOT n.id IN w.ids
  AND (w.label = '' OR n.label = w.label)
  AND NOT coalesce(n.source, '') IN w.blocked
WITH DISTINCT w.wid AS wid, w.u AS u, n.id AS nid
ORDER BY nid
WITH wid, u, collect(nid) AS f
RETURN wid, f[toInteger(floor(u * size(f)))] AS pick, size(f) AS frontier
