UNWIND $rows AS r
MATCH (a:Atom {id: r.src})
MATCH (b:Atom {id: r.dst})
MERGE (a)-[e:SHARES_FILE]->(b)
SET e.files = r.files
