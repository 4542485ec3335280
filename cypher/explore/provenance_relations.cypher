// Provenance of one task with the relation edges among its atoms (FEEDS, SHARES_FILE): dense at large N.
// Params: $id, a Task id from `cw tasks list`. In Neo4j Browser first run  :param id => 'tXXXX'
MATCH (t:Task {id: $id})-[c:COMPOSES]->(a:Atom)
OPTIONAL MATCH (t)-[r:IN_RUN]->(run:Run)
OPTIONAL MATCH (a)-[e:FEEDS|SHARES_FILE]->(:Atom)<-[:COMPOSES]-(t)
RETURN t, c, a, r, run, collect(e) AS edges
ORDER BY c.position
