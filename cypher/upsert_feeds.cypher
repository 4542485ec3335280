UNWIND $rows AS r
MATCH (a:Atom {id: r.src})
MATCH (b:Atom {id: r.dst})
MERGE (a)-[e:FEEDS]->(b)
SET e.arg = r.arg, e.via = r.via
