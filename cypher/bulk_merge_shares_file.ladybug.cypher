// SHARES_FILE edges that may exist: the same upsert as upsert_shares_file, from an Arrow table.
LOAD FROM $rows
MATCH (a:Atom {id: src})
MATCH (b:Atom {id: dst})
MERGE (a)-[e:SHARES_FILE]->(b)
SET e.files = files
