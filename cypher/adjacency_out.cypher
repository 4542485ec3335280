// The out-neighbours of each atom in $ids along ${rel}: the one query per step of the chain walk's
// frontier path (codewalk.walk), which keeps them in sets.
UNWIND $ids AS x
MATCH (a:Atom {id: x})
OPTIONAL MATCH (a)-[:${rel}]->(n:Atom)
RETURN x AS id, collect(n.id) AS next
