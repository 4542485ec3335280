// One step of a batch of symmetric walks: pick uniformly among the distinct unvisited atoms
// adjacent to any atom already in the group. Bind `a` by primary key first, then expand
// (a plain MATCH over the pattern scans the whole relationship table, measured).
UNWIND $walks AS w
UNWIND w.ids AS x
MATCH (a:Atom {id: x})
OPTIONAL MATCH (a)-[:${rel}]-(n:Atom)
WITH w, n.id AS nid, n.label AS nlabel, n.source AS nsource
WHERE nid IS NOT NULL AND NOT list_contains(w.ids, nid)
  AND (w.label = '' OR nlabel = w.label)
  AND NOT list_contains(w.blocked, coalesce(nsource, ''))
WITH w.wid AS wid, w.u AS u, list_sort(collect(DISTINCT nid)) AS f
WHERE size(f) > 0
RETURN wid, f[CAST(floor(u * size(f)) AS INT64) + 1] AS pick, size(f) AS frontier
