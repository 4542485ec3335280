// The neighbours of each atom in $ids along ${rel}, in either direction: the one query per step of
// the walk's frontier path (codewalk.walk), which keeps them in sets (no DISTINCT here: it costs about
// 40 % of the query in Ladybug). Bind `a` by primary key first, then expand: a plain MATCH over the
// whole pattern scans the relationship table (notes/walk-baselines.md).
UNWIND $ids AS x
MATCH (a:Atom {id: x})
OPTIONAL MATCH (a)-[:${rel}]-(n:Atom)
RETURN x AS id, collect(n.id) AS next
