// cw explore: for each sampled group {gid, ids}, the relation's edges among its own atoms.
UNWIND $groups AS g
UNWIND g.ids AS x
MATCH (a:Atom {id: x})-[:${rel}]->(b:Atom)
WHERE b.id IN g.ids
RETURN g.gid AS gid, a.id AS src, b.id AS dst
