// FEEDS edges that may exist: the same upsert as upsert_feeds, from an Arrow table.
LOAD FROM $rows
MATCH (a:Atom {id: src})
MATCH (b:Atom {id: dst})
MERGE (a)-[e:FEEDS]->(b)
SET e.arg = arg, e.via = via
